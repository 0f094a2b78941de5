//! MCP over ACP, the editor's end: one `mcp/message` request to an MCP server the editor hosts
//! (`mcpServers` of type `acp`), and the `mcp/message` notifications its server sends for a
//! request still active, handed to whoever waits on that request. Wire shapes: the pinned
//! schema's `MessageMcpRequest`, `MessageMcpResponse` and `MessageMcpNotification`, the same in
//! schema 1.20.

use std::sync::Mutex;

use agent_client_protocol::v1::schema as acp;
use tokio::sync::mpsc;

use super::client::AcpEditor;
use crate::domain::{EditorError, McpRelayNotification, McpRelayOutcome, McpRelayRequest};

/// `(serverId, requestId)` of an active request.
type RouteKey = (String, String);

/// Where one active request's notifications go.
type Route = (RouteKey, mpsc::Sender<McpRelayNotification>);

/// The requests in flight, by server and inner request id, each with where its notifications
/// go: a short list (claude's calls in flight), searched in order. Answers do not come this
/// way: they are the transport's pending requests'.
#[derive(Default)]
pub(crate) struct McpRoutes {
    active: Mutex<Vec<Route>>,
}

impl McpRoutes {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Route>> {
        self.active.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn waiter(&self, key: &RouteKey) -> Option<mpsc::Sender<McpRelayNotification>> {
        let active = self.lock();
        active
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, w)| w.clone())
    }
}

/// Removes its request's route when the request is over (answered, withdrawn or failed).
struct RouteGuard<'a> {
    routes: &'a McpRoutes,
    key: RouteKey,
}

impl Drop for RouteGuard<'_> {
    fn drop(&mut self) {
        self.routes.lock().retain(|(key, _)| *key != self.key);
    }
}

impl AcpEditor {
    /// Sends one `mcp/message` request and reads its answer: the server's result or its MCP
    /// error; an ACP error (no such server, a failed binding) is the editor's rejection.
    pub(super) async fn relay_mcp(
        &self,
        request: McpRelayRequest,
        notifications: mpsc::Sender<McpRelayNotification>,
    ) -> Result<McpRelayOutcome, EditorError> {
        let key = (request.server_id.clone(), request.request_id.clone());
        self.mcp_routes.lock().push((key.clone(), notifications));
        let _route = RouteGuard {
            routes: &self.mcp_routes,
            key,
        };
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

    /// The editor's `mcp/message` notification: handed to its request's waiter without waiting
    /// (the SDK's dispatch loop runs this). One for no active request is dropped, as the binding
    /// says; one the waiter has no room for is dropped and logged.
    pub(crate) fn mcp_notification(&self, note: acp::MessageMcpNotification) {
        let key = (note.server_id.0.to_string(), note.request_id.0.to_string());
        let Some(waiter) = self.mcp_routes.waiter(&key) else {
            tracing::info!(server = %key.0, request = %key.1, method = %note.method,
                "an mcp/message notification for no active request; dropped");
            return;
        };
        let notification = McpRelayNotification {
            method: note.method,
            params: note.params,
        };
        if let Err(e) = waiter.try_send(notification) {
            tracing::info!(server = %key.0, request = %key.1,
                "an mcp/message notification could not be passed on ({e}); dropped");
        }
    }
}
