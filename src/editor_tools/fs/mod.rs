//! claude's Read, Write and Edit served through the editor (`fs/read_text_file`,
//! `fs/write_text_file`): an MCP server claude reaches over its own control channel
//! (`mcp_message`), whose tools have the built-ins' names, schemas and descriptions, while the
//! built-ins are turned off for the session (`--disallowedTools`).
//!
//! This module answers the JSON-RPC messages; [`run`] does the file work, [`logic`] the pure
//! part, [`texts`] holds claude's own words, [`record`] keeps what each write replaced.

mod logic;
mod record;
mod run;
mod texts;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::claude::sdk_mcp::McpTool;
use crate::domain::EditorClient;

pub(crate) use logic::Seen;
pub(crate) use record::EditLog;

/// claude's built-ins this server replaces, turned off with `--disallowedTools` (the pinned claude
/// has no MultiEdit; older ones do, and it must not write behind the editor's back either).
pub(crate) const REPLACED_BUILTINS: &str = "Read,Write,Edit,MultiEdit";

/// The built-in tool definitions the pinned claude sends the model, captured from its API request.
const BUILTIN_TOOLS: &str = include_str!("../../../fixtures/editor_fs/builtin_tools.json");

/// One session's file tools: cheap to clone into the task that runs a call.
#[derive(Clone)]
pub(crate) struct EditorFiles {
    editor: Arc<dyn EditorClient>,
    session_id: String,
    cwd: PathBuf,
    /// The workspace: the cwd and the added directories, resolved. Files elsewhere are read and
    /// written on disk, as claude would.
    roots: Vec<PathBuf>,
    /// What the model last saw of each file, to tell a changed file as claude does.
    seen: Arc<Mutex<HashMap<PathBuf, Seen>>>,
    /// The session's record of what the editor held before each write, for `/undo`.
    log: EditLog,
    /// How long an `fs/*` request may wait for the editor (see `answer_bound`; none by default).
    bound: Option<Duration>,
}

impl EditorFiles {
    pub(crate) fn new(
        editor: Arc<dyn EditorClient>,
        session_id: String,
        cwd: PathBuf,
        roots: Vec<PathBuf>,
        log: EditLog,
    ) -> Self {
        Self {
            editor,
            session_id,
            cwd,
            roots: roots
                .iter()
                .filter_map(|root| crate::platform::real_path::real_path(root))
                .collect(),
            seen: Arc::default(),
            log,
            bound: super::answer_bound::from_env(),
        }
    }

    /// The result of one `tools/call` (`params` as claude sent them).
    pub(crate) async fn call(&self, params: &Value) -> Value {
        let (name, input, tool_use_id) = crate::claude::sdk_mcp::tool_call_parts(params);
        let reply = match name {
            "Read" => self.read(input, tool_use_id).await,
            "Write" => self.write(input, tool_use_id).await,
            "Edit" => self.edit(input, tool_use_id).await,
            other => run::Reply::error(format!("No such tool available: {other}")),
        };
        reply.to_mcp()
    }
}

/// The tools as MCP lists them: the built-ins' names, descriptions and input schemas.
pub(crate) fn tool_definitions() -> Vec<McpTool> {
    McpTool::from_capture(BUILTIN_TOOLS)
}

#[cfg(test)]
pub(crate) mod tests;
