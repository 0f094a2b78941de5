//! What the adapter tells the editor about a session while it runs (`session/update` payloads).

use std::sync::Arc;

use serde_json::Value;

/// One `session/update` notification's payload. Tagged `session_update` (ACP's `sessionUpdate`):
/// a `kind` tag would clash with `ToolCall::kind`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "session_update", rename_all = "snake_case")]
pub enum SessionUpdate {
    /// `message_id`, where known, names the message the chunk is part of, the same live and
    /// replayed (ACP v2 addresses messages by id): a prompt's is the `uuid` it was written to
    /// claude with, which claude's transcript keeps; claude's text and thinking are named by
    /// the API message and the block they are ([`message_id`]).
    UserMessageChunk {
        content: ContentChunk,
        #[serde(skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
    },
    AgentMessageChunk {
        content: ContentChunk,
        #[serde(skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
    },
    AgentThoughtChunk {
        content: ContentChunk,
        #[serde(skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
    },
    /// A subagent's (Task's) text, for a client that asked for it: agent text tagged with the
    /// Task call it belongs to (`_meta.claudeCode.parentToolUseId`).
    SubagentMessageChunk {
        text: String,
        parent_tool_use_id: String,
    },
    ToolCall(ToolCall),
    ToolCallUpdate(ToolCallUpdate),
    Plan {
        entries: Vec<PlanEntry>,
    },
    Usage(Usage),
    CurrentMode {
        mode_id: String,
    },
    AvailableCommands {
        commands: Vec<SlashCommand>,
    },
    ConfigOptions {
        options: Vec<ConfigOption>,
    },
    /// The session's title and last activity (RFC 3339).
    SessionInfo {
        title: Option<String>,
        updated_at: Option<String>,
    },
    /// claude compacting the conversation (only to editors that declared `session.compaction`).
    Compaction {
        id: String,
        status: CompactionStatus,
    },
    /// Something claude reports that the user should know and that is not a message (an MCP
    /// server that failed, a model fallback, a rate-limit warning...): ACP's `notice` where the
    /// editor declared `session.notices`, else a short agent line.
    Notice(Notice),
    /// A subagent claude runs (a Task/Agent call), as a child session of this one: only to
    /// editors that declared ACP's `subagents` (dropped for the others).
    Subagent(SubagentUpdate),
    /// Plan mode's plan, as claude read it from its plan file (`path`) when the user was asked
    /// to leave plan mode: only to editors that declared `plan` (a `plan_update` of Markdown).
    MarkdownPlan {
        content: String,
        path: Option<String>,
    },
    /// An update of a subagent's own, told on its child session (`session_id`) instead of this
    /// one: its text, thinking and tool calls (only to editors that declared `subagents`).
    InSubagent {
        session_id: String,
        update: Box<SessionUpdate>,
    },
    /// The prompts claude predicts the user sends next (to editors that take them; schema 1.20).
    PromptSuggestions(Vec<String>),
    /// A message another session sent to this one (a subagent's instructions from its parent),
    /// as ACP's `session_message`: only to editors that declared `subagents`.
    MessageFrom {
        message_id: String,
        sender: String,
        recipient: String,
        text: String,
    },
    /// A point a fork can start from (ACP 1.20's `cursor_update`), to editors that take cursors.
    Cursor(super::Cursor),
}

/// The id of block `index` of claude's API message `api_message` as a message of its own (a
/// text or a thinking block; claude streams and stores each block apart).
pub fn message_id(api_message: &str, index: u64) -> String {
    // Built by hand, not with `format!`: every streamed delta names its message, and the
    // formatting machinery was a twentieth of a delta's relay.
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = index;
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let digits = std::str::from_utf8(&digits[start..]).unwrap_or("0");
    let mut id = String::with_capacity(api_message.len() + 1 + digits.len());
    id.push_str(api_message);
    id.push(':');
    id.push_str(digits);
    id
}

impl SessionUpdate {
    /// A line of claude-acp's own in the agent's voice (a command's answer, a notice where the
    /// editor has none), part of no message of claude's.
    pub fn agent_text(text: impl Into<String>) -> Self {
        SessionUpdate::AgentMessageChunk {
            content: ContentChunk::text(text),
            message_id: None,
        }
    }
}

