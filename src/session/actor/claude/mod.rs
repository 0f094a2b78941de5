//! The session's running claude: starting it (with the right permission transport, the
//! editor-served tools and the stored conversation), its asks of the editor (permission asks and
//! MCP servers' questions, each in a task of its own), its control requests answered, and its end:
//! stopped when idle, for a changed setting, for a switch of the permission path, or with the
//! session. Its background jobs are `jobs.rs`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;

use self::asks::{AskKind, PendingAsks};
use self::idle::{Idle, STOP_GRACE, STOP_TASKS_WAIT};
use self::next::NextClaude;
use self::running::RunningClaude;
use super::ctx::{CONTROL_TIMEOUT, Reply, SessionContext, Tell, deliver};
use super::settings::Settings;
use super::tools::EditorTools;
use crate::claude::wire::{
    ClaudeMessage, ElicitationAnswer, InboundControlRequest, OutboundControl, PermissionDecision,
};
use crate::claude::{ClaudeEvent, ClaudeHandle};
use crate::domain::{AgentError, EditorClient, SessionUpdate};
use crate::history::RewindPoint;
use crate::permissions::fallback::{self, BreakSymptom, PermissionPath};
use crate::permissions::{self, asker::PermissionAsker};
use crate::session::incoming::{ControlAction, classify};
use crate::session::spawn::{self, Start};

mod asks;
mod elicit;
mod idle;
mod jobs;
mod next;
mod running;

/// What the editor asks of claude's background work (`jobs.rs`).
pub(crate) enum Request {
    /// `_session/async_task/stop`: one of claude's background jobs, by its task id.
    StopTask { task_id: String, reply: Reply<bool> },
    /// ACP v2's `tool_call/cancel`: the background job a tool call started, by the call's id.
    CancelToolCall {
        tool_call_id: String,
        reply: Reply<()>,
    },
    /// `session/cancel` of one of its subagents' child sessions: that subagent stops, the rest
    /// goes on.
    CancelSubagent { task_id: String },
}

/// What the running claude's own tasks report back.
pub(super) enum Done {
    /// claude's answer to our `initialize`.
    Initialized(Value),
    /// A permission ask or an MCP server's question has been answered (or withdrawn).
    Answered { request_id: String },
    /// The claude a switch to the MCP permission path stopped has exited.
    SwitchReady(BreakSymptom),
}

/// The running claude, how the next one starts, and what waits on the editor for it.
pub(super) struct Claude {
    running: RunningClaude,
    next: NextClaude,
    /// When claude last had something to do (it is stopped after the idle timeout).
    idle: Idle,
    /// How permission asks reach the editor, whichever transport brings them.
    asker: PermissionAsker,
    /// How claude's permission asks reach us (and whether a broken stdio channel switches it).
    path: PermissionPath,
    asks: PendingAsks,
    /// "Always reject" rules of this session, re-sent to a restarted claude.
    rules: permissions::SessionRules,
    /// A setting (the tools, claude's route) changed while claude ran: restart it once no turn
    /// runs.
    restart_due: bool,
    tell: Tell<Done>,
}

impl Claude {
    /// No claude runs yet; `mode`: the session's, as the permission asker starts with it
    /// (returned shared, for the settings to keep current), with the modes the asker sees claude
    /// enter (an approved plan, an "always allow" edit).
    pub(super) fn new(
        ctx: &SessionContext,
        mode: String,
        start: Start,
        rewind: Option<RewindPoint>,
        tell: Tell<Done>,
    ) -> (Self, Arc<Mutex<String>>, mpsc::UnboundedReceiver<String>) {
        let (mode_tx, mode_changes) = mpsc::unbounded_channel();
        let rules = permissions::SessionRules::new();
        let running = RunningClaude::default();
        let asker_mode = Arc::new(Mutex::new(mode));
        let asker = PermissionAsker {
            editor: ctx.editor.clone(),
            session_id: ctx.id.clone(),
            cwd: ctx.cwd.clone(),
            rules: rules.clone(),
            claude: running.shared_handle(),
            mode_changes: mode_tx,
            mode: asker_mode.clone(),
            files: Arc::default(),
            terminal: Arc::default(),
            sources: permissions::RuleSources::from_flags(
                &ctx.cwd,
                &ctx.flags.extra_args,
                &ctx.flags.secret_files,
            ),
        };
        let claude = Self {
            running,
            next: NextClaude::new(start, rewind),
            idle: Idle::new(ctx.config.idle_timeout),
            path: PermissionPath::new(ctx.config.permission_transport),
            asker,
            asks: PendingAsks::default(),
            rules,
            restart_due: false,
            tell,
        };
        (claude, asker_mode, mode_changes)
    }

