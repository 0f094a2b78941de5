//! The MCP permission path of a session: our permission server, and the `--permission-prompt-tool`
//! and `--mcp-config` arguments that point claude at it (`docs/permissions.md`, "Permissions over
//! MCP").

use super::mcp_server::PermissionServer;
use super::mcp_tool::PermissionCallback;
use crate::claude::wire::{McpConfigFile, build_mcp_config};
use crate::domain::McpServer;
use crate::permissions::asker::PermissionAsker;

/// The MCP permission path of one session: the server claude calls and the config that names it.
pub(crate) struct McpPath {
    server: PermissionServer,
}

impl McpPath {
    pub(crate) fn start(asker: PermissionAsker) -> Result<Self, String> {
        let callback: PermissionCallback = std::sync::Arc::new(move |call| {
            let asker = asker.clone();
            Box::pin(async move { asker.ask(call.into_can_use_tool()).await })
        });
        let server = PermissionServer::start(callback)
            .map_err(|e| format!("could not start the MCP permission server: {e}"))?;
        Ok(Self { server })
    }

    pub(crate) fn tool_name(&self) -> String {
        self.server.tool_name()
    }
}

/// The `--permission-prompt-tool` and `--mcp-config` arguments for a spawn, and the config file
/// they name (kept alive as long as claude may read it).
pub(crate) fn claude_args(
    editor_servers: &[McpServer],
    mcp: Option<&McpPath>,
) -> Result<(Vec<String>, Option<McpConfigFile>), String> {
    let tool = mcp.map_or_else(|| "stdio".to_owned(), McpPath::tool_name);
    let mut args = vec!["--permission-prompt-tool".to_owned(), tool];
    if editor_servers.iter().all(McpServer::is_acp) && mcp.is_none() {
        return Ok((args, None));
    }
    let config = build_mcp_config(editor_servers, mcp.map(|m| m.server.mcp_config_entry()));
    let file = McpConfigFile::write(&config)
        .map_err(|e| format!("could not write the MCP config: {e}"))?;
    args.extend(file.claude_args());
    Ok((args, Some(file)))
}
