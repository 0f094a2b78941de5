//! The editor's `mcp/message` notifications (an MCP server the editor hosts, speaking for one of
//! our `mcp/message` requests still active), taken off before the SDK like the answers to our
//! requests, and for the same reason: in the editor's order. A notification the server sent
//! before its answer then reaches the request's waiter before the answer does, where the SDK's
//! dispatch would run it at its own time.

use std::sync::Mutex;

use agent_client_protocol::v1::schema as acp;
use serde::Deserialize;
use tokio::sync::mpsc;

use crate::domain::McpRelayNotification;

const METHOD: &str = "mcp/message";

/// `(serverId, requestId)` of an active request.
pub(crate) type RouteKey = (String, String);

/// Where one active request's notifications go.
type Route = (RouteKey, mpsc::Sender<McpRelayNotification>);

/// The `mcp/message` requests in flight, by server and inner request id, each with where its
/// notifications go: a short list (claude's calls in flight), searched in order. Their answers
/// do not come this way: they are the pending requests'.
#[derive(Default)]
pub(crate) struct McpRoutes {
    active: Mutex<Vec<Route>>,
}

/// Removes its request's route when the request is over (answered, withdrawn or failed).
pub(crate) struct RouteGuard<'a> {
    routes: &'a McpRoutes,
    key: RouteKey,
}

impl Drop for RouteGuard<'_> {
    fn drop(&mut self) {
        self.routes.lock().retain(|(key, _)| *key != self.key);
    }
}

#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    id: Option<serde::de::IgnoredAny>,
    method: String,
    params: acp::MessageMcpNotification,
}

impl McpRoutes {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Route>> {
        self.active.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Routes the notifications of the request `key` to `waiter` until the guard is dropped.
    pub(crate) fn open(
        &self,
        key: RouteKey,
        waiter: mpsc::Sender<McpRelayNotification>,
    ) -> RouteGuard<'_> {
        self.lock().push((key.clone(), waiter));
        RouteGuard { routes: self, key }
    }

    /// Takes `line` if it is an `mcp/message` notification: handed to its request's waiter
    /// without waiting. One for no active request is dropped, as the binding says; one its
    /// waiter has no room for is dropped and logged. Any other line is left for the SDK.
    pub(crate) fn take_notification(&self, line: &str) -> bool {
        // Cheap test first: most lines never name the method.
        if memchr::memmem::find(line.as_bytes(), METHOD.as_bytes()).is_none() {
            return false;
        }
        let Ok(envelope) = serde_json::from_str::<Envelope>(line) else {
            return false;
        };
        if envelope.id.is_some() || envelope.method != METHOD {
            return false;
        }
        let note = envelope.params;
        let key = (note.server_id.0.to_string(), note.request_id.0.to_string());
        let waiter = {
            let active = self.lock();
            active
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, w)| w.clone())
        };
        let Some(waiter) = waiter else {
            tracing::info!(server = %key.0, request = %key.1, method = %note.method,
                "an mcp/message notification for no active request; dropped");
            return true;
        };
        let notification = McpRelayNotification {
            method: note.method,
            params: note.params,
        };
        if let Err(e) = waiter.try_send(notification) {
            tracing::info!(server = %key.0, request = %key.1,
                "an mcp/message notification could not be passed on ({e}); dropped");
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_notification_goes_to_its_request_s_waiter_and_other_lines_to_the_sdk() {
        let routes = McpRoutes::default();
        let (waiter, mut notes) = mpsc::channel(4);
        let key = ("srv".to_owned(), "r1".to_owned());
        let route = routes.open(key, waiter);
        let note = |request: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"mcp/message","params":{{"serverId":"srv","requestId":"{request}","method":"notifications/progress","params":{{"progress":1}}}}}}"#
            )
        };
        assert!(routes.take_notification(&note("r1")));
        let got = notes
            .try_recv()
            .expect("passed on at once, in the line's turn");
        assert_eq!(got.method, "notifications/progress");
        // For no active request: taken and dropped, never the SDK's.
        assert!(routes.take_notification(&note("r2")));
        assert!(notes.try_recv().is_err());
        // A request of the same method, and other lines, are the SDK's.
        let request = r#"{"jsonrpc":"2.0","id":3,"method":"mcp/message","params":{"serverId":"srv","requestId":"r1","method":"x"}}"#;
        assert!(!routes.take_notification(request));
        assert!(
            !routes.take_notification(r#"{"jsonrpc":"2.0","method":"session/cancel","params":{}}"#)
        );
        // Once the request is over, its notifications have nowhere to go.
        drop(route);
        assert!(routes.take_notification(&note("r1")));
        assert!(notes.try_recv().is_err());
    }
}
