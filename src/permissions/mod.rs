//! Deciding one tool call, whatever way claude asks: `can_use_tool` on stdio or our MCP
//! permission tool ([`fallback`], [`PermissionTransport`]) -> the editor's
//! `session/request_permission` (or a form) -> claude's decision.
//!
//! Fails closed: whatever goes wrong on the way to or from the editor becomes a deny whose
//! message says why, so the model sees it and the turn goes on.
//!
//! Three asks get their own rendering: `AskUserQuestion` (a form, or one permission prompt per
//! question: [`ask_user`]), `ExitPlanMode` (the plan and three ways on: [`plan_mode`]), and every
//! other tool (allow / reject, once or always: [`options`] builds the choices, [`reply`] answers).

mod ask_user;
pub(crate) mod asker;
mod bash_rules;
mod editor_bash;
mod editor_tools;
pub mod fallback;
mod options;
mod plan_mode;
mod read_only;
mod reply;
#[cfg(test)]
mod tests;
mod transport;

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::claude::wire::{
    CanUseTool, PermissionDecision, PermissionSettings, PermissionUpdate, ToolUseMeta, UpdateKind,
};
use crate::domain::{EditorClient, ToolCall, ToolCallUpdate};
use crate::translate;

#[cfg(any(test, feature = "fuzzing"))]
pub(crate) use options::build as permission_choices;
pub use options::{ALLOW_ALWAYS, ALLOW_ONCE, REJECT_ALWAYS, REJECT_ONCE};
pub use plan_mode::{ACCEPT_EDITS, APPROVE_EACH_EDIT, KEEP_PLANNING};
pub use transport::PermissionTransport;

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
}

impl Decision {
    /// A reply that changes nothing else.
    fn plain(reply: PermissionDecision) -> Self {
        Self {
            reply,
            mode_change: None,
            flag_settings: None,
        }
    }
}

/// The "always" rules of one session: deny rules "Always reject" added (`Bash(rm -rf build)`,
/// `Edit(//abs/path)`), and the allow rules and directories of an "Always allow ... in this
/// session". claude keeps none of them past its process: they are re-sent to a restarted claude
/// (after a crash or an idle stop) by [`SessionRules::flag_settings`].
#[derive(Debug, Clone, Default)]
pub struct SessionRules {
    lists: Arc<Mutex<RuleLists>>,
}

#[derive(Debug, Default)]
struct RuleLists {
    deny: Vec<String>,
    allow: Vec<String>,
    directories: Vec<String>,
}

impl RuleLists {
    /// Every list that has entries: claude replaces a list it is sent, so each goes whole.
    fn settings(&self) -> Value {
        PermissionSettings {
            deny: self.deny.clone(),
            allow: self.allow.clone(),
            additional_directories: self.directories.clone(),
        }
        .to_flag_settings()
    }
}

fn add_once(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|have| have == item) {
        list.push(item.to_owned());
    }
}

impl SessionRules {
    pub fn new() -> Self {
        Self::default()
    }

    fn lists(&self) -> std::sync::MutexGuard<'_, RuleLists> {
        self.lists.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds deny rules (once each) and returns the settings that put every rule so far in force.
    fn add_deny(&self, rules: &[String]) -> Value {
        let mut lists = self.lists();
        for rule in rules {
            add_once(&mut lists.deny, rule);
        }
        lists.settings()
    }

    /// Remembers what an "always allow" answer gave claude for this session only (claude's
    /// `updatedPermissions` with destination `session`), to give it again to a restarted claude.
    /// Rules saved to settings files need nothing: claude reads them again.
    fn remember_allowed(&self, updates: &[PermissionUpdate]) {
        let mut lists = self.lists();
        for update in updates.iter().filter(|u| u.is_for_session()) {
            match update.kind() {
                Some(UpdateKind::AddRules {
                    rules, behavior, ..
                }) if behavior == "allow" => {
                    for rule in rules {
                        let rule = options::ToolRule {
                            tool: rule.tool_name.clone(),
                            content: rule.rule_content.clone(),
                        };
                        add_once(&mut lists.allow, &rule.setting());
                    }
                }
                Some(UpdateKind::AddDirectories { directories, .. }) => {
                    for dir in directories {
                        add_once(&mut lists.directories, dir);
                    }
                }
                // setMode: the session's mode, which a restarted claude is given anyway.
                _ => {}
            }
        }
    }

