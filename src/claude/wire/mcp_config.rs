//! The file claude reads with `--mcp-config`: `{"mcpServers": {name: server}}`.

use std::collections::BTreeMap;

mod file;

pub(crate) use file::remove_stale_config_files;
pub use file::{ConfigFileError, McpConfigFile, PERMISSION_SERVER_NAME, build_mcp_config};

use serde::Serialize;

/// A whole `--mcp-config` file.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct McpConfig {
    #[serde(rename = "mcpServers")]
    pub servers: BTreeMap<String, McpServerConfig>,
}

/// How claude reaches one MCP server.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum McpServerConfig {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
    },
    Http {
        url: String,
        headers: BTreeMap<String, String>,
        /// How long claude waits for a tool call, in milliseconds.
        #[serde(skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
    },
    Sse {
        url: String,
        headers: BTreeMap<String, String>,
    },
    /// A server a client gave in claude's own format (`_meta`'s `mcpServers`), passed on as is.
    #[serde(untagged)]
    AsGiven(serde_json::Value),
}

impl McpConfig {
    /// The file's text.
    pub fn to_json(&self) -> String {
        // Strings and maps of strings only: serializing cannot fail.
        serde_json::to_string(self).expect("an MCP config serializes")
    }
}
