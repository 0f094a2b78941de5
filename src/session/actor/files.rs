//! The session's "File edits" and "Terminal" settings and the `acp` server of its claude: claude is started with
//! that server (and without its own Read, Write, Edit, or Bash and TaskStop) when "File edits" (or
//! "Terminal") says "editor"; each `tools/call` runs in a task of its own and answers on claude's
//! control channel.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

use super::SessionActor;
use crate::claude::ClaudeHandle;
use crate::claude::sdk_mcp::{self, McpContent, McpMessage};
use crate::domain::AgentError;
use crate::domain::tool_names::SERVER_NAME;
use crate::editor_tools::fs::{self as editor_fs, EditLog, EditorFiles};
use crate::editor_tools::server::ToolServer;
use crate::editor_tools::setting::{FILE_EDITS, ServedBy, ToolSetting};
use crate::editor_tools::terminal::{self as editor_terminal, EditorTerminal};

/// What the session serves claude in the editor's place: the two settings, the server of the
/// claude running now, its calls in flight and the record `/undo` reads.
pub(super) struct EditorTools {
    /// The "File edits" setting; `None` where the editor cannot serve files.
    pub(super) file_edits: Option<ServedBy>,
    /// The "Terminal" setting; `None` where the editor declared no terminal.
    pub(super) terminal: Option<ServedBy>,
    /// What the editor-served tools' writes replaced, for `/undo` (kept beside claude's transcript).
    pub(super) edit_log: EditLog,
    /// The `acp` server's tools for the running claude (fixed at its start).
    pub(super) served: ToolServer,
    /// Tool calls of those tools still running.
    pub(super) file_tasks: Vec<FileCall>,
    /// A setting (the tools, claude's route) changed while claude ran: restart it once no turn
    /// runs.
    pub(super) restart_due: bool,
}

/// One `tools/call` of the file tools in flight.
pub(super) struct FileCall {
    request_id: String,
    rpc_id: Option<Value>,
    /// Set by whoever answers claude first: the call's task, or a cancel.
    answered: Arc<AtomicBool>,
    task: Option<tokio::task::AbortHandle>,
}

impl SessionActor {
    /// The `acp` server's tools the claude about to start gets, as the settings say; also the flags
    /// that turn claude's own tools off. Called for every start, so a change applies at the next.
    pub(super) fn files_for_start(&mut self) -> Vec<String> {
        let files = (self.tools.file_edits == Some(ServedBy::Editor)).then(|| {
            let mut roots = vec![self.ctx.cwd.clone()];
            roots.extend(crate::session::directories::added_directories(
                &self.ctx.flags,
            ));
            EditorFiles::new(
                self.ctx.editor.clone(),
                self.ctx.id.clone(),
                self.ctx.cwd.clone(),
                roots,
                self.tools.edit_log.clone(),
            )
        });
        *self.asker.files.lock().unwrap_or_else(|p| p.into_inner()) = files.clone();
        let terminal = (self.tools.terminal == Some(ServedBy::Editor)).then(|| {
            let mut roots = vec![self.ctx.cwd.clone()];
            roots.extend(crate::session::directories::added_directories(
                &self.ctx.flags,
            ));
            EditorTerminal::new(
                self.ctx.editor.clone(),
                self.ctx.id.clone(),
                self.ctx.cwd.clone(),
                roots,
                self.asker.claude.clone(),
                editor_terminal::CommandShell::for_this_machine(),
            )
        });
        *self
            .asker
            .terminal
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = terminal.clone();
        let mut replaced = Vec::new();
        if files.is_some() {
            replaced.push(editor_fs::REPLACED_BUILTINS);
        }
        if let Some(terminal) = &terminal {
            replaced.push(terminal.replaced_builtins());
        }
        let withheld = self.asker.sources.disallowed_whole();
        self.tools.served = ToolServer {
            files,
            terminal,
            withheld,
        };
        match replaced.is_empty() {
            true => Vec::new(),
            false => vec!["--disallowedTools".to_owned(), replaced.join(",")],
        }
    }

    /// The SDK servers to name in claude's `initialize`.
    pub(super) fn sdk_servers(&self) -> Vec<String> {
        match self.tools.served.is_empty() {
            false => vec![SERVER_NAME.to_owned()],
            true => Vec::new(),
        }
    }

