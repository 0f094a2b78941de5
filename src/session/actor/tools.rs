//! The editor-served tools' per-session state: the `acp` server of the running claude (claude is
//! started with it, and without its own Read, Write, Edit, or Bash and TaskStop, where the "File
//! edits" or "Terminal" setting says "editor"), its `tools/call`s in flight, each in a task of its
//! own answering on claude's control channel, and the record `/undo` reads. A tool call that shows
//! an editor terminal keeps showing it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

use super::ctx::{SessionContext, deliver};
use crate::claude::ClaudeHandle;
use crate::claude::sdk_mcp::{self, McpContent, McpMessage};
use crate::claude::wire::OutboundControl;
use crate::domain::tool_names::SERVER_NAME;
use crate::domain::{SessionUpdate, ToolStatus};
use crate::editor_tools::fs::{self as editor_fs, EditLog, EditorFiles};
use crate::editor_tools::relay::{EditorMcpServers, Relay};
use crate::editor_tools::server::ToolServer;
use crate::editor_tools::setting::ServedBy;
use crate::editor_tools::terminal::{self as editor_terminal, CardStatus, EditorTerminal};
use crate::permissions::asker::PermissionAsker;

/// How long claude may take to take an MCP server's notification.
const NOTIFICATION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// What the session serves claude in the editor's place: the server of the claude running now,
/// its calls in flight and the record `/undo` reads.
pub(super) struct EditorTools {
    /// What the editor-served tools' writes replaced, for `/undo` (kept beside claude's transcript).
    pub(super) edit_log: EditLog,
    /// The `acp` server's tools for the running claude (fixed at its start).
    pub(super) served: ToolServer,
    /// The MCP servers the editor hosts itself, relayed to it (`mcpServers` of type `acp`).
    relayed: Option<EditorMcpServers>,
    /// Tool calls of those tools, and messages to the editor's servers, still running.
    file_tasks: Vec<FileCall>,
}

/// One `tools/call` of the file tools in flight.
pub(super) struct FileCall {
    /// The server claude sent it to.
    server: String,
    request_id: String,
    rpc_id: Option<Value>,
    /// Set by whoever answers claude first: the call's task, or a cancel.
    answered: Arc<AtomicBool>,
    task: Option<tokio::task::AbortHandle>,
}

impl EditorTools {
    pub(super) fn new(edit_log: EditLog) -> Self {
        Self {
            edit_log,
            served: ToolServer::default(),
            relayed: None,
            file_tasks: Vec::new(),
        }
    }