    /// Whether every one of these deny rules is in force (and there is at least one).
    fn denies_all(&self, rules: &[String]) -> bool {
        let lists = self.lists();
        !rules.is_empty() && rules.iter().all(|r| lists.deny.contains(r))
    }

    /// The settings to re-apply to a new claude process, if the session has any rule.
    pub fn flag_settings(&self) -> Option<Value> {
        let lists = self.lists();
        let empty = lists.deny.is_empty() && lists.allow.is_empty() && lists.directories.is_empty();
        (!empty).then(|| lists.settings())
    }
}

/// Asks the editor about one tool call and turns the answer into claude's decision.
pub async fn decide(
    editor: Arc<dyn EditorClient>,
    session_id: &str,
    cwd: &Path,
    req: CanUseTool,
    rules: &SessionRules,
) -> Decision {
    match req.tool_name.as_str() {
        "AskUserQuestion" => {
            Decision::plain(ask_user::ask(editor.as_ref(), session_id, &req).await)
        }
        "ExitPlanMode" => plan_mode::ask(editor.as_ref(), session_id, cwd, &req).await,
        _ => {
            let mut req = req;
            let choices = options::build(&req, cwd);
            let call = call_update(tool_call_without_input(&req, cwd));
            ask_and_reply(editor.as_ref(), session_id, call, &mut req, &choices, rules).await
        }
    }
}

/// Asks the editor about `call`, whose `rawInput` is `req`'s input shared rather than copied (a
/// Write's input holds the whole file), and turns the answer into claude's reply, which gets the
/// input back.
async fn ask_and_reply(
    editor: &dyn EditorClient,
    session_id: &str,
    mut call: ToolCallUpdate,
    req: &mut CanUseTool,
    choices: &options::Choices,
    rules: &SessionRules,
) -> Decision {
    let input = Arc::new(std::mem::take(&mut req.input));
    call.raw_input = Some(input.clone());
    let ask = crate::domain::PermissionAsk {
        session_id: session_id.to_owned(),
        tool_call: call,
        options: choices.options.clone(),
    };
    let answer = editor.request_permission(ask).await;
    // The ask has been sent and answered, so the input is ours alone again: no copy.
    req.input = Arc::unwrap_or_clone(input);
    reply::answer(req, choices, answer, rules)
}

/// The tool call the ask is about, with claude's input as its `rawInput`.
fn tool_call(req: &CanUseTool, cwd: &Path) -> ToolCall {
    ToolCall {
        raw_input: Some(req.input.clone()),
        ..tool_call_without_input(req, cwd)
    }
}

/// The tool call the ask is about without its `rawInput`, titled with claude's display names for
/// MCP tools.
fn tool_call_without_input(req: &CanUseTool, cwd: &Path) -> ToolCall {
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

fn call_update(call: ToolCall) -> ToolCallUpdate {
    ToolCallUpdate {
        id: call.id,
        title: Some(call.title),
        kind: Some(call.kind),
        status: None,
        locations: Some(call.locations),
        content: Some(call.content),
        raw_input: call.raw_input.map(Arc::new),
        raw_output: None,
        elapsed_seconds: None,
    }
}

/// The input to run the tool with: claude's own (an edited input would come from the editor, but
/// ACP has no field for one). Never `null`: claude wants an object there.
fn allowed_input(req: &CanUseTool) -> Value {
    if req.input.is_object() {
        req.input.clone()
    } else {
        Value::Object(serde_json::Map::new())
    }
}

/// [`allowed_input`], taken out of `req` rather than copied.
fn take_allowed_input(req: &mut CanUseTool) -> Value {
    match std::mem::take(&mut req.input) {
        input @ Value::Object(_) => input,
        _ => Value::Object(serde_json::Map::new()),
    }
}

fn deny(message: impl Into<String>) -> PermissionDecision {
    PermissionDecision::Deny {
        message: message.into(),
        interrupt: false,
    }
}