/// One subagent's state, announced on its parent session.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SubagentUpdate {
    /// The child session's id ([`subagent_session_id`]).
    pub session_id: String,
    /// What claude was asked to have it do (the call's `description`).
    pub title: Option<String>,
    /// Its kind of agent (`subagent_type`: `general-purpose`, `Explore`, a custom agent's name).
    pub description: Option<String>,
    pub state: SubagentState,
}

/// Whether a subagent works, and how its work ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum SubagentState {
    Running,
    Completed,
    /// Stopped (on the editor's cancel, the turn's interrupt, TaskStop).
    Cancelled,
    Failed,
    /// It can no longer be followed (its claude ended): ended, for a reason nobody reported.
    Gone,
}

/// The id of the child session that stands for claude's task `task_id` of session `parent`:
/// the editor names it in `session/cancel` to stop that subagent only.
pub fn subagent_session_id(parent: &str, task_id: &str) -> String {
    format!("{parent}{SUBAGENT_MARK}{task_id}")
}

/// The parent session and claude's task id of a [`subagent_session_id`].
pub fn parse_subagent_session_id(id: &str) -> Option<(&str, &str)> {
    id.rsplit_once(SUBAGENT_MARK)
        .filter(|(parent, task)| !parent.is_empty() && !task.is_empty())
}

const SUBAGENT_MARK: &str = "/subagent/";

/// How much a notice matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeSeverity {
    Info,
    Warning,
    Error,
}

/// One notice: a title that stands alone, an optional detail, and what it is about (`kind`,
/// sent as `_meta.claudeCode.kind` so a client can tell them apart without reading the text).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Notice {
    pub severity: NoticeSeverity,
    /// e.g. `mcp_server_failed`, `model_fallback`, `rate_limit`: see `translate::notices`.
    pub kind: &'static str,
    pub title: String,
    pub description: Option<String>,
}

impl Notice {
    /// The agent line that stands for the notice where the editor cannot show notices.
    pub fn as_text(&self) -> String {
        let mark = match self.severity {
            NoticeSeverity::Info => "ℹ",
            NoticeSeverity::Warning => "⚠",
            NoticeSeverity::Error => "✖",
        };
        match &self.description {
            Some(d) => format!("{mark} {}: {d}\n\n", self.title),
            None => format!("{mark} {}\n\n", self.title),
        }
    }
}

/// Where a compaction of the conversation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionStatus {
    InProgress,
    Completed,
    Failed,
}

/// A piece of a message: text, or an image the transcript holds.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentChunk {
    Text { text: String },
    Image { data: String, mime_type: String },
}

impl ContentChunk {
    pub fn text(text: impl Into<String>) -> Self {
        ContentChunk::Text { text: text.into() }
    }
}

/// ACP tool kinds, chosen per claude tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    Read,
    Edit,
    Delete,
    Move,
    Search,
    Execute,
    Think,
    Fetch,
    SwitchMode,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    Pending,
    InProgress,
    Completed,
    Failed,
    /// Stopped on request before it ended (a background job): v2 says `cancelled`, v1, which has
    /// no such status, `failed`.
    Cancelled,
}

/// A file place a tool touches, so the editor can follow along.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ToolLocation {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// What a tool call shows in its body.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolContent {
    Text {
        text: String,
    },
    Diff {
        path: String,
        old_text: Option<String>,
        new_text: String,
    },
    Terminal {
        terminal_id: String,
    },
    /// A Write's diff (no old text) whose new text is the call's `raw_input["content"]`: the
    /// whole file, so it is not copied out of the input but written from it wherever the call is
    /// written. Used for files of [`INPUT_TEXT_SHARED_BYTES`] or more; smaller ones are a `Diff`.
    DiffOfInput {
        path: String,
    },
}

/// A Write's text at least this long is shown as [`ToolContent::DiffOfInput`] rather than copied;
/// a command's output this long is held once ([`ToolCallUpdate::raw_output_shown`]).
pub const INPUT_TEXT_SHARED_BYTES: usize = 64 * 1024;

