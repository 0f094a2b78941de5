//! The `--mcp-config` document claude is started with: the editor's MCP servers plus our permission
//! server, and the private file it is handed over in.
//!
//! Why a file and not a JSON argument: a process's argv is readable by every local user
//! (`/proc/<pid>/cmdline`), and the document holds our server's token and whatever secrets the
//! editor put in its servers' env and headers. claude's `--mcp-config` takes a path as well.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{McpConfig, McpServerConfig};
use crate::domain::McpServer;
use crate::platform;

/// The server name our permission server is registered under; editor servers cannot take it.
pub const PERMISSION_SERVER_NAME: &str = "claude-acp";

/// `{"mcpServers": {name: entry}}` for claude: every editor server in claude's format, then
/// `ours` (the permission server's `(name, entry)`, if any). On a name clash the later entry wins:
/// ours over any editor server, and a later editor server over an earlier one; both are logged.
pub fn build_mcp_config(
    editor_servers: &[McpServer],
    ours: Option<(String, McpServerConfig)>,
) -> McpConfig {
    let mut servers = std::collections::BTreeMap::new();
    for server in editor_servers {
        let Some((name, entry)) = claude_entry(server) else {
            continue;
        };
        if ours.as_ref().is_some_and(|(our_name, _)| *our_name == name) {
            tracing::warn!(
                server = %name,
                "the editor's MCP server uses a name claude-acp reserves for its permission \
                 server; it is left out"
            );
            continue;
        }
        if servers.insert(name.clone(), entry).is_some() {
            tracing::warn!(server = %name, "the editor sent two MCP servers with this name; the last one is used");
        }
    }
    if let Some((name, entry)) = ours {
        servers.insert(name, entry);
    }
    McpConfig { servers }
}

/// One editor server as claude's `--mcp-config` expects it; none for a server the editor hosts
/// itself (`acp`), which claude reaches through claude-acp (`sdkMcpServers`).
fn claude_entry(server: &McpServer) -> Option<(String, McpServerConfig)> {
    fn pairs(pairs: &[(String, String)]) -> std::collections::BTreeMap<String, String> {
        pairs.iter().cloned().collect()
    }
    Some(match server {
        McpServer::Stdio {
            name,
            command,
            args,
            env,
        } => (
            name.clone(),
            McpServerConfig::Stdio {
                command: command.clone(),
                args: args.clone(),
                env: pairs(env),
            },
        ),
        McpServer::Http { name, url, headers } => (
            name.clone(),
            McpServerConfig::Http {
                url: url.clone(),
                headers: pairs(headers),
                timeout: None,
            },
        ),
        McpServer::Sse { name, url, headers } => (
            name.clone(),
            McpServerConfig::Sse {
                url: url.clone(),
                headers: pairs(headers),
            },
        ),
        McpServer::Acp { .. } => return None,
    })
}

const CONFIG_FILE_PREFIX: &str = "claude-acp-mcp-";

