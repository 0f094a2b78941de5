//! An editor request read twice: in the SDK's type, and as the params it came with. The pinned SDK
//! (schema 1.17) drops the fields it does not know, and what 1.20 adds (what `initialize`
//! declares, `Declared1_20`; `session/fork`'s `cursorId`) is read from the params instead
//! ([`super::schema_1_20`]). A handler takes `WithParams<R>` where it would take `R`: the method,
//! the parsing and the answer are `R`'s.

use agent_client_protocol::{JsonRpcMessage, JsonRpcRequest, UntypedMessage};
use serde_json::Value;

/// Request `R` as the SDK reads it, and its params as they came.
#[derive(Debug, Clone)]
pub(crate) struct WithParams<R> {
    pub(crate) request: R,
    pub(crate) params: Value,
}

impl<R: JsonRpcRequest> JsonRpcMessage for WithParams<R> {
    fn matches_method(method: &str) -> bool {
        R::matches_method(method)
    }

    fn method(&self) -> &str {
        self.request.method()
    }

    fn to_untyped_message(&self) -> Result<UntypedMessage, agent_client_protocol::Error> {
        UntypedMessage::new(self.request.method(), &self.params)
    }

    fn parse_message(method: &str, params: &Value) -> Result<Self, agent_client_protocol::Error> {
        Ok(Self {
            request: R::parse_message(method, params)?,
            params: params.clone(),
        })
    }
}

impl<R: JsonRpcRequest> JsonRpcRequest for WithParams<R> {
    type Response = R::Response;
}

/// Request `R` answered in JSON: for an answer that says what the SDK's answer type cannot
/// (schema 1.20's fields of the v2 `initialize` answer).
#[derive(Debug, Clone)]
pub(crate) struct AnsweredInJson<R>(pub(crate) R);

impl<R: JsonRpcRequest> JsonRpcMessage for AnsweredInJson<R> {
    fn matches_method(method: &str) -> bool {
        R::matches_method(method)
    }

    fn method(&self) -> &str {
        self.0.method()
    }

    fn to_untyped_message(&self) -> Result<UntypedMessage, agent_client_protocol::Error> {
        self.0.to_untyped_message()
    }

    fn parse_message(method: &str, params: &Value) -> Result<Self, agent_client_protocol::Error> {
        R::parse_message(method, params).map(Self)
    }
}

impl<R: JsonRpcRequest> JsonRpcRequest for AnsweredInJson<R> {
    type Response = Value;
}

#[cfg(test)]
mod tests {
    use agent_client_protocol::v1::schema as acp;
    use serde_json::json;

    use super::*;

    #[test]
    fn the_sdk_type_and_the_fields_it_drops_are_both_read() {
        let params = json!({
            "protocolVersion": 1,
            "clientCapabilities": {"session": {"cursors": {}}},
        });
        assert!(WithParams::<acp::InitializeRequest>::matches_method(
            "initialize"
        ));
        let read = WithParams::<acp::InitializeRequest>::parse_message("initialize", &params)
            .expect("an initialize request");
        assert_eq!(
            read.params["clientCapabilities"]["session"]["cursors"],
            json!({})
        );
        let typed = serde_json::to_value(&read.request.client_capabilities).unwrap();
        assert!(
            typed["session"].get("cursors").is_none(),
            "the SDK drops it"
        );
        assert!(
            WithParams::<acp::InitializeRequest>::parse_message("session/new", &params).is_err()
        );
    }
}