/// A new tool call (`tool_call`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ToolCall {
    pub id: String,
    pub title: String,
    pub kind: ToolKind,
    pub status: ToolStatus,
    pub locations: Vec<ToolLocation>,
    pub content: Vec<ToolContent>,
    pub raw_input: Option<Value>,
    /// The tool call (a Task) whose subagent makes this one; `None` for the main agent's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_tool_call: Option<String>,
}

/// A change to a tool call (`tool_call_update`); `None` fields are unchanged.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ToolCallUpdate {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<ToolStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locations: Option<Vec<ToolLocation>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<ToolContent>>,
    /// Shared: a permission ask sends it while its `can_use_tool` keeps it for the answer (a
    /// Write's input holds the whole file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_input: Option<Arc<Value>>,
    /// Always a JSON object when set: some editors reject anything else and leave the tool spinning.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<serde_json::Map<String, Value>>,
    /// A key of `raw_output` whose value is the output `content` shows: a command's output,
    /// which claude gives twice and which can be MiBs, is held once, in the shown text, and
    /// `raw_output`'s value (`null` in the map, which keeps the key's place) is written from there
    /// wherever the update is written. Used for outputs of [`INPUT_TEXT_SHARED_BYTES`] or more;
    /// smaller ones are copied. (Boxed: every tool call update carries the field.)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_output_shown: Option<Box<ShownOutput>>,
    /// How long the tool has been running, from claude's progress heartbeats.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elapsed_seconds: Option<f64>,
    /// claude's id of the background job the call started (`_session/async_task/stop` takes it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub async_task_id: Option<String>,
}

/// Where [`ToolCallUpdate::raw_output_shown`]'s value is: `raw_output[key]` is the text of the
/// update's first content item (a [`ToolContent::Text`]) at `range`, inside its code fence.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ShownOutput {
    pub key: String,
    pub range: std::ops::Range<usize>,
}

impl ToolCallUpdate {
    /// The value held out of `raw_output`, as its key and its text.
    pub fn shown_output(&self) -> Option<(&str, &str)> {
        let shown = self.raw_output_shown.as_ref()?;
        let Some([ToolContent::Text { text }, ..]) = self.content.as_deref() else {
            return None;
        };
        Some((shown.key.as_str(), text.get(shown.range.clone())?))
    }

    /// Takes the content away; a value of `raw_output` held in it moves back (its text is cut out
    /// of the shown one, not copied).
    pub fn remove_content(&mut self) {
        let shown = self.raw_output_shown.take();
        let content = self.content.take();
        if let (Some(shown), Some(mut content)) = (shown, content)
            && let Some(ToolContent::Text { mut text }) = content.drain(..).next()
            && text.is_char_boundary(shown.range.start)
            && text.is_char_boundary(shown.range.end)
        {
            text.truncate(shown.range.end);
            text.drain(..shown.range.start);
            self.raw_output
                .get_or_insert_default()
                .insert(shown.key, Value::String(text));
        }
    }

    /// `raw_output` whole again, the value held out of it copied back in: for a path that
    /// holds the update as generic JSON rather than writing it as it goes.
    pub fn copy_shown_output(&mut self) {
        let copy = self
            .shown_output()
            .map(|(key, text)| (key.to_owned(), Value::String(text.to_owned())));
        self.raw_output_shown = None;
        if let Some((key, text)) = copy {
            self.raw_output.get_or_insert_default().insert(key, text);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanPriority {
    High,
    Medium,
    Low,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PlanEntry {
    pub content: String,
    pub priority: PlanPriority,
    pub status: PlanStatus,
}

/// Context use after a turn (`usage_update`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Usage {
    /// Tokens in the context window now.
    pub used: u64,
    /// The context window's size.
    pub size: u64,
    /// Cost of the session so far, in US dollars.
    pub cost_usd: Option<f64>,
    /// A Claude subscription's usage windows, where claude reported them.
    #[serde(skip_serializing_if = "RateLimits::is_empty")]
    pub rate_limits: RateLimits,
}

/// Where a subscription's usage windows stand (claude's `rate_limit_event`s; none for an API key,
/// Bedrock or Vertex).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct RateLimits {
    pub five_hour: Option<RateLimitWindow>,
    pub weekly: Option<RateLimitWindow>,
}

impl RateLimits {
    pub fn is_empty(&self) -> bool {
        self.five_hour.is_none() && self.weekly.is_none()
    }
}

/// One window: how much is used, when it resets, and whether requests still go through.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct RateLimitWindow {
    pub status: RateLimitStatus,
    /// The share used, 0 to 1.
    pub used_share: Option<f64>,
    /// When the window resets, in seconds since the epoch.
    pub resets_at: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RateLimitStatus {
    Allowed,
    AllowedWarning,
    Rejected,
}

impl RateLimitStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RateLimitStatus::Allowed => "allowed",
            RateLimitStatus::AllowedWarning => "allowed_warning",
            RateLimitStatus::Rejected => "rejected",
        }
    }
}