/// Removes the config files of claude-acp processes that are gone without cleaning up (killed
/// outright): they hold MCP tokens and the editor's MCP secrets. The owner's pid is in the name.
pub fn remove_stale_config_files(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name
            .to_str()
            .and_then(|n| n.strip_prefix(CONFIG_FILE_PREFIX))
        else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if !platform::process::is_alive(pid) && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Why the `--mcp-config` file could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the --mcp-config file {path}: {error}")]
pub struct ConfigFileError {
    pub path: PathBuf,
    pub error: std::io::Error,
}

/// The config written to a file only its owner can read; removed when dropped.
#[derive(Debug)]
pub struct McpConfigFile {
    path: PathBuf,
}

impl McpConfigFile {
    /// Writes `config` to a new file in the user's private temp directory (`platform::files`).
    pub fn write(config: &McpConfig) -> Result<McpConfigFile, ConfigFileError> {
        Self::write_in(&platform::files::private_dir(), config)
    }

    /// Writes `text` (JSON that may hold secrets) to a new owner-only file in the user's private
    /// temp directory.
    pub fn write_text(text: &str) -> Result<McpConfigFile, ConfigFileError> {
        Self::write_text_in(&platform::files::private_dir(), text)
    }

    /// Writes `config` to a new, randomly named file in `dir` that only its owner can read.
    pub fn write_in(dir: &Path, config: &McpConfig) -> Result<McpConfigFile, ConfigFileError> {
        Self::write_text_in(dir, &config.to_json())
    }

    fn write_text_in(dir: &Path, text: &str) -> Result<McpConfigFile, ConfigFileError> {
        let path = dir.join(format!(
            "{CONFIG_FILE_PREFIX}{}-{}.json",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        let error = |error| ConfigFileError {
            path: path.clone(),
            error,
        };
        // create_new: never follow a planted symlink or reuse someone else's file.
        let mut file = platform::files::create_private(&path).map_err(error)?;
        let file_guard = McpConfigFile { path: path.clone() };
        // Removed by the reaper if the adapter is killed before it can remove the file itself.
        platform::process::remove_if_killed(&path);
        file.write_all(text.as_bytes())
            .and_then(|()| file.flush())
            .map_err(error)?;
        Ok(file_guard)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `["--mcp-config", <path>]`.
    pub fn claude_args(&self) -> Vec<String> {
        vec![
            "--mcp-config".to_owned(),
            self.path.to_string_lossy().into_owned(),
        ]
    }
}

impl Drop for McpConfigFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        platform::process::forget_removal(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn ours() -> (String, McpServerConfig) {
        (
            PERMISSION_SERVER_NAME.to_owned(),
            McpServerConfig::Http {
                url: "http://127.0.0.1:1/mcp".into(),
                headers: [("Authorization".to_owned(), "Bearer t".to_owned())].into(),
                timeout: None,
            },
        )
    }

    fn our_json() -> Value {
        json!({"type": "http", "url": "http://127.0.0.1:1/mcp",
               "headers": {"Authorization": "Bearer t"}})
    }

    /// The config as claude reads it.
    fn build(editor: &[McpServer], ours: Option<(String, McpServerConfig)>) -> Value {
        serde_json::to_value(build_mcp_config(editor, ours)).unwrap()
    }

    fn editor_servers() -> Vec<McpServer> {
        vec![
            McpServer::Stdio {
                name: "files".into(),
                command: "/usr/bin/files-mcp".into(),
                args: vec!["--root".into(), "/w".into()],
                env: vec![("TOKEN".into(), "s3cret".into())],
            },
            McpServer::Http {
                name: "docs".into(),
                url: "https://docs.example/mcp".into(),
                headers: vec![("X-Key".into(), "k".into())],
            },
            McpServer::Sse {
                name: "legacy".into(),
                url: "https://legacy.example/sse".into(),
                headers: vec![],
            },
        ]
    }

    #[test]
    fn editor_servers_take_claudes_shape_for_each_transport() {
        let config = build(&editor_servers(), None);
        assert_eq!(
            config,
            json!({"mcpServers": {
                "files": {"type": "stdio", "command": "/usr/bin/files-mcp",
                          "args": ["--root", "/w"], "env": {"TOKEN": "s3cret"}},
                "docs": {"type": "http", "url": "https://docs.example/mcp",
                         "headers": {"X-Key": "k"}},
                "legacy": {"type": "sse", "url": "https://legacy.example/sse", "headers": {}},
            }})
        );
    }

    #[test]
    fn our_permission_server_is_added_next_to_the_editors() {
        let config = build(&editor_servers(), Some(ours()));
        let servers = config["mcpServers"].as_object().unwrap();
        assert_eq!(servers.len(), 4);
        assert_eq!(servers["claude-acp"], our_json());
        assert_eq!(servers["files"]["type"], "stdio");
    }

    #[test]
    fn our_name_wins_over_an_editor_server_that_takes_it() {
        let mut editor = editor_servers();
        editor.push(McpServer::Http {
            name: PERMISSION_SERVER_NAME.into(),
            url: "https://impostor.example/mcp".into(),
            headers: vec![],
        });
        let config = build(&editor, Some(ours()));
        assert_eq!(config["mcpServers"]["claude-acp"], our_json());
        assert_eq!(config["mcpServers"].as_object().unwrap().len(), 4);
    }

    #[test]
    fn without_our_server_the_reserved_name_is_the_editors() {
        let editor = vec![McpServer::Http {
            name: PERMISSION_SERVER_NAME.into(),
            url: "https://x.example/mcp".into(),
            headers: vec![],
        }];
        let config = build(&editor, None);
        assert_eq!(
            config["mcpServers"]["claude-acp"]["url"],
            "https://x.example/mcp"
        );
    }

    #[test]
    fn no_servers_give_an_empty_map() {
        assert_eq!(build(&[], None), json!({"mcpServers": {}}));
    }

    #[test]
    fn the_config_file_is_private_and_removed_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let config = build_mcp_config(&editor_servers(), Some(ours()));
        let file = McpConfigFile::write_in(dir.path(), &config).unwrap();
        let path = file.path().to_path_buf();
        assert!(platform::files::is_owner_only(
            &std::fs::metadata(&path).unwrap()
        ));
        let read: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(read, serde_json::to_value(&config).unwrap());
        assert_eq!(
            file.claude_args(),
            vec!["--mcp-config".to_owned(), path.display().to_string()]
        );
        drop(file);
        assert!(!path.exists());
    }
}
