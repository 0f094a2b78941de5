//! The form an ACP v1 editor is written to in: the SDK's forms, with the streamed reply's
//! chunks written straight into their line and a tool call's big input or output serialised
//! once, while written, instead of copied into the SDK's types.

use agent_client_protocol::v1::schema as acp;

use super::chunk_line::text_chunk_line;
use crate::acp::shared::client::EditorForm;
use crate::acp::shared::permission_request::{PermissionRequest, Version};
use crate::acp::shared::to_proto;
use crate::acp::shared::tool_call_json::{ToolCallNotification, ToolCallUpdateNotification};
use crate::acp::transport::{Notification, Outbound};
use crate::domain::{EditorError, PermissionAsk, PermissionOutcome, SessionUpdate};

/// v1's form; it keeps nothing per connection but what `initialize` declared.
pub(crate) struct V1Form {
    /// Chunks carry their `messageId` (1.20's v1 has it): to an editor that takes cursors,
    /// which are anchored by it. The others get chunks as before, without.
    message_ids: bool,
}

/// The form of an editor that negotiated v1, or sent no `initialize`.
pub(crate) fn form() -> Box<dyn EditorForm> {
    Box::new(V1Form { message_ids: false })
}

/// The form of a v1 editor that declared `session.cursors`.
pub(crate) fn form_with_message_ids() -> Box<dyn EditorForm> {
    Box::new(V1Form { message_ids: true })
}

impl EditorForm for V1Form {
    fn session_update(
        &self,
        outbound: &Outbound,
        session_id: &str,
        update: SessionUpdate,
        may_be_large: bool,
    ) {
        // The streamed reply's deltas: written straight into their line, the same bytes.
        if let Some(line) = text_chunk_line(session_id, &update, self.message_ids) {
            outbound.push_line(line);
            return;
        }
        if let SessionUpdate::ToolCall(call) = update {
            // Its input shared, not copied into the SDK's type (a Write's is the whole file).
            let note = ToolCallNotification::new(session_id, call);
            outbound.push_json(Notification::new("session/update", note), true);
            return;
        }
        let update = match update {
            // A command's long output, written into the card and into `rawOutput` from the one
            // copy held.
            SessionUpdate::ToolCallUpdate(update) if update.shown_output().is_some() => {
                let note = ToolCallUpdateNotification::new(session_id, update);
                outbound.push_json(Notification::new("session/update", note), true);
                return;
            }
            other => other,
        };
        let id = match &update {
            SessionUpdate::UserMessageChunk { message_id, .. }
            | SessionUpdate::AgentMessageChunk { message_id, .. }
            | SessionUpdate::AgentThoughtChunk { message_id, .. } => {
                message_id.clone().filter(|_| self.message_ids)
            }
            _ => None,
        };
        let mut update = to_proto::session_update(update);
        if let (Some(id), acp::SessionUpdate::UserMessageChunk(chunk))
        | (Some(id), acp::SessionUpdate::AgentMessageChunk(chunk))
        | (Some(id), acp::SessionUpdate::AgentThoughtChunk(chunk)) = (id, &mut update)
        {
            chunk.message_id = Some(id.into());
        }
        self.sdk_update(outbound, session_id, update, may_be_large);
    }

    fn sdk_update(
        &self,
        outbound: &Outbound,
        session_id: &str,
        update: acp::SessionUpdate,
        may_be_large: bool,
    ) {
        let note = acp::SessionNotification::new(session_id.to_owned(), update);
        outbound.push_json(Notification::new("session/update", note), may_be_large);
    }

    fn permission_request(&self, ask: PermissionAsk) -> PermissionRequest {
        PermissionRequest::new(ask, Version::V1)
    }

    fn permission_outcome(
        &self,
        answer: serde_json::Value,
    ) -> Result<PermissionOutcome, EditorError> {
        let response = serde_json::from_value::<acp::RequestPermissionResponse>(answer)
            .map_err(|e| EditorError::Malformed(e.to_string()))?;
        match response.outcome {
            acp::RequestPermissionOutcome::Selected(s) => Ok(PermissionOutcome::Selected {
                option_id: s.option_id.0.to_string(),
            }),
            acp::RequestPermissionOutcome::Cancelled => Ok(PermissionOutcome::Cancelled),
            _ => Err(EditorError::Malformed(
                "an unknown permission outcome".into(),
            )),
        }
    }
}
