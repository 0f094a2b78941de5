//! Turns a scripted message into the Messages API's events (streamed) or its JSON message (not streamed),
//! shaped like the real API's answers that claude 2.1.332 was captured against.

use serde_json::{Value, json};

use super::script::{Block, MessageReply};

/// One server-sent event; `is_delta` marks the events the per-chunk delay applies to.
pub struct SseEvent {
    pub name: &'static str,
    pub data: Value,
    pub is_delta: bool,
}

impl SseEvent {
    fn new(name: &'static str, data: Value) -> SseEvent {
        SseEvent {
            name,
            data,
            is_delta: name == "content_block_delta",
        }
    }

    /// The event as it goes on the wire.
    pub fn to_wire(&self) -> String {
        format!("event: {}\ndata: {}\n\n", self.name, self.data)
    }
}

/// Ids and sizes the reply needs besides the script.
pub struct MessageContext<'a> {
    pub message_id: &'a str,
    pub model: &'a str,
    pub input_tokens: u64,
}

impl MessageContext<'_> {
    /// The reply's usage of its input: all new, or (`cached`) read from a warm prompt cache but
    /// for the last few tokens, as the real API reports a conversation's later requests.
    fn input_usage(&self, cached: bool) -> Value {
        let (new, read) = if cached {
            (3, self.input_tokens.saturating_sub(3))
        } else {
            (self.input_tokens, 0)
        };
        json!({"input_tokens": new, "cache_creation_input_tokens": 0, "cache_read_input_tokens": read})
    }
}

/// The stream events for `reply`: message_start, ping, per block start/deltas/stop, message_delta,
/// message_stop.
pub fn stream_events(reply: &MessageReply, context: &MessageContext<'_>) -> Vec<SseEvent> {
    let mut events = vec![
        SseEvent::new(
            "message_start",
            json!({"type": "message_start", "message": {
                "id": context.message_id, "type": "message", "role": "assistant",
                "model": context.model, "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": usage(context.input_usage(reply.cached), json!({"output_tokens": 1, "service_tier": "standard"}))}}),
        ),
        SseEvent::new("ping", json!({"type": "ping"})),
    ];
    for (index, block) in reply.blocks.iter().enumerate() {
        let delta = |delta: Value| {
            SseEvent::new(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            )
        };
        let (start, deltas) = match block {
            Block::Text(text) => (
                json!({"type": "text", "text": ""}),
                chunks(text, reply.chunk_chars)
                    .map(|piece| delta(json!({"type": "text_delta", "text": piece})))
                    .collect::<Vec<_>>(),
            ),
            Block::Thinking(thinking) => {
                let mut deltas: Vec<SseEvent> = chunks(thinking, reply.chunk_chars)
                    .map(|piece| delta(json!({"type": "thinking_delta", "thinking": piece})))
                    .collect();
                deltas.push(delta(
                    json!({"type": "signature_delta", "signature": signature()}),
                ));
                (
                    json!({"type": "thinking", "thinking": "", "signature": ""}),
                    deltas,
                )
            }
            Block::ToolUse { name, input } => {
                let input_json = input.to_string();
                (
                    json!({"type": "tool_use", "id": tool_use_id(), "name": name, "input": {}}),
                    chunks(&input_json, reply.chunk_chars)
                        .map(|piece| {
                            delta(json!({"type": "input_json_delta", "partial_json": piece}))
                        })
                        .collect(),
                )
            }
        };
        events.push(SseEvent::new(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        events.extend(deltas);
        events.push(SseEvent::new(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    events.push(SseEvent::new(
        "message_delta",
        json!({"type": "message_delta",
               "delta": {"stop_reason": stop_reason(reply), "stop_sequence": null},
               "usage": {"output_tokens": output_tokens(reply)}}),
    ));
    events.push(SseEvent::new(
        "message_stop",
        json!({"type": "message_stop"}),
    ));
    events
}

/// The whole message, for a request with `stream: false`.
pub fn full_message(reply: &MessageReply, context: &MessageContext<'_>) -> Value {
    let content: Vec<Value> = reply
        .blocks
        .iter()
        .map(|block| match block {
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::Thinking(thinking) => {
                json!({"type": "thinking", "thinking": thinking, "signature": signature()})
            }
            Block::ToolUse { name, input } => {
                json!({"type": "tool_use", "id": tool_use_id(), "name": name, "input": input})
            }
        })
        .collect();
    json!({
        "id": context.message_id, "type": "message", "role": "assistant", "model": context.model,
        "content": content, "stop_reason": stop_reason(reply), "stop_sequence": null,
        "usage": usage(context.input_usage(reply.cached), json!({"output_tokens": output_tokens(reply)}))
    })
}

fn stop_reason(reply: &MessageReply) -> String {
    reply.stop_reason.clone().unwrap_or_else(|| {
        let uses_tool = reply
            .blocks
            .iter()
            .any(|block| matches!(block, Block::ToolUse { .. }));
        if uses_tool { "tool_use" } else { "end_turn" }.to_string()
    })
}

fn output_tokens(reply: &MessageReply) -> usize {
    let chars: usize = reply
        .blocks
        .iter()
        .map(|block| match block {
            Block::Text(text) | Block::Thinking(text) => text.chars().count(),
            Block::ToolUse { input, .. } => input.to_string().chars().count(),
        })
        .sum();
    chars / 4 + 1
}

/// Splits `text` into pieces of `size` characters (never inside a UTF-8 character). Empty text gives no piece.
fn chunks(text: &str, size: usize) -> std::vec::IntoIter<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(size.max(1))
        .map(|piece| piece.iter().collect())
        .collect::<Vec<String>>()
        .into_iter()
}

fn tool_use_id() -> String {
    format!(
        "toolu_mock_{}",
        &uuid::Uuid::new_v4().simple().to_string()[..24]
    )
}

fn signature() -> String {
    format!("mocksig_{}", uuid::Uuid::new_v4().simple())
}

/// `input`'s fields and then `rest`'s, in that order.
fn usage(mut input: Value, rest: Value) -> Value {
    if let (Some(input), Value::Object(rest)) = (input.as_object_mut(), rest) {
        input.extend(rest);
    }
    input
}
