//! The MCP server of the editor tools, which claude reaches over its own control channel
//! (`mcp_message`) and knows as `acp`: the editor-served file tools ([`super::fs`]) and Bash in
//! the editor's terminal ([`super::terminal`]) behind one server name, each present when its
//! setting says so.

use serde_json::Value;

use super::fs::{self as editor_fs, EditorFiles};
use super::terminal::{self as editor_terminal, EditorTerminal};
use crate::claude::sdk_mcp::{self, McpContent, McpMessage, McpTool};

use crate::domain::tool_names::SERVER_NAME;

/// The tools of one claude's `acp` server (fixed at its start).
#[derive(Clone, Default)]
pub(crate) struct ToolServer {
    pub(crate) files: Option<EditorFiles>,
    pub(crate) terminal: Option<EditorTerminal>,
    /// Tools a rule takes away whole (`disallowedTools: ["Read"]`): not offered, as claude
    /// offers no disallowed tool of its own.
    pub(crate) withheld: Vec<String>,
}

impl ToolServer {
    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_none() && self.terminal.is_none()
    }

    /// The tools this server offers, by name.
    pub(crate) fn tools(&self) -> Vec<McpTool> {
        let mut tools = Vec::new();
        if self.files.is_some() {
            tools.extend(editor_fs::tool_definitions());
        }
        if let Some(terminal) = &self.terminal {
            tools.extend(terminal.tool_definitions());
        }
        tools.retain(|tool| !self.withheld.contains(&tool.name));
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        tools
    }

    /// The JSON-RPC reply to one message claude sends this server.
    pub(crate) async fn handle(&self, message: &McpMessage) -> Value {
        if let Some(reply) = self.answer_at_once(message) {
            return reply;
        }
        let id = message.id().cloned().unwrap_or_default();
        sdk_mcp::rpc_result(Some(id), self.call(message.params()).await)
    }

    /// The reply to every message but a tool call, which needs nothing but this server's tools:
    /// the handshake claude does at its start (`initialize`, `notifications/initialized`,
    /// `tools/list`) is answered on the spot, as claude waits on each answer before its first
    /// request to the model.
    pub(crate) fn answer_at_once(&self, message: &McpMessage) -> Option<Value> {
        let Some(id) = message.id().cloned() else {
            // A notification: the pinned claude still waits for an answer, an empty result.
            return Some(sdk_mcp::rpc_result(None, sdk_mcp::empty_object()));
        };
        let params = message.params();
        let result = match message.method() {
            "initialize" => sdk_mcp::initialize_result(
                params
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .unwrap_or(sdk_mcp::MCP_PROTOCOL_VERSION),
                SERVER_NAME,
                env!("CARGO_PKG_VERSION"),
            ),
            "tools/list" => sdk_mcp::tools_list_result(self.tools()),
            "tools/call" => return None,
            "ping" => sdk_mcp::empty_object(),
            other => {
                return Some(sdk_mcp::rpc_error(
                    id,
                    -32601,
                    format!("Method not found: {other}"),
                ));
            }
        };
        Some(sdk_mcp::rpc_result(Some(id), result))
    }

    async fn call(&self, params: &Value) -> Value {
        let (name, input, tool_use_id) = sdk_mcp::tool_call_parts(params);
        let withheld = self.withheld.iter().any(|w| w == name);
        match (&self.terminal, &self.files) {
            _ if withheld => sdk_mcp::call_result(
                vec![McpContent::Text {
                    text: format!("No such tool available: {name}"),
                }],
                true,
            ),
            (Some(terminal), _) if editor_terminal::TOOL_NAMES.contains(&name) => {
                terminal.call(name, input, tool_use_id).await
            }
            (_, Some(files)) => files.call(params).await,
            _ => sdk_mcp::call_result(
                vec![McpContent::Text {
                    text: format!("No such tool available: {name}"),
                }],
                true,
            ),
        }
    }
}