    pub(super) fn is_running(&self) -> bool {
        self.running.is_running()
    }

    /// The running claude's handle, if one runs.
    pub(super) fn handle(&self) -> Option<ClaudeHandle> {
        self.running.handle()
    }

    /// Which of the session's claudes runs (or ran last): a prompt written to an earlier one
    /// never reached this one.
    pub(super) fn generation(&self) -> u64 {
        self.running.generation()
    }

    /// claude's next event, taken only when the editor has room for what it becomes; never
    /// resolves while none runs.
    pub(super) async fn next_event(&mut self, editor: &dyn EditorClient) -> Option<ClaudeEvent> {
        self.running.next_event(editor).await
    }

    /// Starts claude unless it runs. Never waits on a model turn.
    pub(super) fn ensure(
        &mut self,
        ctx: &mut SessionContext,
        tools: &mut EditorTools,
        settings: &Settings,
    ) -> Result<(), AgentError> {
        if self.running.is_running() {
            return Ok(());
        }
        let command = ctx.config.claude.clone().map_err(AgentError::Internal)?;
        let next = self.next.next_start(|| stored_by_claude(ctx));
        if next.set_aside_transcript {
            set_aside_transcript(ctx);
        }
        if let Err(e) = crate::history::set_aside_no_conversation(&next.set_aside_no_conversation) {
            tracing::info!(session = %ctx.id, "could not set aside claude's transcript that holds no conversation: {e}");
        }
        let start = next.start;
        let (mut permission_args, mcp_file) = self
            .path
            .claude_args(&self.asker, &ctx.editor_servers)
            .map_err(AgentError::Internal)?;
        let file_args =
            tools.files_for_start(ctx, &self.asker, settings.file_edits, settings.terminal);
        permission_args.extend(file_args);
        settings.carry_into_flags(&mut ctx.flags);
        // An untrusted workspace's claude gets the user's settings only (`session::trust`).
        let flags = match &ctx.untrusted {
            Some(untrusted) => crate::session::trust::restricted(&ctx.flags, untrusted),
            None => Ok(ctx.flags.clone()),
        };
        let (flags, flag_files) = flags
            .and_then(|flags| flags.with_secret_files())
            .map_err(AgentError::Internal)?;
        let mut opts = spawn::options(
            &command,
            &ctx.cwd,
            &ctx.id,
            &start,
            &flags,
            &permission_args,
        );
        // The served tools' descriptions whole (claude.exe's PowerShell one is over claude's
        // limit); first, so that an editor's own `env` (in `_meta`) wins.
        let served = tools.served.tools();
        opts.extra_env
            .splice(0..0, crate::claude::sdk_mcp::description_limit_env(&served));
        // Last, so that the editor's gateway wins over the environment's route.
        opts.extra_env.extend(ctx.config.route.env());
        let launched = ctx
            .config
            .launcher
            .launch(opts)
            .map_err(|e| AgentError::Internal(format!("could not start claude: {e}")))?;
        tracing::info!(session = %ctx.id, pid = launched.claude.pid(), ?start, "claude started");
        let handle = launched.handle.clone();
        self.idle.claude_started();
        let mut files = flag_files;
        files.extend(mcp_file);
        self.running.started(launched, files);
        let tell = self.tell.clone();
        // Queued now, so it is claude's first line whatever the turn sends next.
        let prompt = &ctx.flags.system_prompt;
        let request = OutboundControl::Initialize {
            hooks: None,
            sdk_mcp_servers: tools.sdk_servers(),
            system_prompt: prompt.replace.clone().map(|text| vec![text]),
            append_system_prompt: prompt.append.clone(),
            // A subagent's words are shown where they can be: in its child session, or tagged.
            forward_subagent_text: ctx.editor.supports_subagents()
                || ctx.flags.forward_subagent_text,
            // Asked for only where they are shown: each costs a model request.
            prompt_suggestions: ctx.editor.supports_prompt_suggestions(),
        };
        let initialize = handle.request(request, CONTROL_TIMEOUT);
        // Then the toggles that are on (Fast mode, ultracode), before any prompt can follow, and
        // whether claude can run ultracode.
        let toggles = settings.toggle_settings().map(|switches| {
            handle.request(OutboundControl::set_switches(&switches), CONTROL_TIMEOUT)
        });
        let claude_settings = handle.request(OutboundControl::GetSettings, CONTROL_TIMEOUT);
        let settings_read = settings.claude_settings_reader();
        tokio::spawn(async move {
            match initialize.await {
                Ok(reply) => tell.tell(Done::Initialized(reply)),
                Err(e) => tracing::info!("claude did not answer initialize: {e}"),
            }
            if let Some(Err(e)) = match toggles {
                Some(applied) => Some(applied.await),
                None => None,
            } {
                tracing::info!("claude did not take the session's toggles: {e}");
            }
            if let Ok(reply) = claude_settings.await {
                settings_read(reply);
            }
        });
        Ok(())
    }

