//! A control request of claude's that does not read whole (nested deeper than serde_json reads,
//! say) but whose `request_id` does: it becomes a request marked unreadable, which the session
//! answers with an error, rather than a line skipped while claude waits on its answer.

use serde::Deserialize;

use super::{ClaudeMessage, InboundControlRequest, WireError};

impl ClaudeMessage {
    /// A control request that does not read whole (nested deeper than serde_json reads, say),
    /// when its `request_id` still does (serde skips the rest without recursing): one to answer
    /// with an error rather than skip. Its `request.subtype` is kept when it reads.
    pub(super) fn unreadable_control_request(
        line: &str,
        error: WireError,
    ) -> Result<Self, WireError> {
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

    pub(super) fn unreadable(request_id: String, subtype: String, error: &WireError) -> Self {
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