    /// One `mcp_message`: answered from a task, so an editor slow to serve a file never holds up
    /// the session (it waits for the editor as long as the turn does: `editor_tools::answer_bound`).
    pub(super) fn on_mcp_message(
        &mut self,
        request_id: String,
        handle: ClaudeHandle,
        message: McpMessage,
    ) {
        let server = Some(self.tools.served.clone())
            .filter(|s| !s.is_empty() && message.server_name == SERVER_NAME);
        let Some(server) = server else {
            let error = format!("no MCP server named {} here", message.server_name);
            super::deliver(handle.respond_error(&request_id, &error));
            return;
        };
        if let Some(reply) = server.answer_at_once(&message) {
            // No task to wait for: the answer is queued for claude's stdin now.
            super::deliver(handle.respond_success(&request_id, sdk_mcp::mcp_response(reply)));
            return;
        }
        let answered = Arc::new(AtomicBool::new(false));
        let call = FileCall {
            request_id: request_id.clone(),
            rpc_id: message.id().cloned(),
            answered: answered.clone(),
            task: None,
        };
        let task = tokio::spawn(async move {
            let reply = server.handle(&message).await;
            if !answered.swap(true, Ordering::SeqCst) {
                let _ = handle
                    .respond_success(&request_id, sdk_mcp::mcp_response(reply))
                    .await;
            }
        });
        self.tools
            .file_tasks
            .retain(|c| !c.answered.load(Ordering::SeqCst));
        self.tools.file_tasks.push(FileCall {
            task: Some(task.abort_handle()),
            ..call
        });
    }

    /// Whether a call of the editor-served tools still waits for its answer.
    pub(super) fn file_calls_waiting(&self) -> bool {
        self.tools
            .file_tasks
            .iter()
            .any(|c| !c.answered.load(Ordering::SeqCst))
    }

    /// The turn is cancelled: calls still waiting on the editor stop now (the editor's request is
    /// withdrawn) and claude is told each failed, so nothing waits out the editor's bound.
    pub(super) fn cancel_file_calls(&mut self) {
        let handle = self.claude.handle();
        for call in self.tools.file_tasks.drain(..) {
            if call.answered.swap(true, Ordering::SeqCst) {
                continue;
            }
            if let Some(task) = call.task {
                task.abort();
            }
            if let (Some(handle), Some(id)) = (&handle, call.rpc_id) {
                let text = "The user cancelled the turn, so this tool did not run.".to_owned();
                let result = sdk_mcp::call_result(vec![McpContent::Text { text }], true);
                let reply = sdk_mcp::mcp_response(sdk_mcp::rpc_result(Some(id), result));
                super::deliver(handle.respond_success(&call.request_id, reply));
            }
        }
    }

    /// claude ended: its tool calls have no one to answer (a command still running is killed and
    /// its terminal released), and its background commands end with it.
    pub(super) fn abort_file_tasks(&mut self) {
        for call in self.tools.file_tasks.drain(..) {
            if let Some(task) = call.task {
                task.abort();
            }
        }
        if let Some(terminal) = &self.tools.served.terminal {
            terminal.end_background();
        }
    }

    /// Switches "File edits" or "Terminal". claude takes the other tools only at a start, so a
    /// running claude is stopped now if idle, else after the turn; the next prompt resumes it
    /// with the change.
    pub(super) fn set_tool_setting(
        &mut self,
        setting: &ToolSetting,
        value: &str,
    ) -> Result<(), AgentError> {
        let slot = match setting.option_id == FILE_EDITS.option_id {
            true => &mut self.tools.file_edits,
            false => &mut self.tools.terminal,
        };
        let new = setting.change(*slot, value)?;
        if *slot == Some(new) {
            return Ok(());
        }
        *slot = Some(new);
        self.tool_setting_changed();
        Ok(())
    }

    /// A setting claude takes only at its start changed ("File edits", "Terminal", "Agent"):
    /// claude is stopped now if idle, else after the turn, and the editor sees the options as
    /// they are now.
    pub(super) fn tool_setting_changed(&mut self) {
        self.tools.restart_due = self.claude.is_running();
        self.restart_if_due();
        self.announce_options();
    }

    /// Stops claude for a changed setting once no turn is running; the next prompt resumes it.
    pub(super) fn restart_if_due(&mut self) {
        if self.tools.restart_due && self.turn.is_none() {
            self.tools.restart_due = false;
            if let Some(mut claude) = self.claude.ended() {
                tracing::info!(session = %self.ctx.id, "restarting claude for a changed setting");
                // Stdin closed: claude writes out its transcript before it exits, for the next
                // claude's `--resume`.
                tokio::spawn(async move { claude.shutdown(super::idle::STOP_GRACE).await });
            }
            self.abort_file_tasks();
        }
    }
}