    /// claude answered `initialize`: the session's "always reject" rules go to it.
    pub(super) fn initialized(&self) {
        if let (Some(settings), Some(handle)) = (self.rules.flag_settings(), self.handle()) {
            let request = OutboundControl::ApplyFlagSettings { settings };
            tokio::spawn(async move { handle.request(request, CONTROL_TIMEOUT).await });
        }
    }

    /// A permission ask or an MCP server's question was answered: nothing left to withdraw.
    pub(super) fn ask_done(&mut self, request_id: &str) {
        self.asks.answered(request_id);
    }

    /// Kills claude now.
    pub(super) fn stop(&mut self) {
        if let Some(claude) = self.running.ended() {
            claude.kill();
        }
    }

    /// claude exited: forgotten.
    pub(super) fn exited(&mut self) {
        self.running.ended();
    }

    /// Stops claude politely: with its stdin closed it writes out the rest of its transcript.
    pub(super) async fn stop_gracefully(&mut self) {
        if let Some(mut process) = self.running.ended() {
            process.shutdown(STOP_GRACE).await;
        }
    }

    /// The session ends, or the user logged out: asks withdrawn, claude asked to stop its
    /// background tasks when `tasks`, then ended. With the process goes its MCP config, which may
    /// hold the editor's MCP secrets: gone before the session says it is closed.
    pub(super) async fn end(&mut self, ctx: &SessionContext, tasks: bool) {
        self.asks.withdraw_all();
        if tasks {
            self.stop_background_tasks(ctx).await;
        }
        if let Some(mut claude) = self.running.ended() {
            claude.shutdown(Duration::from_millis(500)).await;
        }
    }

    /// The session is closed: the permission path's own servers end.
    pub(super) fn close_path(&mut self) {
        self.path.stop();
    }

    /// Withdraws every ask of the editor's (claude is gone, or a panic left them unfollowed).
    pub(super) fn withdraw_asks(&mut self) {
        self.asks.withdraw_all();
    }

    /// Whether an ask still waits on the editor.
    pub(super) fn asks_open(&self) -> bool {
        self.asks.any_open()
    }

    /// A prompt of claude's becomes the session's turn: the permission path watches it, and
    /// claude holds a conversation a new claude must resume.
    pub(super) fn turn_starts(&mut self) {
        self.path.turn_started();
        self.next.conversation_stored = true;
    }

    /// A turn ran on from where `/undo` or `/rewind` left the thread: claude's transcript now
    /// says it all.
    pub(super) fn turn_stored(&mut self) {
        self.next.rewind = None;
    }

    /// `/undo` or `/rewind` took the thread back to `point`: the next claude resumes only up to it.
    pub(super) fn rewound(&mut self, point: RewindPoint) {
        self.next.rewind = Some(point);
    }

    /// Whether the conversation began (claude stored it, or the session opened on one).
    pub(super) fn conversation_begun(&self) -> bool {
        self.next.conversation_stored || !matches!(self.next.start, Start::New)
    }

    /// What claude says, seen first here: the permission path watches a turn's messages, the
    /// idle clock claude's background work. claude withdrawing an ask is handled here (true).
    pub(super) fn saw(
        &mut self,
        ctx: &SessionContext,
        message: &ClaudeMessage,
        turn: bool,
    ) -> bool {
        if turn {
            self.path.watch(&ctx.id, message);
        }
        self.idle.saw(message);
        if let ClaudeMessage::ControlCancelRequest { request_id } = message {
            // claude withdrew the ask: withdraw the editor's request too; a late answer is dropped.
            self.asks.withdraw(request_id);
            return true;
        }
        false
    }

    /// The permission path broke during the turn (stdio asks that never came): the symptom.
    pub(super) fn take_break(&mut self) -> Option<BreakSymptom> {
        self.path.take_break()
    }

    /// claude exited during a turn because the permission path broke: the symptom.
    pub(super) fn take_break_on_exit(
        &mut self,
        ctx: &SessionContext,
        stderr_tail: &str,
    ) -> Option<BreakSymptom> {
        self.path.take_break_on_exit(&ctx.id, stderr_tail)
    }

