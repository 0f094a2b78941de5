//! A tool result's content as claude writes it: a plain string or a list of blocks (the shape a
//! `user` line's content has too).

use std::marker::PhantomData;

use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// A tool_result's content: a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
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

impl<'de> Deserialize<'de> for ToolResultContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match TextOrList::deserialize(deserializer)? {
            TextOrList::Text(text) => ToolResultContent::Text(text),
            TextOrList::List(blocks) => ToolResultContent::Blocks(blocks),
        })
    }
}

/// A string or a list of `T`, read as what it is. serde's `untagged` would do the same by trying
/// each in turn, but through a copy of every string: 20 MiB more for a 20 MiB tool result.
pub(super) enum TextOrList<T> {
    Text(String),
    List(Vec<T>),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for TextOrList<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TextOrListVisitor(PhantomData))
    }
}

struct TextOrListVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for TextOrListVisitor<T> {
    type Value = TextOrList<T>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a string or a list")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(TextOrList::Text(text.to_owned()))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<Self::Value, E> {
        Ok(TextOrList::Text(text))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Vec::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(TextOrList::List)
    }
}
