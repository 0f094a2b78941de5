//! The stream-json wire shapes claude speaks on its stdin and stdout (as of CLI 2.1.332).
//!
//! Inbound lines are parsed leniently: unknown `type`s and fields are kept as raw JSON rather than
//! rejected, because claude adds fields in every release. Outbound lines are built only from the
//! typed shapes here, so nothing half-formed can ever reach claude (a bad line kills the CLI).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::lenient;

mod rewind;
mod tool_result;
pub use rewind::{FILE_CHECKPOINTING_ENV, RewindFilesRequest, RewindFilesResult};
pub use tool_result::ToolResultContent;

/// One line claude printed on stdout.
#[derive(Debug, Clone, PartialEq)]
pub enum ClaudeMessage {
    System(SystemMessage),
    Assistant(AssistantMessage),
    User(UserEcho),
    Result(ResultMessage),
    StreamEvent(StreamEvent),
    ControlRequest(InboundControlRequest),
    ControlResponse(ControlResponseEnvelope),
    ControlCancelRequest {
        request_id: String,
    },
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

impl ClaudeMessage {
    /// Reads one stdout line.
    ///
    /// Known types are read straight into their typed form: a 20 MiB tool result is not first
    /// built as a generic JSON tree and then copied.
    pub fn parse(line: &str) -> Result<Self, WireError> {
        /// Only the top-level `type`; serde skips everything else without allocating.
        #[derive(Deserialize)]
        struct Kind {
            #[serde(rename = "type", default)]
            kind: Option<Value>,
        }
        let kind = serde_json::from_str::<Kind>(line)?.kind;
        let kind = kind.as_ref().and_then(Value::as_str).unwrap_or("");
        fn typed<T: for<'de> Deserialize<'de>>(kind: &str, line: &str) -> Result<T, WireError> {
            serde_json::from_str(line).map_err(|error| WireError::BadShape {
                kind: kind.to_owned(),
                error,
            })
        }
        Ok(match kind {
            "system" => ClaudeMessage::System(typed(kind, line)?),
            "assistant" => ClaudeMessage::Assistant(typed(kind, line)?),
            "user" => ClaudeMessage::User(typed(kind, line)?),
            "result" => ClaudeMessage::Result(typed(kind, line)?),
            "stream_event" => ClaudeMessage::StreamEvent(typed(kind, line)?),
            "control_request" => ClaudeMessage::ControlRequest(typed(kind, line)?),
            "control_response" => ClaudeMessage::ControlResponse(typed(kind, line)?),
            _ => Self::from_value(serde_json::from_str(line)?)?,
        })
    }

