//! A tool call as the SDK's type serialises it, with its `rawInput` shared rather than copied into
//! that type, and a diff whose `newText` is that input's `content` (a Write) written from the
//! input instead of held a second time: a Write's input holds the whole file, and ACP sends it
//! twice. The JSON is the SDK's, byte for byte in meaning (checked in the tests). For an ACP v2
//! editor the same call in v2's form: that diff an added file whose git patch is written from the
//! input too ([`super::file_changes::AddedFile`]). And a tool call update whose `rawOutput` has a
//! value held out of it ([`ToolCallUpdate::raw_output_shown`], a command's long output), its
//! value written from the shown text: the SDK's JSON byte for byte.

use std::path::PathBuf;
use std::sync::Arc;

use agent_client_protocol::v1::schema as acp;
use serde_json::Value;

use super::to_proto;
use crate::domain::{ToolCall, ToolCallUpdate, ToolContent};

/// Where the SDK's tool call types keep their content.
pub(crate) trait CallContent {
    fn put_content(&mut self, content: Vec<acp::ToolCallContent>);
}

/// The SDK's tool call without `rawInput` and, when its content has a diff of the input
/// ([`ToolContent::DiffOfInput`]), without its content: both are written from here.
pub(crate) struct ToolCallWithInput<C> {
    call: C,
    raw_input: Option<Arc<Value>>,
    /// Set instead of `call`'s content when a diff in it is the input's `content` (always, in
    /// v2's form).
    content: Option<Vec<Content>>,
    v2: bool,
}

enum Content {
    Sdk(Box<acp::ToolCallContent>),
    /// An item already in v2's form.
    V2(Value),
    /// A diff whose `newText` is the input's `content`.
    DiffOfInput {
        path: PathBuf,
    },
}

