//! One recorded `POST /v1/messages` request, with accessors for what tests and rules ask about it.

use serde_json::Value;

/// A Messages API request as the mock received it.
#[derive(Clone, Debug)]
pub struct ApiRequest {
    /// 1-based position among the `/v1/messages` requests this mock received.
    pub n: usize,
    pub method: String,
    /// Path and query, e.g. `/v1/messages?beta=true`.
    pub target: String,
    pub headers: Vec<(String, String)>,
    /// The full JSON body.
    pub body: Value,
    /// Index into the rule list of the rule that answered; `None` means the default reply.
    pub matched_rule: Option<usize>,
}

/// A `tool_result` block of the last user message.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    pub tool_use_id: String,
    /// The text parts of its content, joined with newlines.
    pub text: String,
    pub is_error: bool,
}

impl ApiRequest {
    /// First header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// `messages` of the body (empty if missing).
    pub fn messages(&self) -> &[Value] {
        self.body["messages"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// The last `role:"user"` message. Claude may put a `role:"system"` message after it.
    pub fn last_user_message(&self) -> Option<&Value> {
        self.messages().iter().rev().find(|m| m["role"] == "user")
    }

    /// What the user typed, when this request answers a new prompt: the text of the last user message
    /// (without claude's `<system-reminder>` blocks), or `None` if that message carries tool results.
    pub fn prompt_text(&self) -> Option<String> {
        prompt_text_of(self.last_user_message()?)
    }

    /// The most recent prompt text in the conversation, even if tool results came after it.
    pub fn latest_prompt_text(&self) -> Option<String> {
        self.messages()
            .iter()
            .rev()
            .filter(|m| m["role"] == "user")
            .find_map(prompt_text_of)
    }

    /// The `tool_result` blocks of the last user message (empty when it is a new prompt).
    pub fn tool_results(&self) -> Vec<ToolResult> {
        let Some(message) = self.last_user_message() else {
            return Vec::new();
        };
        blocks(message)
            .iter()
            .filter(|block| block["type"] == "tool_result")
            .map(|block| ToolResult {
                tool_use_id: block["tool_use_id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                text: content_text(&block["content"]),
                is_error: block["is_error"].as_bool().unwrap_or(false),
            })
            .collect()
    }

    /// Names of the tools offered to the model.
    pub fn tool_names(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|tool| tool["name"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether any string anywhere in the body (prompt, system prompt, tool results...) contains `text`.
    pub fn contains(&self, text: &str) -> bool {
        any_string_contains(&self.body, text)
    }
}

fn blocks(message: &Value) -> Vec<Value> {
    match &message["content"] {
        Value::String(text) => vec![serde_json::json!({"type": "text", "text": text})],
        Value::Array(blocks) => blocks.clone(),
        _ => Vec::new(),
    }
}

fn prompt_text_of(message: &Value) -> Option<String> {
    let blocks = blocks(message);
    if blocks.iter().any(|block| block["type"] == "tool_result") {
        return None;
    }
    let texts: Vec<&str> = blocks
        .iter()
        .filter(|block| block["type"] == "text")
        .filter_map(|block| block["text"].as_str())
        .filter(|text| !text.trim_start().starts_with("<system-reminder>"))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// Text of a tool_result `content`, which is either a string or a list of blocks.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn any_string_contains(value: &Value, text: &str) -> bool {
    match value {
        Value::String(s) => s.contains(text),
        Value::Array(items) => items.iter().any(|item| any_string_contains(item, text)),
        Value::Object(map) => map.values().any(|item| any_string_contains(item, text)),
        _ => false,
    }
}