    pub fn from_value(value: Value) -> Result<Self, WireError> {
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        fn typed<T: for<'de> Deserialize<'de>>(kind: &str, v: Value) -> Result<T, WireError> {
            serde_json::from_value(v).map_err(|error| WireError::BadShape {
                kind: kind.to_owned(),
                error,
            })
        }
        Ok(match kind.as_str() {
            "system" => ClaudeMessage::System(typed(&kind, value)?),
            "assistant" => ClaudeMessage::Assistant(typed(&kind, value)?),
            "user" => ClaudeMessage::User(typed(&kind, value)?),
            "result" => ClaudeMessage::Result(typed(&kind, value)?),
            "stream_event" => ClaudeMessage::StreamEvent(typed(&kind, value)?),
            "control_request" => ClaudeMessage::ControlRequest(typed(&kind, value)?),
            "control_response" => ClaudeMessage::ControlResponse(typed(&kind, value)?),
            "control_cancel_request" => {
                #[derive(Deserialize)]
                struct Cancel {
                    request_id: String,
                }
                let c: Cancel = typed(&kind, value)?;
                ClaudeMessage::ControlCancelRequest {
                    request_id: c.request_id,
                }
            }
            _ => ClaudeMessage::Unknown(value),
        })
    }
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
    /// whenever it changes): how many of them are work claude must stay up for. Left out: tasks
    /// claude marks `ambient` (not activity, such as watchers) and `off_host` (running elsewhere).
    pub fn background_tasks_running(&self) -> Option<usize> {
        if self.subtype != "background_tasks_changed" {
            return None;
        }
        let flag = |task: &Value, key: &str| task.get(key).and_then(Value::as_bool) == Some(true);
        let tasks = self.rest.get("tasks").and_then(Value::as_array)?;
        Some(
            tasks
                .iter()
                .filter(|t| !flag(t, "ambient") && !flag(t, "off_host"))
                .count(),
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

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum UserContent {
    Text(String),
    Blocks(Vec<ContentBlock>),
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
}

/// A raw Anthropic streaming event, relayed as it arrives.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct StreamEvent {
    pub event: Value,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub parent_tool_use_id: Option<String>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub session_id: Option<String>,
}

/// `{"type":"control_request"}` claude sends us.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct InboundControlRequest {
    pub request_id: String,
    pub request: Value,
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
    pub permission_suggestions: Vec<Value>,
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

/// The answer to `can_use_tool`. claude rejects a deny without a message and, in some versions,
/// an allow without `updatedInput`, so both are required here.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "behavior", rename_all = "snake_case")]
pub enum PermissionDecision {
    Allow {
        #[serde(rename = "updatedInput")]
        updated_input: Value,
        #[serde(rename = "updatedPermissions", skip_serializing_if = "Vec::is_empty")]
        updated_permissions: Vec<Value>,
    },
    Deny {
        message: String,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        interrupt: bool,
    },
}

impl PermissionDecision {
    /// The decision as the payload of claude's control response.
    pub fn to_value(&self) -> Value {
        // Strings, bools and JSON values only: serializing cannot fail.
        serde_json::to_value(self).expect("a permission decision serializes")
    }
}

/// A request we send to claude on its control channel.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum OutboundControl {
    Initialize {
        hooks: Option<Value>,
        #[serde(rename = "sdkMcpServers", skip_serializing_if = "Vec::is_empty")]
        sdk_mcp_servers: Vec<String>,
    },
    Interrupt,
    SetPermissionMode {
        mode: String,
    },
    SetModel {
        model: Option<String>,
    },
    /// Merges `settings` into claude's flag-settings layer (a key's value is replaced, not merged).
    ApplyFlagSettings {
        settings: Value,
    },
    RewindFiles(RewindFilesRequest),
}

/// One line we write to claude's stdin. Only these shapes exist.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClaudeInput {
    User {
        message: UserInputMessage,
        parent_tool_use_id: Option<String>,
        session_id: String,
    },
    ControlRequest {
        request_id: String,
        request: OutboundControl,
    },
    ControlResponse {
        response: ControlResponse,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UserInputMessage {
    pub role: &'static str,
    pub content: Vec<Value>,
}

impl ClaudeInput {
    /// The line to write, newline included.
    pub fn to_line(&self) -> String {
        // Serializing these types cannot fail: every field is a plain JSON value.
        let mut line = serde_json::to_string(self).expect("stream-json input serializes");
        line.push('\n');
        line
    }

    pub fn success(request_id: impl Into<String>, response: Value) -> Self {
        ClaudeInput::ControlResponse {
            response: ControlResponse::Success {
                request_id: request_id.into(),
                response,
            },
        }
    }

    pub fn error(request_id: impl Into<String>, error: impl Into<String>) -> Self {
        ClaudeInput::ControlResponse {
            response: ControlResponse::Error {
                request_id: request_id.into(),
                error: error.into(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn background_tasks_count_only_work_claude_must_stay_up_for() {
        let line = json!({"type": "system", "subtype": "background_tasks_changed", "session_id": "s",
            "uuid": "u", "tasks": [
                {"task_id": "a", "task_type": "local_bash", "description": "sleep 60"},
                {"task_id": "b", "task_type": "local_agent", "description": "review", "ambient": false},
                {"task_id": "c", "task_type": "monitor", "description": "watch", "ambient": true},
                {"task_id": "d", "task_type": "remote_agent", "description": "far", "off_host": true}]});
        let ClaudeMessage::System(s) = ClaudeMessage::parse(&line.to_string()).unwrap() else {
            panic!()
        };
        assert_eq!(s.background_tasks_running(), Some(2));
        let ClaudeMessage::System(s) =
            ClaudeMessage::parse(r#"{"type":"system","subtype":"status"}"#).unwrap()
        else {
            panic!()
        };
        assert_eq!(s.background_tasks_running(), None);
    }

    #[test]
    fn unknown_types_and_fields_are_kept_not_rejected() {
        let m = ClaudeMessage::parse(r#"{"type":"rate_limit_event","x":1}"#).unwrap();
        assert!(matches!(m, ClaudeMessage::Unknown(_)));
        let m = ClaudeMessage::parse(
            r#"{"type":"system","subtype":"init","new_field":[1],"session_id":"s"}"#,
        )
        .unwrap();
        let ClaudeMessage::System(s) = m else {
            panic!()
        };
        assert_eq!(s.subtype, "init");
        assert_eq!(s.rest["new_field"], json!([1]));
    }

    #[test]
    fn unknown_content_blocks_parse_as_other() {
        let m = ClaudeMessage::parse(
            r#"{"type":"assistant","message":{"content":[{"type":"server_tool_use","id":"x"},{"type":"text","text":"hi"}]}}"#,
        )
        .unwrap();
        let ClaudeMessage::Assistant(a) = m else {
            panic!()
        };
        assert_eq!(a.message.content[0], ContentBlock::Other);
        assert_eq!(
            a.message.content[1],
            ContentBlock::Text { text: "hi".into() }
        );
    }

    #[test]
    fn deny_always_carries_a_message_and_allow_an_input() {
        let deny = ClaudeInput::success(
            "r1",
            serde_json::to_value(PermissionDecision::Deny {
                message: "no".into(),
                interrupt: false,
            })
            .unwrap(),
        );
        assert_eq!(
            deny.to_line(),
            "{\"type\":\"control_response\",\"response\":{\"subtype\":\"success\",\"request_id\":\"r1\",\"response\":{\"behavior\":\"deny\",\"message\":\"no\"}}}\n"
        );
        let allow = serde_json::to_value(PermissionDecision::Allow {
            updated_input: json!({"a": 1}),
            updated_permissions: vec![],
        })
        .unwrap();
        assert_eq!(allow, json!({"behavior":"allow","updatedInput":{"a":1}}));
    }

    #[test]
    fn control_requests_serialize_as_claude_expects() {
        let line = ClaudeInput::ControlRequest {
            request_id: "a".into(),
            request: OutboundControl::Interrupt,
        }
        .to_line();
        assert_eq!(
            line,
            "{\"type\":\"control_request\",\"request_id\":\"a\",\"request\":{\"subtype\":\"interrupt\"}}\n"
        );
        let line = ClaudeInput::ControlRequest {
            request_id: "b".into(),
            request: OutboundControl::SetPermissionMode {
                mode: "plan".into(),
            },
        }
        .to_line();
        assert!(line.contains("\"subtype\":\"set_permission_mode\",\"mode\":\"plan\""));
    }
}
