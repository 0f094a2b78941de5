//! claude's Read, Write and Edit served through the editor (`fs/read_text_file`,
//! `fs/write_text_file`): an MCP server claude reaches over its own control channel
//! (`mcp_message`), whose tools have the built-ins' names, schemas and descriptions, while the
//! built-ins are turned off for the session (`--disallowedTools`).
//!
//! This module answers the JSON-RPC messages; [`run`] does the file work, [`logic`] the pure
//! part, [`texts`] holds claude's own words.

mod logic;
mod run;
mod texts;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::domain::EditorClient;

pub use logic::Seen;

/// The server's name as claude knows it: its tools reach the model as `mcp__acp__Read`, ...
pub const SERVER_NAME: &str = "acp";

/// claude's built-ins this server replaces, turned off with `--disallowedTools` (claude 2.1.332
/// has no MultiEdit; older ones do, and it must not write behind the editor's back either).
pub const REPLACED_BUILTINS: &str = "Read,Write,Edit,MultiEdit";

/// How long the editor may take over one `fs/*` request before that tool call fails.
pub const EDITOR_TIMEOUT: Duration = Duration::from_secs(30);

/// The built-in tool definitions claude 2.1.332 sends the model, captured from its API request.
const BUILTIN_TOOLS: &str = include_str!("../../../fixtures/editor_fs/builtin_tools_2.1.332.json");

/// The built-in a tool name of this server stands for (`mcp__acp__Edit` -> `Edit`).
pub fn builtin_name(tool_name: &str) -> Option<&'static str> {
    let tool = tool_name.strip_prefix("mcp__")?.strip_prefix(SERVER_NAME)?;
    match tool.strip_prefix("__")? {
        "Read" => Some("Read"),
        "Write" => Some("Write"),
        "Edit" => Some("Edit"),
        _ => None,
    }
}

/// Whether the editor or the disk holds the files of a session's Read, Write and Edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileEdits {
    Editor,
    Disk,
}

impl FileEdits {
    pub const OPTION_ID: &'static str = "file_edits";

    pub fn id(self) -> &'static str {
        match self {
            FileEdits::Editor => "editor",
            FileEdits::Disk => "disk",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "editor" => Some(FileEdits::Editor),
            "disk" => Some(FileEdits::Disk),
            _ => None,
        }
    }
}

/// One session's file tools: cheap to clone into the task that runs a call.
#[derive(Clone)]
pub struct EditorFiles {
    editor: Arc<dyn EditorClient>,
    session_id: String,
    cwd: PathBuf,
    /// The workspace: the cwd and the added directories. Files elsewhere are read and written
    /// on disk, as claude would.
    roots: Vec<PathBuf>,
    /// What the model last saw of each file, to tell a changed file as claude does.
    seen: Arc<Mutex<HashMap<PathBuf, Seen>>>,
    timeout: Duration,
}

impl EditorFiles {
    pub fn new(
        editor: Arc<dyn EditorClient>,
        session_id: String,
        cwd: PathBuf,
        roots: Vec<PathBuf>,
    ) -> Self {
        Self {
            editor,
            session_id,
            cwd,
            roots,
            seen: Arc::default(),
            timeout: EDITOR_TIMEOUT,
        }
    }

    /// The JSON-RPC reply to one message claude sends this server.
    pub async fn handle(&self, message: Value) -> Value {
        let id = message.get("id").cloned();
        let method = message.get("method").and_then(Value::as_str).unwrap_or("");
        let Some(id) = id else {
            // A notification: claude 2.1.332 still waits for an answer, an empty result.
            return json!({"jsonrpc": "2.0", "result": {}});
        };
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let result = match method {
            "initialize" => json!({
                "protocolVersion": params.get("protocolVersion").cloned().unwrap_or(json!("2025-11-25")),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")},
            }),
            "tools/list" => json!({"tools": tool_definitions()}),
            "tools/call" => self.call(&params).await,
            "ping" => json!({}),
            other => {
                return json!({"jsonrpc": "2.0", "id": id, "error": {
                    "code": -32601, "message": format!("Method not found: {other}")}});
            }
        };
        json!({"jsonrpc": "2.0", "id": id, "result": result})
    }

    async fn call(&self, params: &Value) -> Value {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        let input = params.get("arguments").cloned().unwrap_or(json!({}));
        let tool_use_id = params
            .get("_meta")
            .and_then(|m| m.get("claudecode/toolUseId"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let reply = match name {
            "Read" => self.read(&input, tool_use_id.as_deref()).await,
            "Write" => self.write(&input, tool_use_id.as_deref()).await,
            "Edit" => self.edit(&input, tool_use_id.as_deref()).await,
            other => run::Reply::error(format!("No such tool available: {other}")),
        };
        reply.to_mcp()
    }
}

/// The tools as MCP lists them: the built-ins' names, descriptions and input schemas.
fn tool_definitions() -> Vec<Value> {
    let captured: Value = serde_json::from_str(BUILTIN_TOOLS).expect("the captured tools parse");
    captured["tools"]
        .as_array()
        .expect("the capture lists tools")
        .iter()
        .map(|tool| {
            json!({
                "name": tool["name"],
                "description": tool["description"],
                "inputSchema": tool["input_schema"],
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
