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
}
