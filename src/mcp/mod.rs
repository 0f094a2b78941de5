//! The public, stable permission path: an MCP server of our own that claude calls for every
//! permission ask (`--permission-prompt-tool mcp__claude-acp__permission`), used when claude's
//! undocumented stdio `can_use_tool` channel is unavailable or breaks.
//!
//! - [`permission_server`]: the token-guarded streamable-HTTP MCP server with the permission tool.
//! - [`mcp_config`]: the `--mcp-config` document (editor servers plus ours), written to a private file.
//! - [`suggestions`]: the "always allow" suggestions claude gives only on stdio, rebuilt for MCP.

pub(crate) mod mcp_config;
pub(crate) mod permission_server;
mod permission_tool;
mod suggestions;

pub(crate) use mcp_config::remove_stale_config_files;
pub use mcp_config::{McpConfigFile, build_mcp_config};
pub use permission_server::{BoxFuture, PermissionCall, PermissionCallback, PermissionServer};

/// Why the MCP permission path could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("cannot listen for the MCP permission server on 127.0.0.1: {0}")]
    Listen(std::io::Error),
    #[error("cannot write the --mcp-config file {path}: {error}")]
    ConfigFile {
        path: std::path::PathBuf,
        error: std::io::Error,
    },
}
