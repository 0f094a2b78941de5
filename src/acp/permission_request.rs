//! `session/request_permission`'s params as the SDK's type serialises them, with the tool call's
//! `rawInput` shared with the `can_use_tool` it comes from instead of copied into the SDK's type
//! (a Write's input holds the whole file).

use std::sync::Arc;

use agent_client_protocol::v1::schema as acp;
use serde_json::Value;

use super::to_proto;
use crate::domain::PermissionAsk;

/// The params of one permission request; serialises to the JSON of `acp::RequestPermissionRequest`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PermissionRequest {
    session_id: acp::SessionId,
    tool_call: ToolCallWithInput,
    options: Vec<acp::PermissionOption>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolCallWithInput {
    #[serde(flatten)]
    call: acp::ToolCallUpdate,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw_input: Option<Arc<Value>>,
}

impl PermissionRequest {
    pub(super) fn new(mut ask: PermissionAsk) -> Self {
        let raw_input = ask.tool_call.raw_input.take();
        PermissionRequest {
            session_id: ask.session_id.into(),
            tool_call: ToolCallWithInput {
                call: to_proto::tool_call_update(ask.tool_call),
                raw_input,
            },
            options: ask
                .options
                .into_iter()
                .map(to_proto::permission_option)
                .collect(),
        }
    }

    /// The SDK's type, for the SDK's own path (no transport of ours).
    pub(super) fn into_sdk(self) -> acp::RequestPermissionRequest {
        let mut call = self.tool_call.call;
        call.fields.raw_input = self.tool_call.raw_input.map(Arc::unwrap_or_clone);
        acp::RequestPermissionRequest::new(self.session_id, call, self.options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{
        PermissionOption, PermissionOptionKind, ToolCallUpdate, ToolContent, ToolKind, ToolLocation,
    };
    use serde_json::json;

    #[test]
    fn serialises_as_the_sdks_request_would() {
        let input = json!({"file_path": "/w/a.txt", "content": "hello\n"});
        let ask = PermissionAsk {
            session_id: "s1".into(),
            tool_call: ToolCallUpdate {
                id: "toolu_1".into(),
                title: Some("Write a.txt".into()),
                kind: Some(ToolKind::Edit),
                locations: Some(vec![ToolLocation {
                    path: "/w/a.txt".into(),
                    line: None,
                }]),
                content: Some(vec![ToolContent::Diff {
                    path: "/w/a.txt".into(),
                    old_text: None,
                    new_text: "hello\n".into(),
                }]),
                raw_input: Some(Arc::new(input.clone())),
                ..Default::default()
            },
            options: vec![PermissionOption {
                id: "allow_once".into(),
                name: "Allow".into(),
                kind: PermissionOptionKind::AllowOnce,
            }],
        };
        let ours = PermissionRequest::new(ask.clone());
        let sdk = ours.into_sdk();
        let ours = serde_json::to_value(PermissionRequest::new(ask)).unwrap();
        assert_eq!(ours, serde_json::to_value(&sdk).unwrap());
        assert_eq!(ours["toolCall"]["rawInput"], input);
    }
}
