//! The test's script for the mock model: rules that pick a reply from the request, and the replies.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::request::ApiRequest;

/// One content block of a scripted assistant message.
#[derive(Clone, Debug)]
pub enum Block {
    Text(String),
    /// Streamed as thinking_delta chunks followed by one signature_delta.
    Thinking(String),
    /// The tool use id (`toolu_mock_...`) is generated when the reply is sent.
    ToolUse {
        name: String,
        input: Value,
    },
}

/// What the mock answers to one request: a streamed assistant message, or an API error.
#[derive(Clone, Debug)]
pub enum Reply {
    Message(MessageReply),
    Error(ErrorReply),
}

/// A scripted assistant message and how to stream it.
#[derive(Clone, Debug)]
pub struct MessageReply {
    pub blocks: Vec<Block>,
    /// `None`: `tool_use` if a block is a tool use, else `end_turn`.
    pub stop_reason: Option<String>,
    /// Characters per text / thinking / input_json delta.
    pub chunk_chars: usize,
    /// Pause after each delta event.
    pub chunk_delay: Duration,
    /// Stop sending after this many SSE events and hold the connection open until the client closes it
    /// (for interrupting mid-stream).
    pub stall_after_events: Option<usize>,
    /// Response headers sent besides the mock's own (e.g. `anthropic-ratelimit-unified-*`).
    pub headers: Vec<(String, String)>,
    /// The usage reports the input as read from the prompt cache (see [`Reply::cached`]).
    pub cached: bool,
}

/// An API error response.
#[derive(Clone, Debug)]
pub struct ErrorReply {
    pub status: u16,
    /// Anthropic error type, e.g. `overloaded_error`, `authentication_error`.
    pub error_type: String,
    pub message: String,
    /// When false (the default) the response carries `x-should-retry: false`, so claude does not retry.
    pub retryable: bool,
    /// Response headers sent besides the mock's own (e.g. a rejected usage limit's).
    pub headers: Vec<(String, String)>,
}

impl Reply {
    /// One text block.
    pub fn text(text: impl Into<String>) -> Reply {
        Reply::blocks(vec![Block::Text(text.into())])
    }

    /// One tool use block (stop_reason `tool_use`).
    pub fn tool_use(name: impl Into<String>, input: Value) -> Reply {
        Reply::blocks(vec![Block::ToolUse {
            name: name.into(),
            input,
        }])
    }

    /// Any sequence of blocks.
    pub fn blocks(blocks: Vec<Block>) -> Reply {
        Reply::Message(MessageReply {
            blocks,
            stop_reason: None,
            chunk_chars: 8,
            chunk_delay: Duration::ZERO,
            stall_after_events: None,
            cached: false,
            headers: Vec::new(),
        })
    }

    /// An error response with the Anthropic error JSON `{"type":"error","error":{type,message}}`.
    pub fn error(status: u16, error_type: impl Into<String>, message: impl Into<String>) -> Reply {
        Reply::Error(ErrorReply {
            status,
            error_type: error_type.into(),
            message: message.into(),
            retryable: false,
            headers: Vec::new(),
        })
    }

    /// 529 `overloaded_error`.
    pub fn overloaded() -> Reply {
        Reply::error(529, "overloaded_error", "Overloaded")
    }

    /// 500 `api_error`.
    pub fn server_error() -> Reply {
        Reply::error(500, "api_error", "Internal server error")
    }

    /// 401 `authentication_error`.
    pub fn unauthorized() -> Reply {
        Reply::error(401, "authentication_error", "invalid x-api-key")
    }

    /// Adds a response header (to a message or an error).
    pub fn header(self, name: impl Into<String>, value: impl Into<String>) -> Reply {
        let (name, value) = (name.into(), value.into());
        match self {
            Reply::Error(mut error) => {
                error.headers.push((name, value));
                Reply::Error(error)
            }
            message => message.with_message(|m| m.headers.push((name, value))),
        }
    }

    /// 429 with the headers of a Claude subscription's 5-hour window reached, resetting at
    /// `resets_at` (epoch seconds): claude's usage limit, which it does not retry.
    pub fn usage_limit_reached(resets_at: u64) -> Reply {
        Reply::error(429, "rate_limit_error", "Rate limited")
            .rate_limit_headers(1.0, "rejected", resets_at)
    }

    /// The headers of a Claude subscription's usage windows, as the API sends them: the 5-hour
    /// window at `five_hour_used` (0 to 1) and `five_hour_status`, the weekly one at 30 %.
    pub fn rate_limit_headers(
        self,
        five_hour_used: f64,
        five_hour_status: &str,
        resets_at: u64,
    ) -> Reply {
        let mut reply = self;
        for (name, value) in [
            (
                "anthropic-ratelimit-unified-status",
                five_hour_status.to_owned(),
            ),
            (
                "anthropic-ratelimit-unified-5h-status",
                five_hour_status.to_owned(),
            ),
            (
                "anthropic-ratelimit-unified-5h-utilization",
                five_hour_used.to_string(),
            ),
            (
                "anthropic-ratelimit-unified-5h-reset",
                resets_at.to_string(),
            ),
            (
                "anthropic-ratelimit-unified-7d-status",
                "allowed".to_owned(),
            ),
            (
                "anthropic-ratelimit-unified-7d-utilization",
                "0.3".to_owned(),
            ),
            (
                "anthropic-ratelimit-unified-7d-reset",
                (resets_at + 3 * 86_400).to_string(),
            ),
            (
                "anthropic-ratelimit-unified-representative-claim",
                "five_hour".to_owned(),
            ),
            ("anthropic-ratelimit-unified-reset", resets_at.to_string()),
        ] {
            reply = reply.header(name, value);
        }
        reply
    }

