//! The lines we write to claude's stdin: a user message, a control request of ours, our answer
//! to one of claude's; built only from these typed shapes, so nothing half-formed reaches claude.

use serde::Serialize;
use serde_json::Value;

use super::{ControlResponse, OutboundControl, Priority, UserInputMessage};
use crate::json_size::json_size;

/// One line we write to claude's stdin. Only these shapes exist.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClaudeInput {
    User {
        message: UserInputMessage,
        parent_tool_use_id: Option<String>,
        session_id: String,
        /// Ours, so that claude's `result` can name the messages it answers.
        #[serde(skip_serializing_if = "Option::is_none")]
        uuid: Option<String>,
        /// Where it goes in claude's queue while a turn runs (absent: behind what waits).
        #[serde(skip_serializing_if = "Option::is_none")]
        priority: Option<Priority>,
    },
    ControlRequest {
        request_id: String,
        request: OutboundControl,
    },
    ControlResponse {
        response: ControlResponse,
    },
}

/// One of our lines for claude's stdin, ready to write.
pub(crate) enum InputLine {
    /// The whole line, newline included.
    Whole(String),
    /// A line too big to hold twice (an allow's `updatedInput` is a Write's whole file), without
    /// its newline: serialised while it is written, a chunk at a time.
    Streamed(crate::json_stream::Serialise),
}

/// Lines longer than this are streamed rather than built.
const STREAM_ABOVE: usize = 1024 * 1024;

impl ClaudeInput {
    /// The line to write: built whole, or, for a control response over [`STREAM_ABOVE`], streamed.
    pub(crate) fn into_line(self) -> InputLine {
        let size = self.measured_size();
        if size > STREAM_ABOVE {
            return InputLine::Streamed(Box::new(move |out| {
                serde_json::to_writer(out, &self).map_err(std::io::Error::other)
            }));
        }
        InputLine::Whole(self.line_of(size))
    }

    /// The line to write, newline included.
    pub fn to_line(&self) -> String {
        self.line_of(self.measured_size())
    }

    /// A control response may carry a whole file (a Write's `updatedInput`): its size is measured
    /// first, so that its line is allocated once (or streamed) instead of grown by doubling. Other
    /// lines are small: 0.
    fn measured_size(&self) -> usize {
        match self {
            ClaudeInput::ControlResponse { .. } => json_size(self).unwrap_or(0),
            _ => 0,
        }
    }

    fn line_of(&self, size: usize) -> String {
        let mut line = Vec::with_capacity(size + 1);
        // Serializing these types cannot fail: every field is a plain JSON value.
        serde_json::to_writer(&mut line, self).expect("stream-json input serializes");
        line.push(b'\n');
        // serde_json writes valid UTF-8.
        String::from_utf8(line).expect("JSON is UTF-8")
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
