//! Control requests claude sends us (`can_use_tool`, an MCP server's `elicitation`, hooks,
//! anything else): each classified to get exactly one answer.

use serde_json::Value;

use crate::claude::sdk_mcp::McpMessage;
use crate::claude::wire::{
    CanUseTool, ElicitationAnswer, ElicitationAsk, InboundControlRequest, PermissionDecision,
};

/// What to do with one inbound control request.
pub(crate) enum ControlAction {
    /// A permission ask: decided in a task of its own, answered when the editor answers.
    AskPermission(Box<CanUseTool>),
    /// Answered at once with this success payload.
    Reply(Value),
    /// Answered at once with this error.
    Fail(String),
    /// A JSON-RPC message for one of the MCP servers we host for claude (`mcp_message`).
    Mcp(McpMessage),
    /// An MCP server asks the user (`elicitation`): answered when the user answers.
    Elicit(Box<ElicitationAsk>),
}

/// Takes the request by value: a permission ask carries the tool input whole (a 10 MiB Write).
pub(crate) fn classify(req: InboundControlRequest) -> ControlAction {
    let subtype = req.subtype().to_owned();
    if let Some(reason) = req.unreadable {
        tracing::info!(%subtype, %reason, "a control request of claude's cannot be read; refusing it");
        return match subtype.as_str() {
            // Fail closed, and the model learns why.
            "can_use_tool" => ControlAction::Reply(
                PermissionDecision::Deny {
                    message: format!(
                        "claude-acp could not read this permission request ({reason}); denied."
                    ),
                    interrupt: false,
                }
                .to_value(),
            ),
            _ => ControlAction::Fail(format!(
                "claude-acp could not read this control request ({reason})"
            )),
        };
    }
    match subtype.as_str() {
        "can_use_tool" => match serde_json::from_value::<CanUseTool>(req.request) {
            Ok(ask) => ControlAction::AskPermission(Box::new(ask)),
            // Unreadable ask: deny (fail closed) rather than error, so the model learns why.
            Err(e) => ControlAction::Reply(
                PermissionDecision::Deny {
                    message: format!(
                        "claude-acp could not read this permission request ({e}); denied."
                    ),
                    interrupt: false,
                }
                .to_value(),
            ),
        },
        "mcp_message" => match serde_json::from_value::<McpMessage>(req.request) {
            Ok(message) => ControlAction::Mcp(message),
            Err(e) => ControlAction::Fail(format!("unreadable mcp_message: {e}")),
        },
        "elicitation" => match serde_json::from_value::<ElicitationAsk>(req.request) {
            Ok(ask) => ControlAction::Elicit(Box::new(ask)),
            // Nothing to show the user: the server hears no.
            Err(_) => ControlAction::Reply(ElicitationAnswer::Decline.to_value()),
        },
        // Hooks are not registered by this adapter; if one fires anyway, let claude go on.
        "hook_callback" => ControlAction::Reply(Value::Object(serde_json::Map::new())),
        other => ControlAction::Fail(format!("Unsupported control request subtype: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn req(v: Value) -> InboundControlRequest {
        InboundControlRequest {
            request_id: "r".into(),
            request: v,
            unreadable: None,
        }
    }

    #[test]
    fn unknown_subtypes_get_an_error_naming_them() {
        let ControlAction::Fail(msg) = classify(req(json!({"subtype": "no_such"}))) else {
            panic!()
        };
        assert!(msg.contains("no_such"));
    }

    #[test]
    fn an_mcp_server_s_question_waits_for_the_user() {
        let ask = json!({"subtype": "elicitation", "mcp_server_name": "echo", "message": "Name?"});
        let ControlAction::Elicit(ask) = classify(req(ask)) else {
            panic!("not refused, as claude-acp once did")
        };
        assert_eq!(ask.mcp_server_name, "echo");
        assert_eq!(ask.message, "Name?");
    }

    #[test]
    fn an_unreadable_permission_ask_is_denied_with_a_reason() {
        let ControlAction::Reply(v) =
            classify(req(json!({"subtype": "can_use_tool", "input": {}})))
        else {
            panic!()
        };
        assert_eq!(v["behavior"], "deny");
        assert!(v["message"].as_str().unwrap().contains("could not read"));
    }
}
