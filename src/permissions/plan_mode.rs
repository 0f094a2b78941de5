//! ExitPlanMode: the plan is shown in the tool call, and the user picks how work goes on.
//!
//! The pinned claude reads the plan from its plan file and puts it in the ask's `input.plan`; an
//! approval switches the mode with a `setMode` update in the reply, as claude's own UI does.

use std::path::Path;

use serde_json::Value;

use super::decision::{Decision, allowed_input, call_update, deny, tool_call};
use super::reply::failed;
use crate::claude::wire::{
    CanUseTool, DecisionClassification, PermissionDecision, PermissionUpdate,
};
use crate::domain::{
    EditorClient, PermissionAsk, PermissionOption, PermissionOptionKind, PermissionOutcome,
    ToolContent,
};

pub const ACCEPT_EDITS: &str = "plan_accept_edits";
pub const APPROVE_EACH_EDIT: &str = "plan_approve_each_edit";
pub const KEEP_PLANNING: &str = "plan_keep_planning";

pub async fn ask(
    editor: &dyn EditorClient,
    session_id: &str,
    cwd: &Path,
    req: &CanUseTool,
) -> Decision {
    let mut call = tool_call(req, cwd);
    if call.content.is_empty() {
        let text = match req.input.get("planFilePath").and_then(Value::as_str) {
            Some(path) => format!("claude sent no plan text; its plan file is {path}"),
            None => "claude sent no plan text.".to_owned(),
        };
        call.content.push(ToolContent::Text { text });
    }
    let option = |id: &str, name: &str, kind| PermissionOption {
        id: id.into(),
        name: name.into(),
        kind,
    };
    let ask = PermissionAsk {
        session_id: session_id.to_owned(),
        tool_call: call_update(call),
        options: vec![
            option(
                ACCEPT_EDITS,
                "Yes, and auto-accept edits",
                PermissionOptionKind::AllowAlways,
            ),
            option(
                APPROVE_EACH_EDIT,
                "Yes, and approve each edit",
                PermissionOptionKind::AllowOnce,
            ),
            option(
                KEEP_PLANNING,
                "No, keep planning",
                PermissionOptionKind::RejectOnce,
            ),
        ],
        reason: None,
    };
    match editor.request_permission(ask).await {
        Ok(PermissionOutcome::Selected { option_id }) => match option_id.as_str() {
            ACCEPT_EDITS => approve(req, "acceptEdits"),
            APPROVE_EACH_EDIT => approve(req, "default"),
            KEEP_PLANNING => Decision::plain(deny(
                "The user did not approve the plan and wants to keep planning. Stay in plan mode, \
                 ask what to change, and refine the plan.",
            )),
            other => Decision::plain(deny(format!(
                "Denied: the editor answered with an option this prompt did not offer (`{other}`); \
                 the plan was not approved. Stay in plan mode."
            ))),
        },
        Ok(PermissionOutcome::Cancelled) => Decision::plain(deny(
            "The user cancelled the plan approval; the plan was not approved. Stay in plan mode.",
        )),
        Err(e) => Decision::plain(deny(failed("the plan approval", &e))),
    }
}

fn approve(req: &CanUseTool, mode: &str) -> Decision {
    Decision {
        reply: PermissionDecision::Allow {
            updated_input: allowed_input(req),
            updated_permissions: vec![PermissionUpdate::set_mode_for_session(mode)],
        },
        mode_change: Some(mode.to_owned()),
        flag_settings: None,
        by: Some(DecisionClassification::UserTemporary),
    }
}
