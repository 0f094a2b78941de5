//! A tool call as the SDK's type serialises it, with its `rawInput` shared rather than copied into
//! that type, and a diff whose `newText` is that input's `content` (a Write) written from the
//! input instead of held a second time: a Write's input holds the whole file, and ACP sends it
//! twice. The JSON is the SDK's, byte for byte in meaning (checked in the tests).

use std::path::PathBuf;
use std::sync::Arc;

use agent_client_protocol::v1::schema as acp;
use serde_json::Value;

/// A diff's `newText` at least this long, equal to the input's `content`, is written from the
/// input; shorter ones stay in the SDK's type as they are.
const SHARED_TEXT_ABOVE: usize = 64 * 1024;

/// Access to the content of the SDK's tool call types.
pub(super) trait CallContent {
    fn content(&self) -> &[acp::ToolCallContent];
    fn take_content(&mut self) -> Vec<acp::ToolCallContent>;
    fn put_content(&mut self, content: Vec<acp::ToolCallContent>);
}

/// The SDK's tool call without `rawInput` and, when one of its diffs is the input's `content`,
/// without its content: both are written from here.
pub(super) struct ToolCallWithInput<C> {
    call: C,
    raw_input: Option<Arc<Value>>,
    /// Set when `call`'s content was taken out because a diff in it is the input's `content`.
    content: Option<Vec<Content>>,
}

enum Content {
    Sdk(Box<acp::ToolCallContent>),
    /// A diff whose `newText` is the input's `content`.
    DiffOfInput {
        path: PathBuf,
        old_text: Option<String>,
    },
}

fn input_text(raw_input: Option<&Value>) -> Option<&str> {
    raw_input?.get("content")?.as_str()
}

impl<C: CallContent> ToolCallWithInput<C> {
    /// `call` must have no `rawInput` of its own.
    pub(super) fn new(mut call: C, raw_input: Option<Arc<Value>>) -> Self {
        let content = input_text(raw_input.as_deref())
            .filter(|text| text.len() >= SHARED_TEXT_ABOVE)
            .and_then(|text| share_diff_text(&mut call, text));
        ToolCallWithInput {
            call,
            raw_input,
            content,
        }
    }

    /// Whether a diff is written from the input.
    #[cfg(test)]
    pub(super) fn is_shared(&self) -> bool {
        self.content.is_some()
    }

    /// The SDK's tool call (its diff whole again) and the input, for the SDK's own path.
    pub(super) fn into_sdk(self) -> (C, Option<Arc<Value>>) {
        let ToolCallWithInput {
            mut call,
            raw_input,
            content,
        } = self;
        if let Some(content) = content {
            let text = input_text(raw_input.as_deref()).unwrap_or_default();
            call.put_content(
                content
                    .into_iter()
                    .map(|item| match item {
                        Content::Sdk(item) => *item,
                        Content::DiffOfInput { path, old_text } => acp::ToolCallContent::Diff(
                            acp::Diff::new(path, text).old_text(old_text),
                        ),
                    })
                    .collect(),
            );
        }
        (call, raw_input)
    }
}

/// Takes `call`'s content out if one of its diffs holds `text` (dropping that copy); `None` (and
/// `call` untouched) otherwise.
fn share_diff_text<C: CallContent>(call: &mut C, text: &str) -> Option<Vec<Content>> {
    let at = call.content().iter().position(|item| {
        matches!(item, acp::ToolCallContent::Diff(diff) if diff.meta.is_none() && diff.new_text == text)
    })?;
    Some(
        call.take_content()
            .into_iter()
            .enumerate()
            .map(|(i, item)| match item {
                acp::ToolCallContent::Diff(diff) if i == at => Content::DiffOfInput {
                    path: diff.path,
                    old_text: diff.old_text,
                },
                other => Content::Sdk(Box::new(other)),
            })
            .collect(),
    )
}