    /// One of claude's control requests: answered at once, or asked of the editor (a permission
    /// ask, an MCP server's question) or the editor-served tools in a task of its own.
    pub(super) fn on_control_request(
        &mut self,
        ctx: &SessionContext,
        tools: &mut EditorTools,
        req: InboundControlRequest,
    ) {
        let Some(handle) = self.handle() else {
            return;
        };
        let request_id = req.request_id.clone();
        match classify(req) {
            ControlAction::Reply(value) => deliver(handle.respond_success(&request_id, value)),
            ControlAction::Fail(error) => deliver(handle.respond_error(&request_id, &error)),
            ControlAction::Mcp(message) => tools.on_mcp_message(request_id, handle, message),
            ControlAction::Elicit(ask) => {
                let tell = self.tell.clone();
                let rid = request_id.clone();
                let done = move || tell.tell(Done::Answered { request_id: rid });
                if let Some(task) = elicit::ask(ctx, &request_id, handle, *ask, done) {
                    self.asks.started(request_id, task, AskKind::Elicitation);
                }
            }
            ControlAction::AskPermission(ask) => {
                self.path
                    .saw_can_use_tool(ask.tool_use_id.as_deref().unwrap_or_default());
                let mut asker = self.asker.clone();
                // A subagent's call is asked on its child session, where its card is.
                if let Some(agent) = ask.agent_id.as_deref()
                    && ctx.editor.supports_subagents()
                {
                    asker.session_id = crate::domain::subagent_session_id(&ctx.id, agent);
                }
                let tell = self.tell.clone();
                let rid = request_id.clone();
                let task = tokio::spawn(async move {
                    let (reply, by) = asker.decide(*ask).await;
                    let _ = handle.answer_permission(&rid, reply, by).await;
                    tell.tell(Done::Answered { request_id: rid });
                });
                self.asks.started(request_id, task, AskKind::Permission);
            }
        }
    }

    /// The turn is cancelled: the pending asks and editor tool calls end now (the editor's
    /// requests withdrawn, claude told the user cancelled), and claude is interrupted.
    pub(super) fn end_what_it_waits_on(&mut self, tools: &mut EditorTools) {
        let handle = self.handle();
        tools.cancel_file_calls(handle.clone());
        for (request_id, kind) in self.asks.withdraw_all() {
            let Some(h) = &handle else { continue };
            match kind {
                AskKind::Permission => {
                    let decision = PermissionDecision::Deny {
                        message: "The user cancelled the turn.".into(),
                        interrupt: true,
                    };
                    let by = Some(crate::claude::wire::DecisionClassification::UserReject);
                    deliver(h.answer_permission(&request_id, decision, by));
                }
                AskKind::Elicitation => {
                    deliver(h.respond_success(&request_id, ElicitationAnswer::Cancel.to_value()))
                }
            }
        }
        self.interrupt();
    }

    /// Interrupts claude's turn and drops the prompts waiting in its queue, in a task.
    pub(super) fn interrupt(&self) {
        let Some(handle) = self.handle() else {
            return;
        };
        let interrupt = handle.request(
            OutboundControl::InterruptAll {
                cancel_queued: true,
            },
            CONTROL_TIMEOUT,
        );
        tokio::spawn(async move {
            if let Err(e) = interrupt.await {
                tracing::debug!("interrupt not acknowledged: {e}");
            }
        });
    }

    /// The actor's side of a switch to the MCP permission path (the why and the what-to-say live
    /// in `permissions/fallback/`): says so in the thread and stops claude; the turn is kept and
    /// retried on a new claude once this one is gone ([`Done::SwitchReady`], or at once when none
    /// ran: the symptom is handed back).
    pub(super) fn switch_to_mcp(
        &mut self,
        ctx: &SessionContext,
        symptom: BreakSymptom,
    ) -> Option<BreakSymptom> {
        ctx.tell_editor(SessionUpdate::agent_text(fallback::switch_notice(&symptom)));
        match self.running.ended() {
            // Stopped politely, in a task: with its stdin closed claude writes out the rest of its
            // transcript before it exits, and the new claude resumes all of it. Killed at once,
            // it could lose the turn's last lines, or the whole conversation if it had stored none.
            Some(mut old) => {
                let tell = self.tell.clone();
                tokio::spawn(async move {
                    old.shutdown(STOP_GRACE).await;
                    tell.tell(Done::SwitchReady(symptom));
                });
                None
            }
            None => Some(symptom),
        }
    }

