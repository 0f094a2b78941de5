//! MCP over ACP, the editor's end: one `mcp/message` request to an MCP server the editor hosts
//! (`mcpServers` of type `acp`), whose notifications meanwhile the transport routes to the
//! request's waiter (`transport::McpRoutes`). Wire shapes: the pinned schema's
//! `MessageMcpRequest`, `MessageMcpResponse` and `MessageMcpNotification`, the same in schema 1.20.

use agent_client_protocol::v1::schema as acp;
use tokio::sync::mpsc;

use super::client::AcpEditor;
use crate::domain::{EditorError, McpRelayNotification, McpRelayOutcome, McpRelayRequest};

impl AcpEditor {
    /// Sends one `mcp/message` request and reads its answer: the server's result or its MCP
    /// error; an ACP error (no such server, a failed binding) is the editor's rejection.
    pub(super) async fn relay_mcp(
        &self,
        request: McpRelayRequest,
        notifications: mpsc::Sender<McpRelayNotification>,
    ) -> Result<McpRelayOutcome, EditorError> {
        let key = (request.server_id.clone(), request.request_id.clone());
        let _route = self.mcp_routes.open(key, notifications);
        let message =
            acp::MessageMcpRequest::new(request.server_id, request.request_id, request.method)
                .params(request.params);
        Ok(match self.request(message).await? {
            acp::MessageMcpResponse::Result { result, .. } => McpRelayOutcome::Result(result),
            acp::MessageMcpResponse::Error { error, .. } => McpRelayOutcome::Error(
                serde_json::to_value(error).map_err(|e| EditorError::Malformed(e.to_string()))?,
            ),
            _ => {
                return Err(EditorError::Malformed(
                    "an unknown mcp/message outcome".into(),
                ));
            }
        })
    }
}
