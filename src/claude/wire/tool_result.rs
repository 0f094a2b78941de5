//! A tool result's content as claude writes it: a plain string or a list of blocks.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool_result's content: a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    Text(String),
    Blocks(Vec<Value>),
}

impl Default for ToolResultContent {
    fn default() -> Self {
        ToolResultContent::Text(String::new())
    }
}

impl ToolResultContent {
    /// The text of the result, its text blocks joined by newlines; a plain string moves out.
    pub fn into_text(self) -> String {
        match self {
            ToolResultContent::Text(t) => t,
            blocks => blocks.text(),
        }
    }

    /// The text of the result, its text blocks joined by newlines.
    pub fn text(&self) -> String {
        match self {
            ToolResultContent::Text(t) => t.clone(),
            ToolResultContent::Blocks(blocks) => blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}
