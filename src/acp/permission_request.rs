//! `session/request_permission`'s params as the SDK's type serialises them, with the tool call's
//! `rawInput` shared with the `can_use_tool` it comes from and a Write's diff written from it
//! (see [`super::tool_call_json`]) instead of copied into the SDK's type.

use agent_client_protocol::v1::schema as acp;

use super::to_proto;
use super::tool_call_json::{CallContent, ToolCallWithInput};
use crate::domain::PermissionAsk;

/// The params of one permission request; serialises to the JSON of `acp::RequestPermissionRequest`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PermissionRequest {
    session_id: acp::SessionId,
    tool_call: ToolCallWithInput<acp::ToolCallUpdate>,
    options: Vec<acp::PermissionOption>,
}

impl PermissionRequest {
    pub(super) fn new(mut ask: PermissionAsk) -> Self {
        let raw_input = ask.tool_call.raw_input.take();
        let content = ask.tool_call.content.take();
        PermissionRequest {
            session_id: ask.session_id.into(),
            tool_call: ToolCallWithInput::new(
                to_proto::tool_call_update(ask.tool_call),
                content,
                raw_input,
            ),
            options: ask
                .options
                .into_iter()
                .map(to_proto::permission_option)
                .collect(),
        }
    }

    /// The SDK's type, to check this one serialises as it does.
    #[cfg(test)]
    pub(super) fn into_sdk(self) -> acp::RequestPermissionRequest {
        let (mut call, raw_input) = self.tool_call.into_sdk();
        call.fields.raw_input = raw_input.map(std::sync::Arc::unwrap_or_clone);
        acp::RequestPermissionRequest::new(self.session_id, call, self.options)
    }
}

/// ACP v2's permission request: its own title and description, and the tool call in v2's form
/// as its subject, serialised once while written as [`PermissionRequest`] is.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct V2PermissionRequest {
    session_id: acp::SessionId,
    title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    subject: Subject,
    options: Vec<acp::PermissionOption>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Subject {
    #[serde(rename = "type")]
    kind: &'static str,
    tool_call: ToolCallWithInput<acp::ToolCallUpdate>,
}

impl V2PermissionRequest {
    /// `description`: claude's reason for asking, where it gave one.
    pub(super) fn new(mut ask: PermissionAsk, description: Option<String>) -> Self {
        let raw_input = ask.tool_call.raw_input.take();
        let content = ask.tool_call.content.take();
        let title = super::v2::convert::permission_title(ask.tool_call.title.as_deref());
        V2PermissionRequest {
            session_id: ask.session_id.into(),
            title,
            description,
            subject: Subject {
                kind: "tool_call",
                tool_call: ToolCallWithInput::new_v2(
                    to_proto::tool_call_update(ask.tool_call),
                    content,
                    raw_input,
                ),
            },
            options: ask
                .options
                .into_iter()
                .map(to_proto::permission_option)
                .collect(),
        }
    }
}

impl CallContent for acp::ToolCallUpdate {
    fn put_content(&mut self, content: Vec<acp::ToolCallContent>) {
        self.fields.content = Some(content);
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
            let ours = PermissionRequest::new(write_ask(text));
            assert_eq!(ours.tool_call.is_shared(), shared, "{} bytes", text.len());
            let json = serde_json::to_value(&ours).unwrap();
            let sdk =
                serde_json::to_value(PermissionRequest::new(write_ask(text)).into_sdk()).unwrap();
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
            let request = V2PermissionRequest::new(write_ask(text), Some("outside".into()));
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
