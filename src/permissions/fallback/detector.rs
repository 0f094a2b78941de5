//! Notices, from what claude prints, that its undocumented stdio permission channel
//! (`--permission-prompt-tool stdio` + `can_use_tool`) has stopped working, so the session can switch
//! to the MCP permission tool. Pure: feed it every message of the session's claude.
//!
//! The symptoms (shapes observed with the pinned claude, transcripts j, j2 and o):
//! - a tool denied without a `can_use_tool` having reached us: `system/permission_denied`, an error
//!   tool_result "...but you haven't granted it yet.", or an entry of the result's
//!   `permission_denials`;
//! - claude rejecting our answer: an error tool_result "...returned an invalid permission result..."
//!   or a `ZodError` for a tool we answered, or an error `control_response` to our answer;
//! - claude not knowing `stdio` as a permission prompt tool: given a name it does not know, the
//!   pinned claude starts normally, then fails each ask with the error tool_result "Error: MCP tool stdio2
//!   (passed via --permission-prompt-tool) not found..." and exits 1 (stderr says the same); a
//!   claude that drops the flag would refuse it at spawn ("unknown option '--permission-prompt-tool'").
//!
//! Denials that claude decides by policy (a settings rule, the permission mode, a hook) are the
//! user's configuration, not a break: `permission_denied` says so in `decision_reason_type`.

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde_json::Value;

use crate::claude::wire::{ClaudeMessage, ContentBlock, ControlResponse, UserContent, UserEcho};

/// `decision_reason_type`s of denials that follow the user's own configuration (a deny rule gives
/// `subcommandResults` for Bash, `dontAsk` mode gives `mode`). The break gives none (no
/// `--permission-prompt-tool`) or `asyncAgent` (no approval surface); so do reasons unknown here.
const POLICY_REASONS: &[&str] = &[
    "rule",
    "mode",
    "subcommandResults",
    "hook",
    "classifier",
    "sandboxOverride",
    "workingDir",
    "safetyCheck",
];

/// The tool_result claude writes when it auto-denies an ask nobody answered.
const NOT_GRANTED: &str = "haven't granted it yet";

/// What claude says when it cannot use the permission prompt tool it was given.
const FLAG_MENTION: &str = "permission-prompt-tool";

/// Tool_result texts of claude refusing our `can_use_tool` answer.
const ANSWER_REJECTED: &[&str] = &["invalid permission result", "ZodError"];

/// The longest tool input (as JSON) kept to name the call again after a switch: a Write's input
/// holds the whole file, which would otherwise stay in memory for the turn and be pasted into
/// the retry prompt. Longer inputs are named by tool alone.
const KEPT_INPUT_BYTES: usize = 16 * 1024;

/// What kind of break was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BreakKind {
    /// claude denied a tool that needed permission without sending us `can_use_tool`.
    DeniedWithoutAsking,
    /// claude refused our answer to its `can_use_tool` (`detail` is claude's words).
    AnswerRejected { detail: String },
    /// claude cannot use `--permission-prompt-tool stdio` (`detail`: its words, from a tool_result
    /// or stderr).
    FlagRefused { detail: String },
}

/// One sign that the stdio permission channel broke.
#[derive(Debug, Clone, PartialEq)]
pub struct BreakSymptom {
    pub kind: BreakKind,
    /// The tool claude wanted to run, when the symptom is about one tool use.
    pub tool_name: Option<String>,
    pub tool_use_id: Option<String>,
    /// The input of that tool use, when claude printed it and it is at most
    /// [`KEPT_INPUT_BYTES`] long (to ask again after the switch).
    pub tool_input: Option<Value>,
}

impl BreakSymptom {
    /// One line for the user, e.g. "claude denied Write without asking: the stdio permission
    /// channel is not working; switching to the MCP permission tool".
    pub fn description(&self) -> String {
        let tool = self.tool_name.as_deref().unwrap_or("a tool");
        let what = match &self.kind {
            BreakKind::DeniedWithoutAsking => format!("claude denied {tool} without asking"),
            BreakKind::AnswerRejected { detail } => format!(
                "claude rejected the permission answer for {tool} (\"{}\")",
                shorten(detail)
            ),
            BreakKind::FlagRefused { detail } => format!(
                "claude cannot use --permission-prompt-tool stdio (\"{}\")",
                shorten(detail)
            ),
        };
        format!(
            "{what}: the stdio permission channel is not working; switching to the MCP permission tool"
        )
    }
}

