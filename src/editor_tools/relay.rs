//! The MCP servers the editor hosts itself (`mcpServers` of type `acp`), served to claude over its
//! control channel under their names, beside the editor tools' own server: each message claude
//! sends one is relayed to the editor as `mcp/message` and its answer back, with no process and
//! no port. The editor's end speaks MCP over ACP's stateless revision (2026-07-28: no handshake,
//! each request says who asks in its `_meta`); claude's client speaks the revision it connects
//! with, so its handshake is answered here from the server's `server/discover`, and its
//! `ping` and notifications never reach the editor (the binding has no place for them; a
//! cancel withdraws the request instead).

use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::claude::sdk_mcp::{self, McpMessage};
use crate::domain::{EditorClient, McpRelayNotification, McpRelayOutcome, McpRelayRequest};

/// How many of a server's notifications for one request wait to be passed on to claude.
const NOTIFICATIONS_WAITING: usize = 16;

/// The servers of one session (fixed at its start): their names for claude, their ids for the
/// editor, and what claude said of itself when it connected to each.
#[derive(Clone)]
pub(crate) struct EditorMcpServers {
    editor: Arc<dyn EditorClient>,
    servers: Arc<Vec<EditorMcpServer>>,
}

struct EditorMcpServer {
    name: String,
    server_id: String,
    /// claude's `initialize` params (its capabilities and info), sent with each request.
    client: Mutex<Option<Map<String, Value>>>,
}

/// What to do with one message claude sends a server.
pub(crate) enum Relay {
    /// Answered here: the JSON-RPC reply.
    Now(Value),
    /// Asked of the editor: run in a task, whose answer goes back to claude.
    Editor(RelayCall),
    /// claude cancelled its request of this id (`notifications/cancelled`), answered with the
    /// reply: the call in flight is withdrawn from the editor.
    Cancel { rpc_id: Value, reply: Value },
}

/// One request on its way to the editor.
pub(crate) struct RelayCall {
    editor: Arc<dyn EditorClient>,
    request: McpRelayRequest,
    rpc_id: Value,
    server: String,
    /// For `initialize`, relayed as `server/discover`: the version claude asked for.
    initialize: Option<String>,
}

impl EditorMcpServers {
    pub(crate) fn new(editor: Arc<dyn EditorClient>, servers: Vec<(String, String)>) -> Self {
        let servers = servers
            .into_iter()
            .map(|(name, server_id)| EditorMcpServer {
                name,
                server_id,
                client: Mutex::new(None),
            })
            .collect();
        Self {
            editor,
            servers: Arc::new(servers),
        }
    }

    /// The names claude is told of (`sdkMcpServers`).
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.servers.iter().map(|s| s.name.as_str())
    }

    /// What to do with `message`, sent to the server named `message.server_name`.
    pub(crate) fn relay(&self, message: &McpMessage) -> Option<Relay> {
        let server = self
            .servers
            .iter()
            .find(|s| s.name == message.server_name)?;
        let Some(rpc_id) = message.id().cloned() else {
            // A notification: claude waits for an answer all the same, an empty result.
            let reply = sdk_mcp::rpc_result(None, sdk_mcp::empty_object());
            return Some(match message.method() {
                "notifications/cancelled" => match message.params().get("requestId") {
                    Some(id) => Relay::Cancel {
                        rpc_id: id.clone(),
                        reply,
                    },
                    None => Relay::Now(reply),
                },
                _ => Relay::Now(reply),
            });
        };
        let params = message.params().as_object().cloned();
        let (method, initialize) = match message.method() {
            "ping" => {
                return Some(Relay::Now(sdk_mcp::rpc_result(
                    Some(rpc_id),
                    sdk_mcp::empty_object(),
                )));
            }
            "" => {
                return Some(Relay::Now(sdk_mcp::rpc_error(
                    rpc_id,
                    -32600,
                    "Invalid request: no method".into(),
                )));
            }
            "initialize" => {
                let version = message
                    .params()
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .unwrap_or(sdk_mcp::MCP_PROTOCOL_VERSION)
                    .to_owned();
                *server.client.lock().unwrap_or_else(|p| p.into_inner()) = params.clone();
                ("server/discover".to_owned(), Some(version))
            }
            other => (other.to_owned(), None),
        };
        let client = server
            .client
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .unwrap_or_default();
        let request_params = match initialize {
            // `server/discover` asks nothing of its own.
            Some(_) => None,
            None => params,
        };
        let params = sdk_mcp::with_request_meta(
            request_params,
            client.get("capabilities").unwrap_or(&Value::Null),
            client.get("clientInfo"),
        );
        Some(Relay::Editor(RelayCall {
            editor: self.editor.clone(),
            request: McpRelayRequest {
                server_id: server.server_id.clone(),
                request_id: format!("claude-acp:{}", uuid::Uuid::new_v4()),
                method,
                params: Some(params),
            },
            rpc_id,
            server: server.name.clone(),
            initialize,
        }))
    }
}

impl RelayCall {
    /// The id of claude's request, for a cancel to find it.
    pub(crate) fn rpc_id(&self) -> &Value {
        &self.rpc_id
    }

    /// Asks the editor and returns claude's reply; each notification the server sends meanwhile
    /// goes to `notify` first, in order, as a JSON-RPC notification.
    pub(crate) async fn run(self, notify: impl Fn(Value)) -> Value {
        let (sender, mut notifications) = mpsc::channel(NOTIFICATIONS_WAITING);
        let asked = self.editor.mcp_message(self.request, sender);
        tokio::pin!(asked);
        let pass_on =
            |n: McpRelayNotification| notify(sdk_mcp::rpc_notification(&n.method, n.params));
        let outcome = loop {
            tokio::select! {
                biased;
                Some(n) = notifications.recv() => pass_on(n),
                outcome = &mut asked => break outcome,
            }
        };
        while let Ok(n) = notifications.try_recv() {
            pass_on(n);
        }
        let id = self.rpc_id;
        match (outcome, self.initialize) {
            (Ok(McpRelayOutcome::Result(result)), Some(version)) => sdk_mcp::rpc_result(
                Some(id),
                sdk_mcp::initialize_from_discover(&version, Some(&result), &self.server),
            ),
            // A server that answers no `server/discover` is taken to offer tools.
            (Ok(McpRelayOutcome::Error(error)), Some(version)) if error["code"] == -32601 => {
                sdk_mcp::rpc_result(
                    Some(id),
                    sdk_mcp::initialize_from_discover(&version, None, &self.server),
                )
            }
            (Ok(McpRelayOutcome::Result(result)), None) => sdk_mcp::rpc_result(Some(id), result),
            (Ok(McpRelayOutcome::Error(error)), _) => sdk_mcp::rpc_error_object(id, error),
            (Err(e), _) => sdk_mcp::rpc_error(
                id,
                -32603,
                format!(
                    "the editor's MCP server {} did not answer: {e}",
                    self.server
                ),
            ),
        }
    }
}

#[cfg(test)]
mod tests;
