//! Asks about the editor-served Read, Write and Edit (`mcp__acp__*`), which claude asks about as
//! MCP tools (always, whatever the mode): decided here as claude decides for its own tools, so
//! modes and "always" answers keep their meaning.
//!
//! - Read inside the workspace is allowed without asking (claude's own Read is not asked there).
//! - Write and Edit: `plan` denies, `acceptEdits` allows inside the workspace, otherwise the
//!   editor is asked with the call shown as claude's own tool, the diff taken against the
//!   editor's buffer, and claude's own "always" suggestion for an edit (accept edits for the
//!   session).
//! - "Always reject" puts a rule for the built-in (`Edit(//path)`) in force; claude does not
//!   apply it to an MCP tool, so it is applied here before any ask.

use super::decision::{Asking, Decision, allowed_input, call_update, deny, tool_call};
use super::{options, reply};
use crate::claude::wire::{CanUseTool, PermissionDecision, PermissionUpdate};
use crate::editor_tools::fs::EditorFiles;

/// Decides one call of `builtin` (Read, Write or Edit) served by the editor, in permission mode
/// `mode`, with the running claude's file tools (`files`).
pub async fn decide(
    asking: Asking<'_>,
    mode: &str,
    files: Option<EditorFiles>,
    builtin: &str,
    req: CanUseTool,
) -> Decision {
    let inside = files.as_ref().is_some_and(|files| {
        files
            .input_path(&req.input)
            .is_some_and(|path| files.in_workspace(&path))
    });
    let allow = || {
        Decision::plain(PermissionDecision::Allow {
            updated_input: allowed_input(&req),
            updated_permissions: Vec::new(),
        })
    };
    // The call as claude's own tool: its title, kind, options and rules.
    let mut shown = req.clone();
    shown.tool_name = builtin.to_owned();
    shown.display_name = None;
    shown.mcp_server = None;
    shown.permission_suggestions = Vec::new();
    let choices = options::build(&shown, asking.cwd);
    let ruled_out: Vec<String> = choices.deny_rules.iter().map(|r| r.setting()).collect();
    if asking.rules.denies_all(&ruled_out) {
        return Decision::plain(deny(format!(
            "The user rejected every {builtin} call like this one for the rest of the session ({}).",
            options::labels(&choices.deny_rules)
        )));
    }
    match builtin {
        "Read" if inside => return allow(),
        "Write" | "Edit" if mode == "plan" => {
            return Decision::plain(deny(format!(
                "{builtin} is not allowed in plan mode: present the plan with ExitPlanMode first."
            )));
        }
        "Write" | "Edit" if mode == "acceptEdits" && inside => return allow(),
        "Write" | "Edit" => {
            shown.permission_suggestions = vec![
                // claude's own suggestion for "always allow" of an edit (`b_write_allow`, seq 10).
                PermissionUpdate::set_mode_for_session("acceptEdits"),
            ]
        }
        _ => {}
    }
    let choices = options::build(&shown, asking.cwd);
    let mut call = call_update(tool_call(&shown, asking.cwd));
    if let Some(files) = &files
        && let Some(diff) = files.preview(builtin, &req.input).await
    {
        call.content = Some(vec![diff]);
    }
    let reason = shown.decision_reason.clone();
    let answer = asking.ask(call, choices.options.clone(), reason).await;
    reply::answer(&mut shown, &choices, answer, asking.rules)
}