impl fmt::Display for BreakSymptom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.description())
    }
}

fn shorten(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    match line.char_indices().nth(160) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line.to_owned(),
    }
}

/// Watches one claude process's messages for the symptoms above. Each tool use is reported once.
#[derive(Debug, Default)]
pub struct BreakDetector {
    /// tool_use_ids claude asked us about.
    asked: HashSet<String>,
    /// `can_use_tool` request_id -> tool_use_id, to tie claude's replies to our answers.
    asks_by_request: HashMap<String, Option<String>>,
    /// tool_use_id -> (name, input if short), from the assistant's tool_use blocks.
    tool_uses: HashMap<String, (String, Option<Value>)>,
    /// Denied by the user's own policy (rules, mode, hooks): not a break.
    denied_by_policy: HashSet<String>,
    reported: HashSet<String>,
}

impl BreakDetector {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that a permission ask for this tool use reached us. `on_message` does this itself
    /// for `can_use_tool`; call it for asks that come another way (the MCP permission tool).
    pub fn saw_can_use_tool(&mut self, tool_use_id: &str) {
        self.asked.insert(tool_use_id.to_owned());
    }

    /// Looks at one message of claude's; returns a symptom the first time one shows.
    pub fn on_message(&mut self, message: &ClaudeMessage) -> Option<BreakSymptom> {
        match message {
            ClaudeMessage::ControlRequest(request) if request.subtype() == "can_use_tool" => {
                let tool_use_id = request
                    .request
                    .get("tool_use_id")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                if let Some(id) = &tool_use_id {
                    self.saw_can_use_tool(id);
                }
                self.asks_by_request
                    .insert(request.request_id.clone(), tool_use_id);
                None
            }
            ClaudeMessage::Assistant(assistant) => {
                for block in &assistant.message.content {
                    if let ContentBlock::ToolUse { id, name, input } = block {
                        self.tool_uses
                            .insert(id.clone(), (name.clone(), short_copy(input)));
                    }
                }
                None
            }
            ClaudeMessage::System(system) if system.subtype == "permission_denied" => {
                let id = system.str_field("tool_use_id")?.to_owned();
                let reason = system.str_field("decision_reason_type");
                if reason.is_some_and(|r| POLICY_REASONS.contains(&r)) {
                    self.denied_by_policy.insert(id);
                    return None;
                }
                let name = system.str_field("tool_name").map(str::to_owned);
                self.denied_without_asking(&id, name, None)
            }
            ClaudeMessage::User(echo) => self.on_tool_results(echo),
            ClaudeMessage::ControlResponse(envelope) => match &envelope.response {
                ControlResponse::Error { request_id, error } => {
                    let tool_use_id = self.asks_by_request.get(request_id)?.clone();
                    self.symptom(
                        BreakKind::AnswerRejected {
                            detail: error.clone(),
                        },
                        tool_use_id,
                        None,
                        None,
                    )
                }
                ControlResponse::Success { .. } => None,
            },
            ClaudeMessage::Result(result) => {
                let mut first = None;
                for denial in &result.permission_denials {
                    let Some(id) = denial.get("tool_use_id").and_then(Value::as_str) else {
                        continue;
                    };
                    let name = denial
                        .get("tool_name")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    let input = denial.get("tool_input").cloned();
                    let symptom = self.denied_without_asking(id, name, input);
                    first = first.or(symptom);
                }
                // The turn is over: its tool uses will not be mentioned again.
                self.asks_by_request.clear();
                self.tool_uses.clear();
                self.asked.clear();
                self.denied_by_policy.clear();
                first
            }
            _ => None,
        }
    }

