//! `can_use_tool` -> the editor's `session/request_permission` -> claude's decision.
//!
//! Fails closed: whatever goes wrong on the way to or from the editor becomes a deny whose
//! message says why, so the model sees it and the turn goes on.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::claude::wire::{CanUseTool, PermissionDecision};
use crate::domain::{
    EditorClient, PermissionAsk, PermissionOption, PermissionOptionKind, PermissionOutcome,
    ToolCallUpdate,
};
use crate::translate;

pub const ALLOW_ONCE: &str = "allow_once";
pub const REJECT_ONCE: &str = "reject_once";

/// Asks the editor about one tool call and turns the answer into claude's decision.
pub async fn decide(
    editor: Arc<dyn EditorClient>,
    session_id: &str,
    cwd: &Path,
    req: CanUseTool,
) -> PermissionDecision {
    let call = translate::tool_call_for_permission(
        &req.tool_name,
        req.tool_use_id.as_deref(),
        &req.input,
        cwd,
    );
    let ask = PermissionAsk {
        session_id: session_id.to_owned(),
        tool_call: ToolCallUpdate {
            id: call.id.clone(),
            title: Some(call.title.clone()),
            kind: Some(call.kind),
            status: None,
            locations: Some(call.locations.clone()),
            content: Some(call.content.clone()),
            raw_input: Some(req.input.clone()),
            raw_output: None,
        },
        options: vec![
            PermissionOption {
                id: ALLOW_ONCE.into(),
                name: "Allow".into(),
                kind: PermissionOptionKind::AllowOnce,
            },
            PermissionOption {
                id: REJECT_ONCE.into(),
                name: "Reject".into(),
                kind: PermissionOptionKind::RejectOnce,
            },
        ],
    };
    match editor.request_permission(ask).await {
        Ok(PermissionOutcome::Selected { option_id }) if option_id == ALLOW_ONCE => {
            allow(req.input)
        }
        Ok(PermissionOutcome::Selected { option_id }) if option_id == REJECT_ONCE => {
            deny(format!("The user rejected this {} call.", req.tool_name))
        }
        Ok(PermissionOutcome::Selected { option_id }) => deny(format!(
            "Denied: the editor answered with an unknown option `{option_id}`."
        )),
        Ok(PermissionOutcome::Cancelled) => {
            deny("The user cancelled the permission request.".into())
        }
        Err(e) => deny(format!(
            "Denied because the permission request failed: {e}."
        )),
    }
}

fn allow(input: Value) -> PermissionDecision {
    PermissionDecision::Allow {
        updated_input: input,
        updated_permissions: vec![],
    }
}

fn deny(message: String) -> PermissionDecision {
    PermissionDecision::Deny {
        message,
        interrupt: false,
    }
}
