//! Writes `v1.json` and `v2.json` into the folder given: every definition ACP schema 1.20.0
//! reaches from the messages of each protocol version (requests, responses and notifications of
//! both sides), as agent-client-protocol-schema 1.20.0 derives them with all its unstable features.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};

fn add<T: JsonSchema>(generator: &mut SchemaGenerator) {
    let _ = generator.subschema_for::<T>();
}

fn definitions(add_roots: impl Fn(&mut SchemaGenerator)) -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    add_roots(&mut generator);
    Value::Object(generator.take_definitions(true).into_iter().collect::<Map<_, _>>())
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: acp-schema-1-20 <output folder>");
    let v1 = definitions(|g| {
        use acp::v1::*;
        add::<ClientRequest>(g);
        add::<AgentResponse>(g);
        add::<ClientNotification>(g);
        add::<AgentRequest>(g);
        add::<ClientResponse>(g);
        add::<AgentNotification>(g);
        add::<SessionNotification>(g);
        add::<AgentCapabilities>(g);
        add::<SessionUpdate>(g);
    });
    let v2 = definitions(|g| {
        use acp::v2::*;
        add::<ClientRequest>(g);
        add::<AgentResponse>(g);
        add::<ClientNotification>(g);
        add::<AgentRequest>(g);
        add::<ClientResponse>(g);
        add::<AgentNotification>(g);
        add::<UpdateSessionNotification>(g);
        add::<AgentCapabilities>(g);
        add::<SessionUpdate>(g);
    });
    for (version, defs) in [("v1", v1), ("v2", v2)] {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$comment": format!("ACP schema 1.20.0, protocol {version}: the definitions agent-client-protocol-schema 1.20.0 derives with every unstable feature (scripts/acp_schema_1_20/)"),
            "$defs": defs,
        });
        let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        std::fs::write(format!("{dir}/{version}.json"), text).unwrap();
    }
}