    /// The `acp` server's tools the claude about to start gets, as the settings say; also the flags
    /// that turn claude's own tools off. Called for every start, so a change applies at the next.
    pub(super) fn files_for_start(
        &mut self,
        ctx: &SessionContext,
        asker: &PermissionAsker,
        file_edits: Option<ServedBy>,
        terminal: Option<ServedBy>,
    ) -> Vec<String> {
        let files = (file_edits == Some(ServedBy::Editor)).then(|| {
            let mut roots = vec![ctx.cwd.clone()];
            roots.extend(crate::session::directories::added_directories(&ctx.flags));
            EditorFiles::new(
                ctx.editor.clone(),
                ctx.id.clone(),
                ctx.cwd.clone(),
                roots,
                self.edit_log.clone(),
            )
        });
        *asker.files.lock().unwrap_or_else(|p| p.into_inner()) = files.clone();
        let terminal = (terminal == Some(ServedBy::Editor)).then(|| {
            let mut roots = vec![ctx.cwd.clone()];
            roots.extend(crate::session::directories::added_directories(&ctx.flags));
            EditorTerminal::new(
                ctx.editor.clone(),
                ctx.id.clone(),
                ctx.cwd.clone(),
                roots,
                asker.claude.clone(),
                editor_terminal::CommandShell::for_this_machine(),
            )
        });
        *asker.terminal.lock().unwrap_or_else(|p| p.into_inner()) = terminal.clone();
        let mut replaced = Vec::new();
        if files.is_some() {
            replaced.push(editor_fs::REPLACED_BUILTINS);
        }
        if let Some(terminal) = &terminal {
            replaced.push(terminal.replaced_builtins());
        }
        let hosted: Vec<(String, String)> = ctx
            .editor_servers
            .iter()
            .filter_map(|s| match s {
                crate::domain::McpServer::Acp { name, server_id } => {
                    Some((name.clone(), server_id.clone()))
                }
                _ => None,
            })
            .collect();
        self.relayed =
            (!hosted.is_empty()).then(|| EditorMcpServers::new(ctx.editor.clone(), hosted));
        let withheld = asker.sources.disallowed_whole();
        self.served = ToolServer {
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
        let ours = (!self.served.is_empty()).then_some(SERVER_NAME);
        let hosted = self.relayed.iter().flat_map(EditorMcpServers::names);
        ours.into_iter().chain(hosted).map(str::to_owned).collect()
    }

    /// One `mcp_message`: answered from a task, so an editor slow to serve a file never holds up
    /// the session (it waits for the editor as long as the turn does: `editor_tools::answer_bound`).
    pub(super) fn on_mcp_message(
        &mut self,
        request_id: String,
        handle: ClaudeHandle,
        message: McpMessage,
    ) {
        if let Some(relay) = self.relayed.as_ref().and_then(|r| r.relay(&message)) {
            return self.relay(request_id, handle, message.server_name, relay);
        }
        let server = Some(self.served.clone())
            .filter(|s| !s.is_empty() && message.server_name == SERVER_NAME);
        let Some(server) = server else {
            let error = format!("no MCP server named {} here", message.server_name);
            deliver(handle.respond_error(&request_id, &error));
            return;
        };
        if let Some(reply) = server.answer_at_once(&message) {
            // No task to wait for: the answer is queued for claude's stdin now.
            deliver(handle.respond_success(&request_id, sdk_mcp::mcp_response(reply)));
            return;
        }
        let (server_name, rpc_id) = (message.server_name.clone(), message.id().cloned());
        self.answer_in_task(request_id, handle, server_name, rpc_id, async move {
            server.handle(&message).await
        });
    }

    /// Answers claude's `request_id` with what `reply` comes to, from a task kept until then, so
    /// a cancel can withdraw it; whichever answers first answers alone.
    fn answer_in_task(
        &mut self,
        request_id: String,
        handle: ClaudeHandle,
        server: String,
        rpc_id: Option<Value>,
        reply: impl Future<Output = Value> + Send + 'static,
    ) {
        let answered = Arc::new(AtomicBool::new(false));
        let task = tokio::spawn({
            let (answered, request_id) = (answered.clone(), request_id.clone());
            async move {
                let reply = reply.await;
                if !answered.swap(true, Ordering::SeqCst) {
                    let _ = handle
                        .respond_success(&request_id, sdk_mcp::mcp_response(reply))
                        .await;
                }
            }
        });
        self.file_tasks
            .retain(|c| !c.answered.load(Ordering::SeqCst));
        self.file_tasks.push(FileCall {
            server,
            request_id,
            rpc_id,
            answered,
            task: Some(task.abort_handle()),
        });
    }

    /// One message to a server the editor hosts: answered here, or asked of the editor in a task
    /// (the server's notifications meanwhile passed on to claude), or a cancel that withdraws
    /// the request it names.
    fn relay(&mut self, request_id: String, handle: ClaudeHandle, server: String, relay: Relay) {
        let call = match relay {
            Relay::Now(reply) => {
                deliver(handle.respond_success(&request_id, sdk_mcp::mcp_response(reply)));
                return;
            }
            Relay::Cancel { rpc_id, reply } => {
                for call in &mut self.file_tasks {
                    if call.server == server
                        && call.rpc_id.as_ref() == Some(&rpc_id)
                        && !call.answered.swap(true, Ordering::SeqCst)
                        && let Some(task) = call.task.take()
                    {
                        task.abort();
                    }
                }
                deliver(handle.respond_success(&request_id, sdk_mcp::mcp_response(reply)));
                return;
            }
            Relay::Editor(call) => call,
        };
        let rpc_id = Some(call.rpc_id().clone());
        let to_claude = handle.clone();
        let server_name = server.clone();
        let notify = move |message| {
            let note = OutboundControl::McpMessage {
                server_name: server_name.clone(),
                message,
            };
            // Queued now, so it reaches claude before the request's answer.
            let sent = to_claude.request(note, NOTIFICATION_TIMEOUT);
            tokio::spawn(async move {
                if let Err(e) = sent.await {
                    tracing::info!("claude did not take an MCP server's notification: {e}");
                }
            });
        };
        self.answer_in_task(request_id, handle, server, rpc_id, call.run(notify));
    }

    /// Whether a call of the editor-served tools still waits for its answer.
    pub(super) fn file_calls_waiting(&self) -> bool {
        self.file_tasks
            .iter()
            .any(|c| !c.answered.load(Ordering::SeqCst))
    }

    /// The turn is cancelled: calls still waiting on the editor stop now (the editor's request is
    /// withdrawn) and claude is told each failed, so nothing waits out the editor's bound.
    pub(super) fn cancel_file_calls(&mut self, handle: Option<ClaudeHandle>) {
        for call in self.file_tasks.drain(..) {
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
                deliver(handle.respond_success(&call.request_id, reply));
            }
        }
    }

    /// claude ended: its tool calls have no one to answer (a command still running is killed and
    /// its terminal released), and its background commands end with it.
    pub(super) fn abort_file_tasks(&mut self) {
        for call in self.file_tasks.drain(..) {
            if let Some(task) = call.task {
                task.abort();
            }
        }
        if let Some(terminal) = &self.served.terminal {
            terminal.end_background();
        }
    }

    /// Whether a command runs in the background in the editor's terminal (it ends with claude).
    pub(super) fn terminal_runs_in_background(&self) -> bool {
        self.served
            .terminal
            .as_ref()
            .is_some_and(|t| t.has_background())
    }

    /// A tool call that shows an editor terminal keeps showing it: claude's result (the same
    /// output, as text) and its "running for" heartbeats change only the call's status.
    /// A background command's card stays `in_progress` past claude's result (the command's
    /// start) until the command ends.
    pub(super) fn keep_terminal_shown(&self, mut update: SessionUpdate) -> SessionUpdate {
        if let (SessionUpdate::ToolCallUpdate(call), Some(terminal)) =
            (&mut update, &self.served.terminal)
            && terminal.embeds(&call.id)
        {
            call.remove_content();
            let is_result = matches!(
                call.status,
                Some(ToolStatus::Completed | ToolStatus::Failed)
            );
            match terminal.background_card(&call.id, is_result) {
                Some(CardStatus::Running { shell_id }) => {
                    call.status = Some(ToolStatus::InProgress);
                    call.async_task_id = Some(shell_id);
                }
                Some(CardStatus::Ended { shell_id, failed }) if is_result => {
                    call.status = Some(if failed {
                        ToolStatus::Failed
                    } else {
                        ToolStatus::Completed
                    });
                    call.async_task_id = Some(shell_id);
                }
                _ => {}
            }
        }
        update
    }
}