    /// Looks at what claude printed on stderr when it exited (before or after `system/init`:
    /// The pinned claude starts normally and exits 1 at the first ask when it does not know the tool).
    pub fn on_exit(stderr_tail: &str) -> Option<BreakSymptom> {
        let line = stderr_tail.lines().find(|line| {
            let line = line.to_ascii_lowercase();
            line.contains(FLAG_MENTION) || line.contains("permission prompt tool")
        })?;
        Some(BreakSymptom {
            kind: BreakKind::FlagRefused {
                detail: line.trim().to_owned(),
            },
            tool_name: None,
            tool_use_id: None,
            tool_input: None,
        })
    }

    fn on_tool_results(&mut self, echo: &UserEcho) -> Option<BreakSymptom> {
        let UserContent::Blocks(blocks) = &echo.message.content else {
            return None;
        };
        let mut first = None;
        for block in blocks {
            let ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error: Some(true),
            } = block
            else {
                continue;
            };
            let text = content.text();
            let symptom = if text.contains(FLAG_MENTION) {
                let detail = text
                    .trim_start_matches("<tool_use_error>")
                    .trim_end_matches("</tool_use_error>")
                    .to_owned();
                self.symptom(
                    BreakKind::FlagRefused { detail },
                    Some(tool_use_id.clone()),
                    None,
                    None,
                )
            } else if text.contains(NOT_GRANTED) {
                self.denied_without_asking(tool_use_id, None, None)
            } else if self.asked.contains(tool_use_id)
                && ANSWER_REJECTED.iter().any(|needle| text.contains(needle))
                && !ran_anyway(echo, tool_use_id)
            {
                self.symptom(
                    BreakKind::AnswerRejected { detail: text },
                    Some(tool_use_id.clone()),
                    None,
                    None,
                )
            } else {
                None
            };
            first = first.or(symptom);
        }
        first
    }

    fn denied_without_asking(
        &mut self,
        tool_use_id: &str,
        tool_name: Option<String>,
        tool_input: Option<Value>,
    ) -> Option<BreakSymptom> {
        if self.asked.contains(tool_use_id) || self.denied_by_policy.contains(tool_use_id) {
            return None;
        }
        self.symptom(
            BreakKind::DeniedWithoutAsking,
            Some(tool_use_id.to_owned()),
            tool_name,
            tool_input,
        )
    }

    /// Builds the symptom once per tool use, filling name and input from the tool_use block.
    fn symptom(
        &mut self,
        kind: BreakKind,
        tool_use_id: Option<String>,
        tool_name: Option<String>,
        tool_input: Option<Value>,
    ) -> Option<BreakSymptom> {
        if let Some(id) = &tool_use_id
            && !self.reported.insert(id.clone())
        {
            return None;
        }
        let seen = tool_use_id.as_ref().and_then(|id| self.tool_uses.get(id));
        let tool_name = tool_name.or_else(|| seen.map(|(name, _)| name.clone()));
        let tool_input = tool_input.or_else(|| seen.and_then(|(_, input)| input.clone()));
        Some(BreakSymptom {
            kind,
            tool_name,
            tool_use_id,
            tool_input,
        })
    }
}

/// A copy of `input` if its JSON is at most [`KEPT_INPUT_BYTES`] long (measured without
/// allocating, stopping at the limit).
fn short_copy(input: &Value) -> Option<Value> {
    struct Limit(usize);
    impl std::io::Write for Limit {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            if self.0 > KEPT_INPUT_BYTES {
                return Err(std::io::Error::other("longer than kept"));
            }
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    serde_json::to_writer(Limit(0), input)
        .ok()
        .map(|()| input.clone())
}

/// Whether claude's `tool_result_meta` says the tool did run (so an error text is the tool's own
/// output, not a refusal). Without the meta, assume it did not run.
fn ran_anyway(echo: &UserEcho, tool_use_id: &str) -> bool {
    let Some(Value::Array(entries)) = &echo.tool_result_meta else {
        return false;
    };
    entries
        .iter()
        .find(|entry| entry.get("id").and_then(Value::as_str) == Some(tool_use_id))
        .is_some_and(|entry| entry.get("non_execution_kind").is_none())
}

#[cfg(test)]
mod tests;
