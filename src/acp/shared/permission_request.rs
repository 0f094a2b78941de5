//! `session/request_permission`'s params, in v1's form (as the SDK's type serialises them) or
//! v2's, with the tool call's
//! `rawInput` shared with the `can_use_tool` it comes from and a Write's diff written from it
//! (see [`super::tool_call_json`]) instead of copied into the SDK's type.

use agent_client_protocol::v1::schema as acp;

use super::to_proto;
use super::tool_call_json::{CallContent, ToolCallWithInput};
use crate::domain::PermissionAsk;

/// Which version's form a permission request takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Version {
    /// `{sessionId, toolCall, options}`: the JSON of `acp::RequestPermissionRequest`.
    V1,
    /// `{sessionId, title, description?, subject: {type: "tool_call", toolCall}, options}`, the
    /// tool call in v2's form.
    V2,
}

/// The params of one permission request, in either version's form: the one builder of them.
pub(crate) struct PermissionRequest {
    session_id: acp::SessionId,
    tool_call: ToolCallWithInput<acp::ToolCallUpdate>,
    options: Vec<acp::PermissionOption>,
    /// v2's title and description (claude's reason for asking, where it gave one).
    v2: Option<(String, Option<String>)>,
}

impl PermissionRequest {
    pub(crate) fn new(mut ask: PermissionAsk, version: Version) -> Self {
        let raw_input = ask.tool_call.raw_input.take();
        let content = ask.tool_call.content.take();
        let v2 = (version == Version::V2).then(|| {
            let title = permission_title(ask.tool_call.title.as_deref());
            (title, ask.reason.take())
        });
        let call = to_proto::tool_call_update(ask.tool_call);
        let tool_call = match version {
            Version::V1 => ToolCallWithInput::new(call, content, raw_input),
            Version::V2 => ToolCallWithInput::new_v2(call, content, raw_input),
        };
        PermissionRequest {
            session_id: ask.session_id.into(),
            tool_call,
            options: ask
                .options
                .into_iter()
                .map(to_proto::permission_option)
                .collect(),
            v2,
        }
    }

    /// The SDK's type, to check a v1 request serialises as it does.
    #[cfg(test)]
    pub(crate) fn into_sdk(self) -> acp::RequestPermissionRequest {
        let (mut call, raw_input) = self.tool_call.into_sdk();
        call.fields.raw_input = raw_input.map(std::sync::Arc::unwrap_or_clone);
        acp::RequestPermissionRequest::new(self.session_id, call, self.options)
    }
}

impl serde::Serialize for PermissionRequest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("sessionId", &self.session_id)?;
        match &self.v2 {
            None => map.serialize_entry("toolCall", &self.tool_call)?,
            Some((title, description)) => {
                map.serialize_entry("title", title)?;
                if let Some(description) = description {
                    map.serialize_entry("description", description)?;
                }
                let subject = Subject {
                    kind: "tool_call",
                    tool_call: &self.tool_call,
                };
                map.serialize_entry("subject", &subject)?;
            }
        }
        map.serialize_entry("options", &self.options)?;
        map.end()
    }
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Subject<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    tool_call: &'a ToolCallWithInput<acp::ToolCallUpdate>,
}

impl CallContent for acp::ToolCallUpdate {
    fn put_content(&mut self, content: Vec<acp::ToolCallContent>) {
        self.fields.content = Some(content);
    }
}

/// A v2 permission request's title: the tool call's, as a question.
pub(crate) fn permission_title(title: Option<&str>) -> String {
    match title {
        Some(title) if !title.is_empty() => format!("Allow {title}?"),
        _ => "Allow this tool call?".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{
        PermissionOption, PermissionOptionKind, ToolCallUpdate, ToolContent, ToolKind,
    };
    use std::sync::Arc;

    use serde_json::json;

    fn write_ask(text: &str) -> PermissionAsk {
        let input = json!({"file_path": "/w/a.txt", "content": text});
        // The Write's diff as the translation makes it (of the input when the file is long).
        let call = crate::translate::tool_call_without_input(
            "Write",
            "toolu_1",
            &input,
            "/w".as_ref(),
            None,
        );
        let mut content = vec![ToolContent::Text {
            text: "before".into(),
        }];
        content.extend(call.content);
        PermissionAsk {
            session_id: "s1".into(),
            tool_call: ToolCallUpdate {
                id: "toolu_1".into(),
                title: Some(call.title),
                kind: Some(ToolKind::Edit),
                locations: Some(call.locations),
                content: Some(content),
                raw_input: Some(Arc::new(input)),
                ..Default::default()
            },
            options: vec![PermissionOption {
                id: "allow_once".into(),
                name: "Allow".into(),
                kind: PermissionOptionKind::AllowOnce,
            }],
            reason: None,
        }
    }

    #[test]
    fn serialises_as_the_sdks_request_would_and_a_long_files_text_is_held_once() {
        let long: String = "ab\"c\né€".repeat(64 * 1024 / 4);
        for (text, shared) in [("hello\n", false), (long.as_str(), true)] {
            let ours = PermissionRequest::new(write_ask(text), Version::V1);
            assert_eq!(ours.tool_call.is_shared(), shared, "{} bytes", text.len());
            let json = serde_json::to_value(&ours).unwrap();
            let sdk = serde_json::to_value(
                PermissionRequest::new(write_ask(text), Version::V1).into_sdk(),
            )
            .unwrap();
            assert!(
                json == sdk,
                "differs from the SDK's JSON ({} bytes)",
                text.len()
            );
            assert_eq!(json["toolCall"]["rawInput"]["content"], text);
            assert_eq!(json["toolCall"]["content"][0]["content"]["text"], "before");
            assert_eq!(json["toolCall"]["content"][1]["newText"], text);
            assert_eq!(json["toolCall"]["content"][1]["path"], "/w/a.txt");
        }
    }

    #[test]
    fn a_v2_request_has_v2s_title_and_the_tool_call_in_v2s_form_as_its_subject() {
        use agent_client_protocol::v2::schema as v2;
        let long = "x\n".repeat(crate::domain::INPUT_TEXT_SHARED_BYTES);
        for text in ["short\n", long.as_str()] {
            let mut ask = write_ask(text);
            ask.reason = Some("outside".into());
            let request = PermissionRequest::new(ask, Version::V2);
            let json = serde_json::to_value(&request).unwrap();
            let read: v2::RequestPermissionRequest = serde_json::from_value(json.clone())
                .unwrap_or_else(|e| panic!("{e}: {}", &json.to_string()[..300]));
            assert_eq!(read.title, "Allow Write a.txt?");
            assert_eq!(read.description.as_deref(), Some("outside"));
            let call = &json["subject"]["toolCall"];
            assert_eq!(json["subject"]["type"], "tool_call");
            assert_eq!(call["rawInput"]["content"], text);
            let diff = &call["content"][1];
            assert_eq!(
                diff["changes"][0]["operation"],
                "add",
                "{}",
                &diff.to_string()[..200]
            );
            let patch = diff["patch"]["text"].as_str().unwrap();
            assert!(patch.ends_with("+x\n") || patch.ends_with("+short\n"));
            assert_eq!(call["content"][0]["content"]["text"], "before");
        }
    }
}
