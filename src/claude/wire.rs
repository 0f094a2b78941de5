//! The stream-json wire shapes claude speaks on its stdin and stdout (as of the pinned CLI).
//!
//! Inbound lines are parsed leniently: unknown `type`s and fields are kept as raw JSON rather than
//! rejected, because claude adds fields in every release. Outbound lines are built only from the
//! typed shapes here, so nothing half-formed can ever reach claude (a bad line kills the CLI).
//! Beside the lines: permission updates, prompt content, the `--mcp-config` file and the
//! permission-prompt tool's arguments, in `wire/`. Nothing outside `src/claude/` builds claude's
//! JSON by hand (`tests/it/tidy.rs`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::lenient;

mod input;
mod mcp;
mod mcp_config;
mod outbound;
mod permission_prompt;
mod permission_update;
mod prompt;
mod rate_limit;
mod read;
mod rewind;
mod stream_event;
mod tool_result;

pub use super::replies::{AgentInfo, ContextCategory, ContextUsage, ModelInfo};
pub use input::ClaudeInput;
pub(crate) use input::InputLine;
pub use mcp::{ElicitationAnswer, ElicitationAsk, McpServerStatus};
pub(crate) use mcp_config::remove_stale_config_files;
pub use mcp_config::{
    ConfigFileError, McpConfig, McpConfigFile, McpServerConfig, PERMISSION_SERVER_NAME,
    build_mcp_config,
};
pub use outbound::OutboundControl;
pub use permission_prompt::{PermissionPromptArgs, permission_prompt_schema};
pub use permission_update::{
    DecisionClassification, PermissionDecision, PermissionRule, PermissionSettings,
    PermissionUpdate, UpdateKind,
};
pub use prompt::{ImageSource, InputBlock, Priority, UserInputMessage};
pub use rate_limit::{PromptSuggestion, RateLimitEvent, RateLimitInfo, RateLimitWindowInfo};
pub use rewind::{FILE_CHECKPOINTING_ENV, RewindFilesRequest, RewindFilesResult};
pub use stream_event::{Event, EventDelta, StreamEvent};
pub use tool_result::ToolResultContent;

/// One line claude printed on stdout.
#[derive(Debug, Clone, PartialEq)]
pub enum ClaudeMessage {
    System(SystemMessage),
    // The big variants are boxed: a message is moved a score of times between claude's stdout
    // and the session (channels, futures), and at their size (up to 432 bytes) copying them was
    // a tenth of a streamed delta's relay.
    Assistant(Box<AssistantMessage>),
    User(Box<UserEcho>),
    Result(Box<ResultMessage>),
    StreamEvent(Box<StreamEvent>),
    ControlRequest(InboundControlRequest),
    ControlResponse(ControlResponseEnvelope),
    ControlCancelRequest {
        request_id: String,
    },
    /// A heartbeat of a tool that is still running.
    ToolProgress(ToolProgress),
    /// A subscription's usage limits changed (`rate_limit_event`).
    RateLimit(RateLimitEvent),
    /// The prompt claude predicts the user sends next (`prompt_suggestion`).
    PromptSuggestion(PromptSuggestion),
    /// A `type` this adapter does not know; logged and skipped.
    Unknown(Value),
}

/// Why a stdout line could not be read.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("not JSON: {0}")]
    NotJson(#[from] serde_json::Error),
    #[error("a `{kind}` line of an unexpected shape: {error}")]
    BadShape {
        kind: String,
        error: serde_json::Error,
    },
}

/// `{"type":"system","subtype":...}`: init, status, permission_denied, thinking_tokens, hooks...
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SystemMessage {
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub subtype: String,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub session_id: Option<String>,
    /// Everything else, per subtype (`permissionMode`, `claude_code_version`, `tool_name`, ...).
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl SystemMessage {
    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.rest.get(key).and_then(Value::as_str)
    }

    /// For `system/background_tasks_changed` (claude's whole set of live background tasks, sent
    /// whenever it changes): the ids of those claude must stay up for. Left out: tasks claude
    /// marks `ambient` (not activity, such as watchers) and `off_host` (running elsewhere).
    pub fn background_tasks_running(&self) -> Option<Vec<String>> {
        if self.subtype != "background_tasks_changed" {
            return None;
        }
        let flag = |task: &Value, key: &str| task.get(key).and_then(Value::as_bool) == Some(true);
        let tasks = self.rest.get("tasks").and_then(Value::as_array)?;
        Some(
            tasks
                .iter()
                .filter(|t| !flag(t, "ambient") && !flag(t, "off_host"))
                .map(|t| match t.get("task_id") {
                    Some(Value::String(id)) => id.clone(),
                    _ => String::new(),
                })
                .collect(),
        )
    }
}

