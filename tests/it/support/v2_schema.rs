//! What an ACP v2 editor is sent, checked against the v2 JSON schema the pinned schema crate
//! derives (`schemars`), with the validator of `json_schema.rs`; the updates schema 1.20 adds,
//! against 1.20's vendored definitions (`src/acp/tests/schema_1_20/`).

use agent_client_protocol_schema::v2;
use serde_json::{Value, json};

use super::acp_client::AcpClient;
use super::json_schema;

/// The kinds of update schema 1.20 adds to what the pinned SDK's schema knows.
const SCHEMA_1_20_ONLY: &[&str] = &[
    "replay_complete",
    "cursor_update",
    "prompt_suggestions_update",
];

/// Definition `name` of ACP schema 1.20's v2, as a schema to validate against.
pub fn schema_1_20_v2(name: &str) -> Value {
    let text = include_str!("../../../src/acp/tests/schema_1_20/v2.json");
    let mut schema: Value = serde_json::from_str(text).expect("the vendored 1.20 schema");
    schema["$ref"] = json!(format!("#/$defs/{name}"));
    schema
}

/// Where `value` breaks definition `name` of ACP schema 1.20's v1 (the session methods the pinned
/// SDK has only behind its unstable features are checked against the schema that made them so).
pub fn violations_1_20_v1(name: &str, value: &Value) -> Vec<String> {
    let text = include_str!("../../../src/acp/tests/schema_1_20/v1.json");
    let mut schema: Value = serde_json::from_str(text).expect("the vendored 1.20 schema");
    schema["$ref"] = json!(format!("#/$defs/{name}"));
    json_schema::violations(&schema, value)
}

/// Every violation of the v2 schema in what the adapter wrote: the answers to our requests
/// (each against its method's response type) and every notification and request it sent.
pub fn v2_violations(c: &AcpClient, session: &str, answers: &[(&str, &Value)]) -> Vec<String> {
    let schema = |s: schemars::Schema| serde_json::to_value(s).unwrap();
    let notification = schema(schemars::schema_for!(v2::UpdateSessionNotification));
    let permission = schema(schemars::schema_for!(v2::RequestPermissionRequest));
    let mut found = Vec::new();
    let notification_1_20 = schema_1_20_v2("UpdateSessionNotification");
    for update in c.updates(session) {
        let params = json!({"sessionId": session, "update": update});
        let kind = update["sessionUpdate"].as_str().unwrap_or_default();
        let schema = match SCHEMA_1_20_ONLY.contains(&kind) {
            true => &notification_1_20,
            false => &notification,
        };
        for v in json_schema::violations(schema, &params) {
            found.push(format!("{}: {v}", update["sessionUpdate"]));
        }
    }
    for request in c.requests() {
        if request.method == "session/request_permission" {
            for v in json_schema::violations(&permission, &request.params) {
                found.push(format!("permission request: {v}"));
            }
        }
    }
    for (method, answer) in answers {
        let response = match *method {
            "initialize" => schema(schemars::schema_for!(v2::InitializeResponse)),
            "session/new" => schema(schemars::schema_for!(v2::NewSessionResponse)),
            "session/prompt" => schema(schemars::schema_for!(v2::PromptResponse)),
            "session/resume" => schema(schemars::schema_for!(v2::ResumeSessionResponse)),
            "providers/list" => schema(schemars::schema_for!(v2::ListProvidersResponse)),
            other => panic!("no schema picked for {other}"),
        };
        for v in json_schema::violations(&response, answer) {
            found.push(format!("{method} answer: {v}"));
        }
    }
    found
}