    /// Reports the request's input as read from a warm prompt cache (all but 3 tokens), as the
    /// real API does for a conversation's later requests; claude makes some requests of its own
    /// (a prompt suggestion) only when the cache is warm.
    pub fn cached(self) -> Reply {
        self.with_message(|m| m.cached = true)
    }

    /// Sets the stop_reason sent in message_delta.
    pub fn stop_reason(self, stop_reason: impl Into<String>) -> Reply {
        self.with_message(|m| m.stop_reason = Some(stop_reason.into()))
    }

    /// Sets how many characters each delta carries (at least 1).
    pub fn chunk_chars(self, chars: usize) -> Reply {
        self.with_message(|m| m.chunk_chars = chars.max(1))
    }

    /// Sets the pause after each delta event.
    pub fn chunk_delay(self, delay: Duration) -> Reply {
        self.with_message(|m| m.chunk_delay = delay)
    }

    /// Sends only the first `events` SSE events, then holds the connection open until the client closes.
    pub fn stall_after(self, events: usize) -> Reply {
        self.with_message(|m| m.stall_after_events = Some(events))
    }

    /// Lets claude retry this error (no `x-should-retry: false` header).
    pub fn retryable(self) -> Reply {
        match self {
            Reply::Error(mut error) => {
                error.retryable = true;
                Reply::Error(error)
            }
            Reply::Message(_) => panic!("Reply::retryable applies to errors only"),
        }
    }

    fn with_message(self, change: impl FnOnce(&mut MessageReply)) -> Reply {
        match self {
            Reply::Message(mut message) => {
                change(&mut message);
                Reply::Message(message)
            }
            Reply::Error(_) => panic!("streaming settings apply to message replies only"),
        }
    }
}

type Predicate = Arc<dyn Fn(&ApiRequest) -> bool + Send + Sync>;

/// A predicate on the request and the reply to send when it holds. Rules are tried in order; the first
/// one that matches (and is not used up) answers.
#[derive(Clone)]
pub struct Rule {
    pub(crate) description: String,
    pub(crate) predicate: Predicate,
    pub(crate) reply: Reply,
    pub(crate) max_uses: Option<usize>,
    pub(crate) uses: usize,
}

impl fmt::Debug for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rule")
            .field("description", &self.description)
            .field("reply", &self.reply)
            .field("max_uses", &self.max_uses)
            .field("uses", &self.uses)
            .finish()
    }
}

impl Rule {
    /// Matches when `predicate` holds; `description` appears in diagnostics.
    pub fn when(
        description: impl Into<String>,
        predicate: impl Fn(&ApiRequest) -> bool + Send + Sync + 'static,
        reply: Reply,
    ) -> Rule {
        Rule {
            description: description.into(),
            predicate: Arc::new(predicate),
            reply,
            max_uses: None,
            uses: 0,
        }
    }

    /// Matches every request.
    pub fn always(reply: Reply) -> Rule {
        Rule::when("always", |_| true, reply)
    }

    /// Matches a new prompt (not a tool-result turn) whose text contains `text`.
    pub fn on_prompt(text: impl Into<String>, reply: Reply) -> Rule {
        let text = text.into();
        Rule::when(
            format!("prompt contains {text:?}"),
            move |request| request.prompt_text().is_some_and(|p| p.contains(&text)),
            reply,
        )
    }

    /// Matches a request whose last user message carries a tool_result.
    pub fn on_tool_result(reply: Reply) -> Rule {
        Rule::when(
            "any tool_result",
            |request| !request.tool_results().is_empty(),
            reply,
        )
    }

    /// Matches a request whose last user message carries a tool_result containing `text`.
    pub fn on_tool_result_containing(text: impl Into<String>, reply: Reply) -> Rule {
        let text = text.into();
        Rule::when(
            format!("tool_result contains {text:?}"),
            move |request| {
                request
                    .tool_results()
                    .iter()
                    .any(|r| r.text.contains(&text))
            },
            reply,
        )
    }

    /// Matches the `n`-th (1-based) `/v1/messages` request.
    pub fn on_request(n: usize, reply: Reply) -> Rule {
        Rule::when(format!("request #{n}"), move |r| r.n == n, reply)
    }

    /// Lets this rule answer at most `uses` times; afterwards later rules are tried.
    pub fn times(mut self, uses: usize) -> Rule {
        self.max_uses = Some(uses);
        self
    }

    /// Same as `times(1)`.
    pub fn once(self) -> Rule {
        self.times(1)
    }

    pub(crate) fn is_available(&self) -> bool {
        self.max_uses.is_none_or(|max| self.uses < max)
    }
}