/// One assembled content block of an assistant message (claude prints one line per block).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AssistantMessage {
    pub message: ApiMessage,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub parent_tool_use_id: Option<String>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub session_id: Option<String>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub aborted: bool,
    /// The line's id in claude's transcript (what `--resume-session-at` takes).
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub uuid: Option<String>,
    /// Display names of the MCP tools this line uses (absent for built-in tools).
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub tool_use_meta: Option<Vec<ToolUseMeta>>,
}

/// `tool_use_meta[]` of an assistant line: how claude names an MCP tool use for people.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ToolUseMeta {
    pub id: String,
    #[serde(default)]
    pub display_name: Option<String>,
    #[serde(default)]
    pub server_display_name: Option<String>,
    #[serde(default)]
    pub tool_name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ApiMessage {
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub id: Option<String>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub model: Option<String>,
    #[serde(default, deserialize_with = "lenient::null_as_default")]
    pub content: Vec<ContentBlock>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub stop_reason: Option<String>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub usage: Option<Value>,
}

/// A content block of a message (assistant or user).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        text: String,
    },
    Thinking {
        #[serde(default)]
        thinking: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    RedactedThinking {
        #[serde(default)]
        data: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        #[serde(default)]
        content: ToolResultContent,
        #[serde(default)]
        is_error: Option<bool>,
    },
    Image {
        source: Value,
    },
    Document {
        source: Value,
    },
    /// A block type this adapter does not render.
    #[serde(other)]
    Other,
}

/// A `user` line claude prints: tool results, or text claude injected ("[Request interrupted...]").
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct UserEcho {
    pub message: UserEchoMessage,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub parent_tool_use_id: Option<String>,
    /// The line's id in claude's transcript.
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub uuid: Option<String>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub tool_use_result: Option<Value>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub tool_result_meta: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct UserEchoMessage {
    #[serde(default, deserialize_with = "lenient::null_as_default")]
    pub content: UserContent,
}

#[derive(Debug, Clone, PartialEq)]
pub enum UserContent {
    Text(String),
    Blocks(Vec<ContentBlock>),
}

impl<'de> Deserialize<'de> for UserContent {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match tool_result::TextOrList::deserialize(deserializer)? {
            tool_result::TextOrList::Text(text) => UserContent::Text(text),
            tool_result::TextOrList::List(blocks) => UserContent::Blocks(blocks),
        })
    }
}

impl Default for UserContent {
    fn default() -> Self {
        UserContent::Text(String::new())
    }
}

/// The end of a turn.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ResultMessage {
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub subtype: String,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub is_error: bool,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub result: Option<String>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub stop_reason: Option<String>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub terminal_reason: Option<String>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub session_id: Option<String>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub total_cost_usd: Option<f64>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub usage: Option<Value>,
    #[serde(
        default,
        rename = "modelUsage",
        deserialize_with = "lenient::any_shape"
    )]
    pub model_usage: Option<Map<String, Value>>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub permission_denials: Vec<Value>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub errors: Vec<Value>,
    /// Fast mode after the turn: `off`, `cooldown` or `on` (the pinned claude).
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub fast_mode_state: Option<String>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub fast_mode_disabled_reason: Option<String>,
    /// The `uuid`s of the user messages this turn consumed, in order: claude runs messages that
    /// queued up while it was busy as one turn, and folds one in between tool rounds
    /// (`None`: a claude that does not say, or a turn no user message started).
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub user_message_uuids: Option<Vec<String>>,
    /// What started the turn when it was not a user message (`{"kind": "task-notification"}`:
    /// claude's follow-up to a background job that ended).
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub origin: Option<ResultOrigin>,
    /// Why claude refused to start (`proxy_invalid`, `org_signin_ended`, ...), on the zeroed
    /// error result it writes before exiting (every one with [`STARTUP_FAILURE_RESULTS_ENV`]).
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub startup_failure_reason: Option<String>,
}

