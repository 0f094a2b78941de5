//! The editor as the session side sees it (`EditorClient`), over the SDK connection.

use std::sync::{Arc, OnceLock};

use agent_client_protocol::Client;
use agent_client_protocol::v1::{ConnectionTo, schema as acp};
use async_trait::async_trait;

use super::to_proto;
use crate::domain::{EditorClient, EditorError, PermissionAsk, PermissionOutcome, SessionUpdate};

/// The connection to the editor, and what it declared at `initialize`.
#[derive(Default)]
pub struct AcpEditor {
    connection: OnceLock<ConnectionTo<Client>>,
    capabilities: OnceLock<acp::ClientCapabilities>,
}

impl AcpEditor {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Called from every handler: the SDK hands out the connection there, not before.
    pub fn attach(&self, cx: &ConnectionTo<Client>) {
        if self.connection.get().is_none() {
            let _ = self.connection.set(cx.clone());
        }
    }

    pub fn set_capabilities(&self, caps: acp::ClientCapabilities) {
        let _ = self.capabilities.set(caps);
    }

    fn connection(&self) -> Result<&ConnectionTo<Client>, EditorError> {
        self.connection.get().ok_or(EditorError::Closed)
    }
}

#[async_trait]
impl EditorClient for AcpEditor {
    fn session_update(&self, session_id: &str, update: SessionUpdate) {
        let Ok(cx) = self.connection() else { return };
        let note =
            acp::SessionNotification::new(session_id.to_owned(), to_proto::session_update(update));
        if let Err(e) = cx.send_notification(note) {
            tracing::debug!("session/update not sent: {e}");
        }
    }

    async fn request_permission(
        &self,
        ask: PermissionAsk,
    ) -> Result<PermissionOutcome, EditorError> {
        let cx = self.connection()?.clone();
        let request = acp::RequestPermissionRequest::new(
            ask.session_id,
            to_proto::tool_call_update(ask.tool_call),
            ask.options
                .into_iter()
                .map(to_proto::permission_option)
                .collect(),
        );
        // Dropping this future (a cancelled turn, a withdrawn ask) sends `$/cancel_request` to the editor.
        let response = cx.send_request(request).block_task().await.map_err(|e| {
            if e.code == agent_client_protocol::ErrorCode::PARSE_ERROR
                || e.code == agent_client_protocol::ErrorCode::INVALID_PARAMS
            {
                EditorError::Malformed(e.message)
            } else {
                EditorError::Rejected(e.message)
            }
        })?;
        Ok(match response.outcome {
            acp::RequestPermissionOutcome::Selected(s) => PermissionOutcome::Selected {
                option_id: s.option_id.0.to_string(),
            },
            acp::RequestPermissionOutcome::Cancelled => PermissionOutcome::Cancelled,
            _ => {
                return Err(EditorError::Malformed(
                    "an unknown permission outcome".into(),
                ));
            }
        })
    }

    fn supports_elicitation(&self) -> bool {
        self.capabilities
            .get()
            .is_some_and(|c| c.elicitation.as_ref().is_some_and(|e| e.form.is_some()))
    }
}
