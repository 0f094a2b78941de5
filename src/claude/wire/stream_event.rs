//! claude's `stream_event`: the API's streaming events, one for every text delta.

use serde::Deserialize;
use serde_json::Value;

use crate::claude::lenient;

/// A raw Anthropic streaming event, relayed as it arrives. One comes for every text delta: its
/// fields are read straight into their types, each of any shape (what does not fit is `None`),
/// and the rest is skipped unbuilt.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct StreamEvent {
    #[serde(deserialize_with = "lenient::object_or_default")]
    pub event: Event,
    #[serde(default, deserialize_with = "lenient::string_or_none")]
    pub parent_tool_use_id: Option<String>,
    #[serde(default, deserialize_with = "lenient::string_or_none")]
    pub session_id: Option<String>,
}

/// The fields of a streaming event this adapter reads.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Event {
    #[serde(rename = "type", default, deserialize_with = "lenient::string_or_none")]
    pub kind: Option<String>,
    #[serde(default, deserialize_with = "lenient::u64_or_none")]
    pub index: Option<u64>,
    /// `content_block_delta`'s.
    #[serde(default, deserialize_with = "lenient::object_or_default")]
    pub delta: EventDelta,
    /// `message_start`'s.
    #[serde(default)]
    pub message: Option<Value>,
    /// `message_delta`'s.
    #[serde(default)]
    pub usage: Option<Value>,
}

/// A `content_block_delta`'s delta: text or thinking.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct EventDelta {
    #[serde(rename = "type", default, deserialize_with = "lenient::string_or_none")]
    pub kind: Option<String>,
    #[serde(default, deserialize_with = "lenient::string_or_none")]
    pub text: Option<String>,
    #[serde(default, deserialize_with = "lenient::string_or_none")]
    pub thinking: Option<String>,
}
