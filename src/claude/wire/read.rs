//! Reading one line of claude's stdout into a [`ClaudeMessage`]: known types straight into their
//! typed form; a control request that does not read whole (nested deeper than serde_json reads,
//! say) but whose `request_id` does becomes one marked unreadable, which the session answers
//! with an error, rather than a line skipped while claude waits on its answer.

use serde::Deserialize;
use serde_json::Value;

use super::{ClaudeMessage, InboundControlRequest, WireError};

impl ClaudeMessage {
    /// Reads one stdout line.
    ///
    /// Known types are read straight into their typed form: a 20 MiB tool result is not first
    /// built as a generic JSON tree and then copied.
    pub fn parse(line: &str) -> Result<Self, WireError> {
        // claude writes `type` first: read from the line's start, it saves a pass over the whole
        // line (most of a text delta's cost). A line whose typed read fails takes the pass, so
        // that its error is the one the pass gives.
        if let Some(kind) = leading_type(line)
            && let Some(Ok(message)) = Self::typed(kind, line)
        {
            return Ok(message);
        }
        /// Only the top-level `type`; serde skips everything else without allocating.
        #[derive(Deserialize)]
        struct Kind {
            #[serde(rename = "type", default)]
            kind: Option<Value>,
        }
        let kind = serde_json::from_str::<Kind>(line)?.kind;
        let kind = kind.as_ref().and_then(Value::as_str).unwrap_or("");
        match Self::typed(kind, line) {
            Some(Err(error)) if kind == "control_request" => {
                Self::unreadable_control_request(line, error)
            }
            Some(message) => message,
            None => Self::from_value(serde_json::from_str(line)?),
        }
    }

    /// A line of a known `kind` read into its typed form; `None` for another kind.
    fn typed(kind: &str, line: &str) -> Option<Result<Self, WireError>> {
        fn typed<T: for<'de> Deserialize<'de>>(kind: &str, line: &str) -> Result<T, WireError> {
            serde_json::from_str(line).map_err(|error| WireError::BadShape {
                kind: kind.to_owned(),
                error,
            })
        }
        Some(match kind {
            "system" => typed(kind, line).map(ClaudeMessage::System),
            "assistant" => typed(kind, line).map(|m| ClaudeMessage::Assistant(Box::new(m))),
            "user" => typed(kind, line).map(|m| ClaudeMessage::User(Box::new(m))),
            "result" => typed(kind, line).map(|m| ClaudeMessage::Result(Box::new(m))),
            "stream_event" => typed(kind, line).map(|m| ClaudeMessage::StreamEvent(Box::new(m))),
            "control_request" => typed(kind, line).map(ClaudeMessage::ControlRequest),
            "control_response" => typed(kind, line).map(ClaudeMessage::ControlResponse),
            "tool_progress" => typed(kind, line).map(ClaudeMessage::ToolProgress),
            "rate_limit_event" => typed(kind, line).map(ClaudeMessage::RateLimit),
            "prompt_suggestion" => typed(kind, line).map(ClaudeMessage::PromptSuggestion),
            _ => return None,
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
            "assistant" => ClaudeMessage::Assistant(Box::new(typed(&kind, value)?)),
            "user" => ClaudeMessage::User(Box::new(typed(&kind, value)?)),
            "result" => ClaudeMessage::Result(Box::new(typed(&kind, value)?)),
            "stream_event" => ClaudeMessage::StreamEvent(Box::new(typed(&kind, value)?)),
            "control_request" => {
                // As the line's own read does (`unreadable_control_request`).
                let request_id = value.get("request_id").and_then(Value::as_str);
                let request_id = request_id.map(str::to_owned);
                let subtype = value.pointer("/request/subtype").and_then(Value::as_str);
                let subtype = subtype.unwrap_or_default().to_owned();
                match (typed(&kind, value), request_id) {
                    (Ok(request), _) => ClaudeMessage::ControlRequest(request),
                    (Err(error), Some(id)) => Self::unreadable(id, subtype, &error),
                    (Err(error), None) => return Err(error),
                }
            }
            "control_response" => ClaudeMessage::ControlResponse(typed(&kind, value)?),
            "tool_progress" => ClaudeMessage::ToolProgress(typed(&kind, value)?),
            "rate_limit_event" => ClaudeMessage::RateLimit(typed(&kind, value)?),
            "prompt_suggestion" => ClaudeMessage::PromptSuggestion(typed(&kind, value)?),
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

    /// A control request that does not read whole (nested deeper than serde_json reads, say),
    /// when its `request_id` still does (serde skips the rest without recursing): one to answer
    /// with an error rather than skip. Its `request.subtype` is kept when it reads.
    fn unreadable_control_request(line: &str, error: WireError) -> Result<Self, WireError> {
        #[derive(Deserialize)]
        struct Id {
            request_id: String,
        }
        #[derive(Deserialize)]
        struct Request {
            request: Subtype,
        }
        #[derive(Deserialize)]
        struct Subtype {
            subtype: String,
        }
        let Ok(Id { request_id }) = serde_json::from_str::<Id>(line) else {
            return Err(error);
        };
        let subtype = serde_json::from_str::<Request>(line).map(|r| r.request.subtype);
        Ok(Self::unreadable(
            request_id,
            subtype.unwrap_or_default(),
            &error,
        ))
    }

    fn unreadable(request_id: String, subtype: String, error: &WireError) -> Self {
        let error = match error {
            WireError::NotJson(e) | WireError::BadShape { error: e, .. } => e,
        };
        // Without its position, which only a read from the line has: the same either way.
        let reason = error.to_string();
        let position = format!(" at line {} column {}", error.line(), error.column());
        let reason = reason.strip_suffix(&position).unwrap_or(&reason);
        ClaudeMessage::ControlRequest(InboundControlRequest {
            request_id,
            request: serde_json::json!({ "subtype": subtype }),
            unreadable: Some(crate::claude::redact::log_excerpt(reason, 200)),
        })
    }
}

/// The `type` of a line that starts `{"type":"<kind>"` (as claude writes every line), when the
/// kind has no escape in it.
fn leading_type(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("{\"type\":\"")?;
    let end = rest.find(['"', '\\'])?;
    (rest.as_bytes()[end] == b'"').then(|| &rest[..end])
}
