//! The shared shapes of a decision: what one answered ask does ([`Decision`]), what a decider
//! needs of the session ([`Asking`]), and the pieces every decider builds its ask and reply from
//! (the tool call shown, the input allowed, a deny).

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use super::rules::SessionRules;
use crate::claude::wire::{CanUseTool, DecisionClassification, PermissionDecision, ToolUseMeta};
use crate::domain::{
    EditorClient, EditorError, PermissionAsk, PermissionOption, PermissionOutcome, ToolCall,
    ToolCallUpdate,
};
use crate::translate;

/// What to do with one answered ask.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The `can_use_tool` answer for claude.
    pub reply: PermissionDecision,
    /// The permission mode claude is in once it has this answer (ExitPlanMode, "allow all edits"),
    /// so the editor's mode state follows.
    pub mode_change: Option<String>,
    /// Settings to send claude with `apply_flag_settings` *before* the reply: the session's deny
    /// rules, all of them (claude replaces the list rather than merging it). A deny reply cannot
    /// carry rules itself: the pinned claude drops `updatedPermissions` on a deny.
    pub flag_settings: Option<Value>,
    /// Who decided, for claude's record of the call: a person's answer, or a rule or mode with
    /// nobody asked (`None`: claude infers a person's answer).
    pub by: Option<DecisionClassification>,
}

impl Decision {
    /// A reply that changes nothing else.
    pub(super) fn plain(reply: PermissionDecision) -> Self {
        Self {
            reply,
            mode_change: None,
            flag_settings: None,
            by: None,
        }
    }

    /// A reply decided by a rule or the mode, nobody asked.
    pub(super) fn without_asking(reply: PermissionDecision) -> Self {
        Self::plain(reply).by(DecisionClassification::Config)
    }

    /// The decision, made by `by`.
    pub(super) fn by(self, by: DecisionClassification) -> Self {
        Self {
            by: Some(by),
            ..self
        }
    }
}

/// What every decider needs of the session to ask the editor about one call.
#[derive(Clone, Copy)]
pub(super) struct Asking<'a> {
    pub(super) editor: &'a dyn EditorClient,
    pub(super) session_id: &'a str,
    pub(super) cwd: &'a Path,
    pub(super) rules: &'a SessionRules,
}

impl Asking<'_> {
    /// Asks the editor; the answer, or why there is none.
    pub(super) async fn ask(
        &self,
        tool_call: ToolCallUpdate,
        options: Vec<PermissionOption>,
        reason: Option<String>,
    ) -> Result<PermissionOutcome, EditorError> {
        let ask = PermissionAsk {
            session_id: self.session_id.to_owned(),
            tool_call,
            options,
            reason,
        };
        self.editor.request_permission(ask).await
    }
}

/// The tool call the ask is about, with claude's input as its `rawInput`.
pub(super) fn tool_call(req: &CanUseTool, cwd: &Path) -> ToolCall {
    ToolCall {
        raw_input: Some(req.input.clone()),
        ..tool_call_without_input(req, cwd)
    }
}

/// The tool call the ask is about without its `rawInput`, titled with claude's display names for
/// MCP tools.
pub(super) fn tool_call_without_input(req: &CanUseTool, cwd: &Path) -> ToolCall {
    let id = req
        .tool_use_id
        .clone()
        .unwrap_or_else(|| format!("permission-{}", uuid::Uuid::new_v4()));
    let meta = req.tool_name.starts_with("mcp__").then(|| ToolUseMeta {
        id: id.clone(),
        display_name: req.display_name.clone(),
        server_display_name: req
            .mcp_server
            .as_ref()
            .and_then(|s| s.get("name"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        tool_name: None,
    });
    translate::tool_call_without_input(&req.tool_name, &id, &req.input, cwd, meta.as_ref())
}

pub(super) fn call_update(call: ToolCall) -> ToolCallUpdate {
    ToolCallUpdate {
        id: call.id,
        title: Some(call.title),
        kind: Some(call.kind),
        status: None,
        locations: Some(call.locations),
        content: Some(call.content),
        raw_input: call.raw_input.map(Arc::new),
        raw_output: None,
        raw_output_shown: None,
        elapsed_seconds: None,
        async_task_id: None,
    }
}

/// The input to run the tool with: claude's own (an edited input would come from the editor, but
/// ACP has no field for one). Never `null`: claude wants an object there.
pub(super) fn allowed_input(req: &CanUseTool) -> Value {
    if req.input.is_object() {
        req.input.clone()
    } else {
        Value::Object(serde_json::Map::new())
    }
}

/// [`allowed_input`], taken out of `req` rather than copied.
pub(super) fn take_allowed_input(req: &mut CanUseTool) -> Value {
    match std::mem::take(&mut req.input) {
        input @ Value::Object(_) => input,
        _ => Value::Object(serde_json::Map::new()),
    }
}

pub(super) fn deny(message: impl Into<String>) -> PermissionDecision {
    PermissionDecision::Deny {
        message: message.into(),
        interrupt: false,
    }
}