/// A slash command the prompt box can offer.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SlashCommand {
    pub name: String,
    pub description: String,
    pub input_hint: Option<String>,
    /// One of claude's skills, told as such to an editor that lists skills apart (schema 1.20).
    pub skill: bool,
}

/// A session mode (claude's permission mode).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SessionMode {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
}

/// The modes a session offers and the one in force.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ModeState {
    pub current: String,
    pub available: Vec<SessionMode>,
}

/// A select-type session configuration option (mode, model).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ConfigOption {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    /// ACP's semantic category: "mode", "model", or another.
    pub category: Option<String>,
    pub current: String,
    pub values: Vec<ConfigValue>,
    /// An on/off toggle sent as ACP's boolean option (only to editors that declared them):
    /// `current` is `on` or `off`, and `values` is empty.
    pub boolean: bool,
}

impl ConfigOption {
    /// The value ids of a toggle, where it is a select (and of a boolean sent as text).
    pub const ON: &'static str = "on";
    pub const OFF: &'static str = "off";

    /// An on/off option: a boolean where the editor takes them, else a select of On and Off.
    pub fn toggle(
        id: &str,
        name: &str,
        description: String,
        on: bool,
        as_boolean: bool,
    ) -> ConfigOption {
        let values = if as_boolean {
            Vec::new()
        } else {
            [(Self::ON, "On"), (Self::OFF, "Off")]
                .into_iter()
                .map(|(id, name)| ConfigValue {
                    id: id.into(),
                    name: name.into(),
                    description: None,
                })
                .collect()
        };
        ConfigOption {
            id: id.into(),
            name: name.into(),
            description: Some(description),
            category: Some("model_config".into()),
            current: if on { Self::ON } else { Self::OFF }.into(),
            values,
            boolean: as_boolean,
        }
    }

    /// A toggle's value from `set_config_option` (`on`/`off`); `None` for anything else.
    pub fn toggle_value(value: &str) -> Option<bool> {
        match value {
            Self::ON => Some(true),
            Self::OFF => Some(false),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ConfigValue {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
}

/// Where the session's foreground work stands, for editors that follow it as it goes (ACP v2's
/// `user_message` and `state_update`s); the others learn the same from the prompt's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnState {
    /// A prompt became the session's turn, as the user message `message_id` (the id claude
    /// knows it by); the work is running.
    Started {
        message_id: String,
        prompt: Vec<super::PromptBlock>,
    },
    /// A prompt written to claude that claude ran within another prompt's turn: its message is
    /// in the conversation, and that turn's end is its end.
    Joined {
        message_id: String,
        prompt: Vec<super::PromptBlock>,
    },
    /// The turn waits on the user (a permission ask or a question is open).
    RequiresAction,
    /// The turn runs again: nothing waits on the user any more.
    Running,
    /// The turn is over: how it ended (its stop reason and tokens), or how it failed.
    Ended {
        outcome: Result<super::TurnOutcome, super::AgentError>,
    },
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_blocks_message_id_is_its_api_message_and_index() {
        for index in [0, 7, 10, 99, 123, 1_000_000, u64::MAX] {
            assert_eq!(
                super::message_id("msg_01Xy", index),
                format!("msg_01Xy:{index}")
            );
        }
        assert_eq!(super::message_id("", 3), ":3");
    }
}