/// Asks claude for a typed `result` on every start-up failure it knows the cause of, instead of
/// stderr alone (the agent SDK's `SDKStartupFailureReason`).
pub const STARTUP_FAILURE_RESULTS_ENV: &str = "CLAUDE_CODE_STARTUP_FAILURE_RESULTS";

/// `origin` of a `result`: what started the turn.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ResultOrigin {
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub kind: Option<String>,
}

impl ResultMessage {
    /// Whether claude refused to start for a sign-in that a new sign-in fixes (the agent SDK's
    /// `SDKStartupFailureReason`): the editor's login flow is the way out, not a retry.
    pub fn startup_needs_sign_in(&self) -> bool {
        matches!(
            self.startup_failure_reason.as_deref(),
            Some(
                "org_signin_ended"
                    | "org_config_refused"
                    | "org_pin_mismatch"
                    | "org_pin_api_key_conflict"
                    | "gateway_signin_required"
            )
        )
    }

    /// Whether claude started this turn on its own (a background job's follow-up, a message from
    /// a peer agent), so that it answers no prompt unless it names one.
    pub fn autonomous(&self) -> bool {
        const KINDS: [&str; 5] = [
            "task-notification",
            "peer",
            "coordinator",
            "observer",
            "observer-activity",
        ];
        self.origin
            .as_ref()
            .and_then(|o| o.kind.as_deref())
            .is_some_and(|kind| KINDS.contains(&kind))
    }
}

/// `{"type":"tool_progress"}`: claude's heartbeat for a tool call that is still running (a long
/// Bash command, a subagent), every few seconds.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ToolProgress {
    pub tool_use_id: String,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub tool_name: String,
    /// The Task call whose subagent runs this tool (`None`: the main conversation's own).
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub parent_tool_use_id: Option<String>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub elapsed_time_seconds: f64,
}

/// `{"type":"control_request"}` claude sends us.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct InboundControlRequest {
    pub request_id: String,
    pub request: Value,
    /// Why the request could not be read (nested deeper than serde_json reads, say) when its id
    /// could: `request` then holds only its `subtype`, and it is answered all the same, so claude
    /// does not wait on it.
    #[serde(skip)]
    pub unreadable: Option<String>,
}

impl InboundControlRequest {
    pub fn subtype(&self) -> &str {
        self.request
            .get("subtype")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
}

/// The `can_use_tool` request's fields.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CanUseTool {
    pub tool_name: String,
    #[serde(default)]
    pub display_name: Option<String>,
    #[serde(default)]
    pub input: Value,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub permission_suggestions: Vec<PermissionUpdate>,
    #[serde(default)]
    pub tool_use_id: Option<String>,
    #[serde(default)]
    pub blocked_path: Option<String>,
    #[serde(default)]
    pub decision_reason: Option<String>,
    #[serde(default)]
    pub requires_user_interaction: bool,
    #[serde(default)]
    pub mcp_server: Option<Value>,
    /// The subagent whose call it is (its task id), for a call of a subagent's.
    #[serde(default)]
    pub agent_id: Option<String>,
}

/// `{"type":"control_response"}`, either direction.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ControlResponseEnvelope {
    pub response: ControlResponse,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum ControlResponse {
    Success {
        request_id: String,
        #[serde(default)]
        response: Value,
    },
    Error {
        request_id: String,
        error: String,
    },
}

impl ControlResponse {
    pub fn request_id(&self) -> &str {
        match self {
            ControlResponse::Success { request_id, .. }
            | ControlResponse::Error { request_id, .. } => request_id,
        }
    }
}

#[cfg(test)]
mod tests;
