//! Control requests claude sends us (`can_use_tool`, hooks, anything else): each classified to get exactly one answer.

use serde_json::{Value, json};

use crate::claude::wire::{CanUseTool, InboundControlRequest};

/// What to do with one inbound control request.
pub enum ControlAction {
    /// A permission ask: decided in a task of its own, answered when the editor answers.
    AskPermission(Box<CanUseTool>),
    /// Answered at once with this success payload.
    Reply(Value),
    /// Answered at once with this error.
    Fail(String),
}

/// Takes the request by value: a permission ask carries the tool input whole (a 10 MiB Write).
pub fn classify(req: InboundControlRequest) -> ControlAction {
    let subtype = req.subtype().to_owned();
    match subtype.as_str() {
        "can_use_tool" => match serde_json::from_value::<CanUseTool>(req.request) {
            Ok(ask) => ControlAction::AskPermission(Box::new(ask)),
            // Unreadable ask: deny (fail closed) rather than error, so the model learns why.
            Err(e) => ControlAction::Reply(json!({
                "behavior": "deny",
                "message": format!("claude-acp could not read this permission request ({e}); denied."),
            })),
        },
        // Hooks are not registered by this adapter; if one fires anyway, let claude go on.
        "hook_callback" => ControlAction::Reply(json!({})),
        other => ControlAction::Fail(format!("Unsupported control request subtype: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(v: Value) -> InboundControlRequest {
        InboundControlRequest {
            request_id: "r".into(),
            request: v,
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