    /// A setting claude takes only at its start changed ("File edits", "Terminal", "Agent",
    /// claude's route): a running claude is to be replaced once no turn runs.
    pub(super) fn restart_due(&mut self) {
        self.restart_due = self.running.is_running();
    }

    /// Stops claude for a changed setting once no turn is running; the next prompt resumes it.
    pub(super) fn restart_if_due(
        &mut self,
        ctx: &SessionContext,
        turn: bool,
        tools: &mut EditorTools,
    ) {
        if self.restart_due && !turn {
            self.restart_due = false;
            if let Some(mut claude) = self.running.ended() {
                tracing::info!(session = %ctx.id, "restarting claude for a changed setting");
                // Stdin closed: claude writes out its transcript before it exits, for the next
                // claude's `--resume`.
                tokio::spawn(async move { claude.shutdown(STOP_GRACE).await });
            }
            tools.abort_file_tasks();
        }
    }

    /// When claude is to be stopped, if nothing happens before: never while a turn runs
    /// (`turn`), a permission ask is open or claude has background work (its own, or a background
    /// command in the editor's terminal, which ends with claude).
    pub(super) fn idle_deadline(&self, turn: bool, tools: &EditorTools) -> Option<Instant> {
        let busy = !self.running.is_running()
            || turn
            || self.asks.any_open()
            || tools.terminal_runs_in_background();
        self.idle.deadline(busy)
    }

    /// Something happened in the session: the idle time starts again.
    pub(super) fn touch(&mut self) {
        self.idle.touch();
    }

    /// Whether claude was stopped for being idle (a mode or model change starts it again).
    pub(super) fn stopped_for_idle(&self) -> bool {
        self.idle.stopped && !self.running.is_running()
    }

    /// The idle timeout has passed: stops claude cleanly (stdin closed, so it ends as it would
    /// when the editor quits), unless one of our control requests still waits for its answer.
    pub(super) async fn stop_if_idle(
        &mut self,
        ctx: &SessionContext,
        turn: bool,
        tools: &EditorTools,
    ) {
        let waiting = self.handle().map_or(0, |handle| handle.requests_waiting());
        if waiting > 0 || self.idle_deadline(turn, tools).is_none() {
            return;
        }
        // Its `--mcp-config` file (the editor's MCP secrets) goes with it.
        let Some(mut process) = self.running.ended() else {
            return;
        };
        process.shutdown(STOP_GRACE).await;
        self.idle.stopped = true;
        tracing::info!(session = %ctx.id,
            "claude stopped after {:?} idle; the next prompt resumes it", self.idle.timeout.unwrap_or_default());
    }

    /// The session ends: claude is asked to stop each of its background tasks (`stop_task`) before
    /// its stdin closes, so that it ends them as its own and says so in its transcript (a resumed
    /// conversation does not wait on a job that is gone). Whatever is left is killed with claude's
    /// tree afterwards, so a claude that does not answer only costs `STOP_TASKS_WAIT`.
    async fn stop_background_tasks(&mut self, ctx: &SessionContext) {
        let Some(handle) = self.handle() else {
            return;
        };
        let stops: Vec<_> = self
            .idle
            .take_background_tasks()
            .into_iter()
            .filter(|id| !id.is_empty())
            .map(|task_id| handle.request(OutboundControl::StopTask { task_id }, STOP_TASKS_WAIT))
            .collect();
        if stops.is_empty() {
            return;
        }
        let stopped = tokio::time::timeout(STOP_TASKS_WAIT, futures::future::join_all(stops)).await;
        tracing::debug!(session = %ctx.id, answered = stopped.is_ok(), "asked claude to stop its background tasks");
    }
}

/// What claude has written of this conversation to disk. It writes the conversation only
/// after its first API request: a claude that died before that left nothing to `--resume`
/// ("No conversation found"), or a transcript without it, which keeps claude from
/// starting the session afresh until it is set aside.
fn stored_by_claude(ctx: &SessionContext) -> crate::history::Stored {
    match &ctx.config.claude_config_dir {
        Some(dir) => crate::history::stored(dir, &ctx.id),
        None => crate::history::Stored::Conversation,
    }
}

/// claude's transcript of a session rewound to before its first prompt is set aside
/// (`<id>.jsonl.rewound`): claude starts a conversation under an id only where none is stored.
fn set_aside_transcript(ctx: &SessionContext) {
    if let Some(dir) = &ctx.config.claude_config_dir
        && let Err(e) = crate::history::set_aside(dir, &ctx.id)
    {
        tracing::info!(session = %ctx.id, "could not set the rewound transcript aside: {e}");
    }
}