impl<C: serde::Serialize> serde::Serialize for ToolCallWithInput<C> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = input_text(self.raw_input.as_deref()).unwrap_or_default();
        let content = self.content.as_ref().map(|content| {
            content
                .iter()
                .map(|item| match item {
                    Content::Sdk(item) => ContentJson::Sdk(item),
                    Content::DiffOfInput { path, old_text } => ContentJson::Diff(DiffJson {
                        kind: "diff",
                        path,
                        old_text: old_text.as_deref(),
                        new_text: text,
                    }),
                })
                .collect()
        });
        serde::Serialize::serialize(
            &ToolCallJson {
                call: &self.call,
                content,
                raw_input: self.raw_input.as_deref(),
            },
            serializer,
        )
    }
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolCallJson<'a, C> {
    #[serde(flatten)]
    call: &'a C,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<Vec<ContentJson<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw_input: Option<&'a Value>,
}

#[derive(serde::Serialize)]
#[serde(untagged)]
enum ContentJson<'a> {
    Sdk(&'a acp::ToolCallContent),
    Diff(DiffJson<'a>),
}

/// An `acp::Diff` as the SDK writes it (`type` first, `oldText` only when set).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct DiffJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    path: &'a PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    old_text: Option<&'a str>,
    new_text: &'a str,
}

impl CallContent for acp::ToolCall {
    fn content(&self) -> &[acp::ToolCallContent] {
        &self.content
    }

    fn take_content(&mut self) -> Vec<acp::ToolCallContent> {
        std::mem::take(&mut self.content)
    }

    fn put_content(&mut self, content: Vec<acp::ToolCallContent>) {
        self.content = content;
    }
}

/// A `session/update` notification's params for a new tool call; serialises to the JSON of
/// `acp::SessionNotification` with `acp::SessionUpdate::ToolCall`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolCallNotification {
    session_id: acp::SessionId,
    update: TaggedToolCall,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct TaggedToolCall {
    session_update: &'static str,
    #[serde(flatten)]
    call: ToolCallWithInput<acp::ToolCall>,
}

impl ToolCallNotification {
    /// `call` must have no `rawInput` of its own: `raw_input` is it.
    pub(super) fn new(session_id: &str, call: acp::ToolCall, raw_input: Option<Value>) -> Self {
        ToolCallNotification {
            session_id: session_id.to_owned().into(),
            update: TaggedToolCall {
                session_update: "tool_call",
                call: ToolCallWithInput::new(call, raw_input.map(Arc::new)),
            },
        }
    }

    /// The SDK's notification, for comparison.
    #[cfg(test)]
    fn into_sdk(self) -> acp::SessionNotification {
        let (mut call, raw_input) = self.update.call.into_sdk();
        call.raw_input = raw_input.map(Arc::unwrap_or_clone);
        acp::SessionNotification::new(self.session_id, acp::SessionUpdate::ToolCall(call))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ToolCall, ToolContent, ToolKind, ToolLocation, ToolStatus};
    use serde_json::json;

    fn write_call(text: &str) -> ToolCall {
        ToolCall {
            id: "toolu_1".into(),
            title: "Write a.txt".into(),
            kind: ToolKind::Edit,
            status: ToolStatus::Pending,
            locations: vec![ToolLocation {
                path: "/w/a.txt".into(),
                line: None,
            }],
            content: vec![ToolContent::Diff {
                path: "/w/a.txt".into(),
                old_text: None,
                new_text: text.into(),
            }],
            raw_input: Some(json!({"file_path": "/w/a.txt", "content": text})),
            parent_tool_call: Some("toolu_task".into()),
        }
    }

    fn notification(text: &str) -> ToolCallNotification {
        let mut call = write_call(text);
        let raw_input = call.raw_input.take();
        ToolCallNotification::new("s1", super::super::to_proto::tool_call(call), raw_input)
    }

    #[test]
    fn a_tool_call_notification_is_the_sdks_and_a_long_writes_text_is_held_once() {
        let long = "x\"é\n".repeat(SHARED_TEXT_ABOVE / 4);
        for (text, shared) in [("short\n", false), (long.as_str(), true)] {
            let ours = notification(text);
            assert_eq!(ours.update.call.is_shared(), shared);
            let json = serde_json::to_value(&ours).unwrap();
            let sdk = serde_json::to_value(notification(text).into_sdk()).unwrap();
            assert!(
                json == sdk,
                "differs from the SDK's JSON ({} bytes)",
                text.len()
            );
            assert_eq!(json["update"]["content"][0]["newText"], text);
            assert_eq!(json["update"]["rawInput"]["content"], text);
        }
    }
}