fn input_text(raw_input: Option<&Value>) -> &str {
    raw_input
        .and_then(|input| input.get("content"))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

impl<C: CallContent> ToolCallWithInput<C> {
    /// `call` must have no `rawInput` and no content of its own: `raw_input` and `content` are
    /// them (`None`: the update leaves the content as it was).
    pub(crate) fn new(
        mut call: C,
        content: Option<Vec<ToolContent>>,
        raw_input: Option<Arc<Value>>,
    ) -> Self {
        let of_input = |item: &ToolContent| matches!(item, ToolContent::DiffOfInput { .. });
        let mut ours = None;
        match content {
            Some(content) if content.iter().any(of_input) => {
                let content = content.into_iter().map(|item| match item {
                    ToolContent::DiffOfInput { path } => Content::DiffOfInput { path: path.into() },
                    other => Content::Sdk(Box::new(to_proto::tool_content(other, None))),
                });
                ours = Some(content.collect());
            }
            Some(content) => call.put_content(
                content
                    .into_iter()
                    .map(|item| to_proto::tool_content(item, raw_input.as_deref()))
                    .collect(),
            ),
            None => {}
        }
        ToolCallWithInput {
            call,
            raw_input,
            content: ours,
            v2: false,
        }
    }

    /// The same call in ACP v2's form: its diffs are file changes with a git patch.
    pub(crate) fn new_v2(
        call: C,
        content: Option<Vec<ToolContent>>,
        raw_input: Option<Arc<Value>>,
    ) -> Self {
        let content = content.map(|content| {
            let item = |item: ToolContent| match item {
                ToolContent::DiffOfInput { path } => Content::DiffOfInput { path: path.into() },
                other => {
                    let v1 = to_proto::tool_content(other, raw_input.as_deref());
                    let mut json = serde_json::to_value(v1).unwrap_or_default();
                    super::file_changes::tool_content(&mut json);
                    Content::V2(json)
                }
            };
            content.into_iter().map(item).collect()
        });
        ToolCallWithInput {
            call,
            raw_input,
            content,
            v2: true,
        }
    }

    /// Whether a diff is written from the input.
    #[cfg(test)]
    pub(crate) fn is_shared(&self) -> bool {
        self.content.is_some()
    }

    /// The SDK's tool call (its diff whole again) and the input, to check this one serialises
    /// as it does.
    #[cfg(test)]
    pub(crate) fn into_sdk(self) -> (C, Option<Arc<Value>>) {
        let ToolCallWithInput {
            mut call,
            raw_input,
            content,
            ..
        } = self;
        if let Some(content) = content {
            let text = input_text(raw_input.as_deref());
            call.put_content(
                content
                    .into_iter()
                    .map(|item| match item {
                        Content::Sdk(item) => *item,
                        Content::V2(_) => unreachable!("v1's form"),
                        Content::DiffOfInput { path } => {
                            acp::ToolCallContent::Diff(acp::Diff::new(path, text))
                        }
                    })
                    .collect(),
            );
        }
        (call, raw_input)
    }
}

impl<C: serde::Serialize> serde::Serialize for ToolCallWithInput<C> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = input_text(self.raw_input.as_deref());
        let content = self.content.as_ref().map(|content| {
            content
                .iter()
                .map(|item| match item {
                    Content::Sdk(item) => ContentJson::Sdk(item),
                    Content::V2(item) => ContentJson::V2(item),
                    Content::DiffOfInput { path } if self.v2 => {
                        ContentJson::V2Diff(super::file_changes::AddedFile::new(path, text))
                    }
                    Content::DiffOfInput { path } => ContentJson::Diff(DiffJson {
                        kind: "diff",
                        path,
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
    V2(&'a Value),
    V2Diff(super::file_changes::AddedFile<'a>),
}

/// An `acp::Diff` without `oldText` as the SDK writes it (`type` first).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct DiffJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    path: &'a PathBuf,
    new_text: &'a str,
}

impl CallContent for acp::ToolCall {
    fn put_content(&mut self, content: Vec<acp::ToolCallContent>) {
        self.content = content;
    }
}

/// A `session/update` notification's params for a new tool call; serialises to the JSON of
/// `acp::SessionNotification` with `acp::SessionUpdate::ToolCall`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolCallNotification {
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
    /// ACP v2's form of the same (`tool_call_update`, v2's diffs): what a v2 editor is sent.
    pub(crate) fn v2(session_id: &str, mut call: ToolCall) -> Self {
        let raw_input = call.raw_input.take().map(Arc::new);
        let content = std::mem::take(&mut call.content);
        ToolCallNotification {
            session_id: session_id.to_owned().into(),
            update: TaggedToolCall {
                session_update: "tool_call_update",
                call: ToolCallWithInput::new_v2(
                    to_proto::tool_call(call),
                    Some(content),
                    raw_input,
                ),
            },
        }
    }

    pub(crate) fn new(session_id: &str, mut call: ToolCall) -> Self {
        let raw_input = call.raw_input.take().map(Arc::new);
        let content = std::mem::take(&mut call.content);
        ToolCallNotification {
            session_id: session_id.to_owned().into(),
            update: TaggedToolCall {
                session_update: "tool_call",
                call: ToolCallWithInput::new(to_proto::tool_call(call), Some(content), raw_input),
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

/// A `session/update` notification's params for a tool call update whose `rawOutput` has a
/// value held out of it; serialises to the JSON of `acp::SessionNotification` with
/// `acp::SessionUpdate::ToolCallUpdate`, key for key in the same order.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolCallUpdateNotification {
    session_id: acp::SessionId,
    update: TaggedToolCallUpdate,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct TaggedToolCallUpdate {
    session_update: &'static str,
    #[serde(flatten)]
    update: UpdateWithShownOutput,
}

/// The SDK's update without `rawOutput` and `_meta` (its last two keys), and those two.
struct UpdateWithShownOutput {
    update: acp::ToolCallUpdate,
    raw_output: Option<serde_json::Map<String, Value>>,
    /// The key held out of `raw_output` and where its text is in the first content item.
    shown: Option<Box<crate::domain::ShownOutput>>,
    meta: Option<acp::Meta>,
}

impl ToolCallUpdateNotification {
    /// The update; only one with [`ToolCallUpdate::shown_output`] needs this (any other is the
    /// SDK's own).
    pub(crate) fn new(session_id: &str, mut update: ToolCallUpdate) -> Self {
        if update.shown_output().is_none() {
            update.copy_shown_output();
        }
        let shown = update.raw_output_shown.take();
        let raw_output = match update.raw_output.take() {
            None if shown.is_some() => Some(serde_json::Map::new()),
            raw_output => raw_output,
        };
        let mut update = to_proto::tool_call_update(update);
        let meta = update.meta.take();
        ToolCallUpdateNotification {
            session_id: session_id.to_owned().into(),
            update: TaggedToolCallUpdate {
                session_update: "tool_call_update",
                update: UpdateWithShownOutput {
                    update,
                    raw_output,
                    shown,
                    meta,
                },
            },
        }
    }
}

impl UpdateWithShownOutput {
    /// The held-out value: the first content item's text at the recorded place.
    fn shown_text(&self, range: std::ops::Range<usize>) -> &str {
        let first = self.update.fields.content.as_deref().and_then(<[_]>::first);
        match first {
            Some(acp::ToolCallContent::Content(acp::Content {
                content: acp::ContentBlock::Text(text),
                ..
            })) => text.text.get(range).unwrap_or_default(),
            _ => "",
        }
    }
}

impl serde::Serialize for UpdateWithShownOutput {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        struct Json<'a> {
            #[serde(flatten)]
            update: &'a acp::ToolCallUpdate,
            #[serde(rename = "rawOutput", skip_serializing_if = "Option::is_none")]
            raw_output: Option<RawOutputJson<'a>>,
            #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
            meta: Option<&'a acp::Meta>,
        }
        Json {
            update: &self.update,
            raw_output: self.raw_output.as_ref().map(|map| RawOutputJson {
                map,
                shown: self
                    .shown
                    .as_ref()
                    .map(|shown| (shown.key.as_str(), self.shown_text(shown.range.clone()))),
            }),
            meta: self.meta.as_ref(),
        }
        .serialize(serializer)
    }
}

/// A JSON object: `map` with a key's value set to a text (`shown`), in `map`'s order (the key
/// keeps its place; a key `map` lacks comes last, where inserting it would put it).
struct RawOutputJson<'a> {
    map: &'a serde_json::Map<String, Value>,
    shown: Option<(&'a str, &'a str)>,
}

impl serde::Serialize for RawOutputJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Some((shown_key, text)) = self.shown else {
            return self.map.serialize(serializer);
        };
        let present = self.map.contains_key(shown_key);
        let mut map = serializer.serialize_map(Some(self.map.len() + usize::from(!present)))?;
        for (key, value) in self.map {
            if key == shown_key {
                map.serialize_entry(key, text)?;
            } else {
                map.serialize_entry(key, value)?;
            }
        }
        if !present {
            map.serialize_entry(shown_key, text)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::INPUT_TEXT_SHARED_BYTES;
    use serde_json::json;

    /// A Write's tool call as the translation makes it (a diff of the input when the file is long).
    fn write_call(text: &str) -> ToolCall {
        let input = json!({"file_path": "/w/a.txt", "content": text});
        let mut call = crate::translate::tool_call_without_input(
            "Write",
            "toolu_1",
            &input,
            "/w".as_ref(),
            None,
        );
        call.raw_input = Some(input);
        call.parent_tool_call = Some("toolu_task".into());
        call
    }

    #[test]
    fn a_tool_call_notification_is_the_sdks_and_a_long_writes_text_is_held_once() {
        let long = "x\"é\n".repeat(INPUT_TEXT_SHARED_BYTES / 4);
        for (text, shared) in [("short\n", false), (long.as_str(), true)] {
            let ours = ToolCallNotification::new("s1", write_call(text));
            assert_eq!(ours.update.call.is_shared(), shared);
            let json = serde_json::to_value(&ours).unwrap();
            let sdk =
                serde_json::to_value(ToolCallNotification::new("s1", write_call(text)).into_sdk())
                    .unwrap();
            assert!(
                json == sdk,
                "differs from the SDK's JSON ({} bytes)",
                text.len()
            );
            assert_eq!(json["update"]["content"][0]["newText"], text);
            assert_eq!(json["update"]["content"][0]["path"], "/w/a.txt");
            assert_eq!(json["update"]["rawInput"]["content"], text);
        }
    }

    /// A command's long output held once: our JSON is the SDK's, byte for byte, whichever keys
    /// `rawOutput` has around the held-out one and whether `_meta` follows.
    #[test]
    fn a_tool_call_update_with_a_shown_output_is_the_sdks_byte_for_byte() {
        use crate::domain::{ShownOutput, ToolStatus};
        let output = "a \"quoted\" é ``ticks``\n".repeat(5_000);
        let fenced = format!("```\n{output}```");
        for (key, job) in [("stdout", None), ("stderr", Some("b1")), ("zzz", None)] {
            // claude's order, kept: the held-out key stays in its place.
            let mut raw =
                json!({"stdout": "", "stderr": "", "interrupted": false, "isImage": false})
                    .as_object()
                    .unwrap()
                    .clone();
            if let Some(held) = raw.get_mut(key) {
                *held = Value::Null;
            }
            let update = ToolCallUpdate {
                id: "toolu_1".into(),
                status: Some(ToolStatus::Completed),
                content: Some(vec![ToolContent::Text {
                    text: fenced.clone(),
                }]),
                raw_output: Some(raw),
                raw_output_shown: Some(Box::new(ShownOutput {
                    key: key.into(),
                    range: 4..4 + output.len(),
                })),
                async_task_id: job.map(str::to_owned),
                ..ToolCallUpdate::default()
            };
            let ours =
                serde_json::to_string(&ToolCallUpdateNotification::new("s1", update.clone()))
                    .unwrap();
            let sdk = serde_json::to_string(&acp::SessionNotification::new(
                "s1".to_owned(),
                acp::SessionUpdate::ToolCallUpdate(to_proto::tool_call_update(update)),
            ))
            .unwrap();
            assert!(
                ours == sdk,
                "differs from the SDK's JSON (rawOutput's {key})"
            );
            let json: Value = serde_json::from_str(&ours).unwrap();
            assert_eq!(json["update"]["rawOutput"][key], output.as_str());
            assert_eq!(
                json["update"]["content"][0]["content"]["text"],
                fenced.as_str()
            );
        }
    }

    /// On the SDK's own paths (no transport of ours) a diff of the input is the input's text.
    #[test]
    fn the_sdks_own_tool_call_has_the_diff_of_the_input_whole() {
        let long = "y".repeat(INPUT_TEXT_SHARED_BYTES);
        let call = write_call(&long);
        assert!(matches!(
            call.content.as_slice(),
            [ToolContent::DiffOfInput { .. }]
        ));
        let sdk = serde_json::to_value(to_proto::tool_call(call)).unwrap();
        assert_eq!(sdk["content"][0]["newText"], long.as_str());
    }
}
