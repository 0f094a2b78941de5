//! One session: a task that owns its claude process and runs one turn at a time.
//!
//! Everything about a session happens here, in order: prompts, cancels, mode changes, claude's
//! output and its control requests. Work that waits on the editor (permission asks) or on claude
//! (control replies) runs in tasks of its own and reports back, so the loop never stalls.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::asker::PermissionAsker;
use super::config::AdapterConfig;
use super::config::PermissionTransport;
use super::control::{ControlAction, classify};
use super::spawn::{SessionFlags, Start};
use super::transport::{self, McpPath};
use super::{modes, permissions, spawn};
use crate::claude::wire::{ClaudeInput, ClaudeMessage, OutboundControl, PermissionDecision};
use crate::claude::{ClaudeEvent, ClaudeHandle, ClaudeProcess, ExitInfo};
use crate::domain::McpServer;
use crate::domain::{
    AgentError, ConfigOption, EditorClient, PromptBlock, SessionUpdate, StopReason,
};
use crate::mcp::{BreakDetector, BreakSymptom, McpConfigFile};
use crate::translate::{self, TurnTranslator};

mod fallback;

/// How long claude may take to end a turn after an interrupt before it is stopped outright.
const CANCEL_GRACE: Duration = Duration::from_secs(5);
/// How long a control request to claude may take.
const CONTROL_TIMEOUT: Duration = Duration::from_secs(10);

pub type Reply<T> = oneshot::Sender<Result<T, AgentError>>;

/// What the rest of the adapter asks of a session.
pub enum Command {
    Prompt {
        blocks: Vec<PromptBlock>,
        reply: Reply<StopReason>,
    },
    Cancel,
    SetMode {
        mode: String,
        reply: Reply<()>,
    },
    SetConfigOption {
        id: String,
        value: String,
        reply: Reply<Vec<ConfigOption>>,
    },
    Close {
        reply: oneshot::Sender<()>,
    },
}

/// What the session's own helper tasks report back.
enum Internal {
    /// claude's answer to our `initialize`.
    Initialized(Value),
    /// A permission ask has been answered (or withdrawn).
    PermissionDone { request_id: String },
}

struct Live {
    process: ClaudeProcess,
    handle: ClaudeHandle,
    events: mpsc::UnboundedReceiver<ClaudeEvent>,
}

struct Turn {
    reply: Reply<StopReason>,
    /// The prompt, to send again if claude had to be restarted before it read it.
    blocks: Vec<PromptBlock>,
    cancelled: bool,
    /// Set when cancelled: past it, the turn ends as cancelled whether or not claude agrees.
    deadline: Option<Instant>,
}

pub struct SessionActor {
    /// How permission asks reach the editor, whichever transport brings them.
    asker: PermissionAsker,
    /// The running claude's handle, shared with asks that outlive a restart.
    claude_slot: Arc<std::sync::Mutex<Option<ClaudeHandle>>>,
    mode_rx: mpsc::UnboundedReceiver<String>,
    /// The editor's MCP servers, passed to claude in `--mcp-config`.
    editor_servers: Vec<McpServer>,
    /// Whether claude asks through our MCP permission tool rather than stdio.
    use_mcp: bool,
    /// Whether a broken stdio permission channel may still switch this session to MCP.
    auto_fallback: bool,
    mcp: Option<McpPath>,
    /// The `--mcp-config` file of the running claude.
    mcp_file: Option<McpConfigFile>,
    detector: BreakDetector,
    /// A break seen in this turn: acted on when the turn ends.
    switch: Option<BreakSymptom>,
    id: String,
    cwd: PathBuf,
    config: Arc<AdapterConfig>,
    editor: Arc<dyn EditorClient>,
    flags: SessionFlags,
    live: Option<Live>,
    /// Whether claude holds a stored conversation for this id (so a respawn must resume it).
    conversation_stored: bool,
    next_start: Start,
    translator: TurnTranslator,
    turn: Option<Turn>,
    mode: String,
    /// Whether the mode was set or seen changing since the session opened.
    mode_touched: bool,
    models: Vec<(String, String, Option<String>)>,
    model: Option<String>,
    permission_tasks: HashMap<String, JoinHandle<()>>,
    /// "Always reject" rules of this session, re-sent to a restarted claude.
    rules: permissions::SessionRules,
    internal_tx: mpsc::UnboundedSender<Internal>,
    internal_rx: mpsc::UnboundedReceiver<Internal>,
}

impl SessionActor {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: String,
        cwd: PathBuf,
        config: Arc<AdapterConfig>,
        editor: Arc<dyn EditorClient>,
        flags: SessionFlags,
        editor_servers: Vec<McpServer>,
        start: Start,
        mode: String,
    ) -> Self {
        let (internal_tx, internal_rx) = mpsc::unbounded_channel();
        let (mode_tx, mode_rx) = mpsc::unbounded_channel();
        let conversation_stored = matches!(start, Start::Resume);
        let rules = permissions::SessionRules::new();
        let claude_slot = Arc::new(std::sync::Mutex::new(None));
        let asker = PermissionAsker {
            editor: editor.clone(),
            session_id: id.clone(),
            cwd: cwd.clone(),
            rules: rules.clone(),
            claude: claude_slot.clone(),
            mode_changes: mode_tx,
        };
        let transport = config.permission_transport;
        let model = flags.value_of("--model").map(str::to_owned);
        Self {
            asker,
            claude_slot,
            mode_rx,
            editor_servers,
            use_mcp: transport == PermissionTransport::Mcp,
            auto_fallback: transport == PermissionTransport::Auto,
            mcp: None,
            mcp_file: None,
            detector: BreakDetector::new(),
            switch: None,
            translator: TurnTranslator::new(cwd.clone()),
            id,
            cwd,
            config,
            editor,
            flags,
            live: None,
            conversation_stored,
            next_start: start,
            turn: None,
            mode,
            mode_touched: false,
            models: Vec::new(),
            model,
            permission_tasks: HashMap::new(),
            rules,
            internal_tx,
            internal_rx,
        }
    }

    /// Starts claude now, so the first prompt finds it warm. Never waits on a model turn.
    pub fn start(&mut self) -> Result<(), AgentError> {
        self.ensure_claude()
    }

    pub fn config_options(&self) -> Vec<ConfigOption> {
        let mut options = vec![modes::config_option(
            &self.mode,
            self.config.allow_bypass_permissions,
        )];
        if let Some(model) = self.model_option() {
            options.push(model);
        }
        options
    }

    fn model_option(&self) -> Option<ConfigOption> {
        if self.models.is_empty() {
            return None;
        }
        Some(ConfigOption {
            id: "model".into(),
            name: "Model".into(),
            description: Some("The model claude uses in this session".into()),
            category: Some("model".into()),
            current: self
                .model
                .clone()
                .unwrap_or_else(|| self.models[0].0.clone()),
            values: self
                .models
                .iter()
                .map(|(id, name, description)| crate::domain::ConfigValue {
                    id: id.clone(),
                    name: name.clone(),
                    description: description.clone(),
                })
                .collect(),
        })
    }

    pub fn mode(&self) -> &str {
        &self.mode
    }

    fn ensure_claude(&mut self) -> Result<(), AgentError> {
        if self.live.is_some() {
            return Ok(());
        }
        let command = self.config.claude.clone().map_err(AgentError::Internal)?;
        let start = if self.conversation_stored && self.stored_by_claude() {
            Start::Resume
        } else {
            self.next_start.clone()
        };
        if self.use_mcp && self.mcp.is_none() {
            self.mcp = Some(McpPath::start(self.asker.clone()).map_err(AgentError::Internal)?);
        }
        let (permission_args, mcp_file) =
            transport::claude_args(&self.editor_servers, self.mcp.as_ref())
                .map_err(AgentError::Internal)?;
        self.mcp_file = mcp_file;
        let opts = spawn::options(
            &command,
            &self.cwd,
            &self.id,
            &start,
            &self.flags,
            &permission_args,
        );
        let (process, handle, events) = ClaudeProcess::spawn(opts)
            .map_err(|e| AgentError::Internal(format!("could not start claude: {e}")))?;
        tracing::info!(session = %self.id, pid = ?process.pid(), ?start, "claude started");
        self.live = Some(Live {
            process,
            handle: handle.clone(),
            events,
        });
        *self.claude_slot.lock().expect("claude handle lock") = Some(handle.clone());
        let internal = self.internal_tx.clone();
        // Queued now, so it is claude's first line whatever the turn sends next.
        let request = OutboundControl::Initialize {
            hooks: None,
            sdk_mcp_servers: vec![],
        };
        let initialize = handle.request(request, CONTROL_TIMEOUT);
        tokio::spawn(async move {
            match initialize.await {
                Ok(reply) => {
                    let _ = internal.send(Internal::Initialized(reply));
                }
                Err(e) => tracing::warn!("claude did not answer initialize: {e}"),
            }
        });
        Ok(())
    }

    /// Whether claude has written this conversation to disk. It does so only after its first API
    /// request: a claude that died before that left nothing to `--resume`, and resuming it would
    /// fail for good ("No conversation found"), so the conversation starts afresh under its id.
    fn stored_by_claude(&self) -> bool {
        match &self.config.claude_config_dir {
            Some(dir) => crate::history::find(dir, &self.id).is_some(),
            None => true,
        }
    }

    /// Runs until the session is closed or every handle to it is gone.
    pub async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) {
        loop {
            let deadline = self.turn.as_ref().and_then(|t| t.deadline);
            tokio::select! {
                cmd = commands.recv() => match cmd {
                    Some(Command::Close { reply }) => {
                        self.shutdown().await;
                        let _ = reply.send(());
                        return;
                    }
                    Some(cmd) => self.on_command(cmd).await,
                    None => {
                        self.shutdown().await;
                        return;
                    }
                },
                event = next_event(&mut self.live) => match event {
                    Some(event) => self.on_claude(event),
                    // The reader ends after its one `Exited`; a closed channel without it still means gone.
                    None => self.on_exit(ExitInfo { status: "unknown status".into(), code: None, stderr_tail: String::new() }),
                },
                Some(internal) = self.internal_rx.recv() => self.on_internal(internal),
                Some(mode) = self.mode_rx.recv() => self.mode_changed(mode),
                () = sleep_until(deadline) => {
                    tracing::warn!(session = %self.id, "claude did not end the turn after an interrupt; stopping it");
                    self.stop_claude();
                    self.finish_turn(Ok(StopReason::Cancelled));
                }
            }
        }
    }

    async fn on_command(&mut self, cmd: Command) {
        match cmd {
            Command::Prompt { blocks, reply } => self.start_turn(blocks, reply),
            Command::Cancel => self.cancel(),
            Command::SetMode { mode, reply } => {
                let result = self.set_mode(&mode).await;
                let _ = reply.send(result);
            }
            Command::SetConfigOption { id, value, reply } => {
                let result = match id.as_str() {
                    "mode" => self.set_mode(&value).await.map(|()| self.config_options()),
                    "model" => self.set_model(&value).await.map(|()| self.config_options()),
                    other => Err(AgentError::InvalidParams(format!(
                        "unknown config option `{other}`"
                    ))),
                };
                let _ = reply.send(result);
            }
            Command::Close { .. } => unreachable!("handled in run"),
        }
    }

    fn start_turn(&mut self, blocks: Vec<PromptBlock>, reply: Reply<StopReason>) {
        if self.turn.is_some() {
            let _ = reply.send(Err(AgentError::Busy(self.id.clone())));
            return;
        }
        if let Err(e) = self.ensure_claude() {
            let _ = reply.send(Err(e));
            return;
        }
        let message = translate::user_message(&self.id, &blocks);
        self.switch = None;
        let handle = self
            .live
            .as_ref()
            .map(|l| l.handle.clone())
            .expect("claude is running");
        self.translator.start_turn();
        self.turn = Some(Turn {
            reply,
            blocks,
            cancelled: false,
            deadline: None,
        });
        self.conversation_stored = true;
        let internal_session = self.id.clone();
        let sent = handle.send(message);
        tokio::spawn(async move {
            if let Err(e) = sent.await {
                // The exit event that follows ends the turn with claude's status and stderr.
                tracing::warn!(session = %internal_session, "prompt not delivered to claude: {e}");
            }
        });
    }

    fn cancel(&mut self) {
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        if turn.cancelled {
            return;
        }
        turn.cancelled = true;
        turn.deadline = Some(Instant::now() + CANCEL_GRACE);
        // Pending asks end now: the editor's request is withdrawn and claude gets a deny.
        let handle = self.live.as_ref().map(|l| l.handle.clone());
        for (request_id, task) in self.permission_tasks.drain() {
            task.abort();
            if let Some(h) = &handle {
                let decision = PermissionDecision::Deny {
                    message: "The user cancelled the turn.".into(),
                    interrupt: true,
                };
                let line = ClaudeInput::success(
                    request_id,
                    serde_json::to_value(decision).unwrap_or_default(),
                );
                spawn_send(h.clone(), line);
            }
        }
        if let Some(h) = handle {
            let interrupt = h.request(OutboundControl::Interrupt, CONTROL_TIMEOUT);
            tokio::spawn(async move {
                if let Err(e) = interrupt.await {
                    tracing::warn!("interrupt not acknowledged: {e}");
                }
            });
        }
    }

    async fn set_mode(&mut self, mode: &str) -> Result<(), AgentError> {
        if !modes::is_known(mode, self.config.allow_bypass_permissions) {
            return Err(AgentError::InvalidParams(format!("unknown mode `{mode}`")));
        }
        if let Some(live) = &self.live {
            live.handle
                .request(
                    OutboundControl::SetPermissionMode { mode: mode.into() },
                    CONTROL_TIMEOUT,
                )
                .await
                .map_err(|e| {
                    AgentError::Internal(format!("claude refused the mode change: {e}"))
                })?;
        } else {
            self.flags.set("--permission-mode", mode);
        }
        self.mode_changed(mode.to_owned());
        Ok(())
    }

    async fn set_model(&mut self, model: &str) -> Result<(), AgentError> {
        if !self.models.is_empty() && !self.models.iter().any(|(id, ..)| id == model) {
            return Err(AgentError::InvalidParams(format!(
                "unknown model `{model}`"
            )));
        }
        self.ensure_claude()?;
        let handle = self
            .live
            .as_ref()
            .map(|l| l.handle.clone())
            .expect("claude is running");
        handle
            .request(
                OutboundControl::SetModel {
                    model: Some(model.into()),
                },
                CONTROL_TIMEOUT,
            )
            .await
            .map_err(|e| AgentError::Internal(format!("claude refused the model change: {e}")))?;
        self.model = Some(model.to_owned());
        // Kept for a restarted claude, which would otherwise fall back to the default model.
        self.flags.set("--model", model);
        Ok(())
    }

    /// Tells the editor in both forms clients read: the mode update and the config options.
    fn mode_changed(&mut self, mode: String) {
        self.mode_touched = true;
        if self.mode == mode {
            return;
        }
        self.mode = mode.clone();
        self.editor
            .session_update(&self.id, SessionUpdate::CurrentMode { mode_id: mode });
        self.editor.session_update(
            &self.id,
            SessionUpdate::ConfigOptions {
                options: self.config_options(),
            },
        );
    }

    fn on_internal(&mut self, internal: Internal) {
        match internal {
            Internal::Initialized(reply) => self.on_initialized(reply),
            Internal::PermissionDone { request_id } => {
                self.permission_tasks.remove(&request_id);
            }
        }
    }

    fn on_initialized(&mut self, reply: Value) {
        if let (Some(settings), Some(live)) = (self.rules.flag_settings(), &self.live) {
            let request = OutboundControl::ApplyFlagSettings { settings };
            let handle = live.handle.clone();
            tokio::spawn(async move { handle.request(request, CONTROL_TIMEOUT).await });
        }
        if let Some(commands) = translate::available_commands(&reply) {
            self.editor
                .session_update(&self.id, SessionUpdate::AvailableCommands { commands });
        }
        self.models = translate::models(&reply);
        let before = self.config_options();
        // claude's starting mode counts only until anyone (the editor, claude) has changed it: the
        // reply may arrive after an early `session/set_mode`.
        if let Some(mode) = reply.get("current_permission_mode").and_then(Value::as_str)
            && !self.mode_touched
            && modes::is_known(mode, true)
            && mode != self.mode
        {
            self.mode_changed(mode.to_owned());
            return;
        }
        if !self.models.is_empty() || before != self.config_options() {
            self.editor.session_update(
                &self.id,
                SessionUpdate::ConfigOptions {
                    options: self.config_options(),
                },
            );
        }
    }

    fn on_claude(&mut self, event: ClaudeEvent) {
        match event {
            ClaudeEvent::Message(message) => self.on_message(message),
            ClaudeEvent::Exited(info) => self.on_exit(info),
        }
    }

    fn on_message(&mut self, message: ClaudeMessage) {
        self.watch_for_break(&message);
        match message {
            ClaudeMessage::ControlRequest(req) => self.on_control_request(req),
            ClaudeMessage::ControlCancelRequest { request_id } => {
                // claude withdrew the ask: withdraw the editor's request too; a late answer is dropped.
                if let Some(task) = self.permission_tasks.remove(&request_id) {
                    task.abort();
                }
            }
            ClaudeMessage::Result(result) => {
                let end = self.translator.on_result(&result);
                for update in end.updates {
                    self.editor.session_update(&self.id, update);
                }
                if self.turn.is_some() && self.switch.is_some() {
                    self.switch_to_mcp_and_retry();
                } else if self.turn.is_some() {
                    let outcome = end.outcome.map_err(turn_error);
                    self.finish_turn(outcome);
                } else {
                    tracing::debug!(session = %self.id, "a result outside any turn was dropped");
                }
            }
            other => {
                let out = self.translator.on_message(&other);
                for update in out.updates {
                    self.editor.session_update(&self.id, update);
                }
                for signal in out.signals {
                    self.on_signal(signal);
                }
            }
        }
    }

    fn on_signal(&mut self, signal: translate::TurnSignal) {
        match signal {
            translate::TurnSignal::ModeChanged(mode) => self.mode_changed(mode),
            translate::TurnSignal::Init(info) => {
                if let Some(version) = info.claude_code_version.as_deref() {
                    check_version(version);
                }
            }
            other => tracing::debug!(session = %self.id, ?other, "signal"),
        }
    }

    fn on_control_request(&mut self, req: crate::claude::wire::InboundControlRequest) {
        let Some(handle) = self.live.as_ref().map(|l| l.handle.clone()) else {
            return;
        };
        let request_id = req.request_id.clone();
        match classify(&req) {
            ControlAction::Reply(value) => {
                spawn_send(handle, ClaudeInput::success(request_id, value))
            }
            ControlAction::Fail(error) => spawn_send(handle, ClaudeInput::error(request_id, error)),
            ControlAction::AskPermission(ask) => {
                self.detector
                    .saw_can_use_tool(ask.tool_use_id.as_deref().unwrap_or_default());
                let asker = self.asker.clone();
                let internal = self.internal_tx.clone();
                let rid = request_id.clone();
                let task = tokio::spawn(async move {
                    let reply = asker.ask(*ask).await;
                    let value = serde_json::to_value(reply).unwrap_or_default();
                    let _ = handle.send(ClaudeInput::success(rid.clone(), value)).await;
                    let _ = internal.send(Internal::PermissionDone { request_id: rid });
                });
                self.permission_tasks.insert(request_id, task);
            }
        }
    }

    fn on_exit(&mut self, info: ExitInfo) {
        tracing::info!(session = %self.id, status = %info.status, "claude exited");
        self.live = None;
        *self.claude_slot.lock().expect("claude handle lock") = None;
        for (_, task) in self.permission_tasks.drain() {
            task.abort();
        }
        if self.watch_exit_for_break(&info) {
            return;
        }
        if let Some(turn) = &self.turn {
            if turn.cancelled {
                self.finish_turn(Ok(StopReason::Cancelled));
            } else {
                let tail = info.stderr_tail.trim();
                let detail = if tail.is_empty() {
                    String::new()
                } else {
                    format!("; its last output: {tail}")
                };
                self.finish_turn(Err(AgentError::Internal(format!(
                    "claude exited during the turn ({}){detail}. The next prompt restarts it with the conversation intact.",
                    info.status
                ))));
            }
        }
    }

    fn finish_turn(&mut self, outcome: Result<StopReason, AgentError>) {
        let Some(turn) = self.turn.take() else { return };
        let outcome = if turn.cancelled {
            Ok(StopReason::Cancelled)
        } else {
            outcome
        };
        let _ = turn.reply.send(outcome);
    }

    fn stop_claude(&mut self) {
        if let Some(live) = self.live.take() {
            live.process.kill();
        }
    }

    async fn shutdown(&mut self) {
        for (_, task) in self.permission_tasks.drain() {
            task.abort();
        }
        if let Some(mut live) = self.live.take() {
            live.process.shutdown(Duration::from_millis(500)).await;
        }
        // The config may hold the editor's MCP secrets: gone before the session says it is closed.
        self.mcp_file = None;
        self.mcp = None;
        if self.turn.is_some() {
            self.finish_turn(Ok(StopReason::Cancelled));
        }
    }
}

/// claude's error text -> the editor's error; "not logged in" is ACP's auth_required, so the
/// editor can offer its login flow.
fn turn_error(message: String) -> AgentError {
    let lower = message.to_lowercase();
    if lower.contains("not logged in")
        || lower.contains("/login")
        || lower.contains("invalid api key")
    {
        AgentError::AuthRequired(format!(
            "{message} (log in with `claude-acp login`, or set ANTHROPIC_API_KEY)"
        ))
    } else {
        AgentError::Internal(message)
    }
}

/// The drift canary: claude's protocol is undocumented, so say when it runs untested.
fn check_version(version: &str) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    if !crate::doctor::version_is_tested(version) {
        WARNED.call_once(|| {
            let (lo, hi) = crate::doctor::TESTED_CLAUDE_VERSIONS;
            tracing::warn!(
                "claude {version} is outside the versions claude-acp was tested with ({lo} to {hi}); \
                 if permission prompts or streaming misbehave, report it with this version"
            );
        });
    }
}

fn spawn_send(handle: ClaudeHandle, input: ClaudeInput) {
    let sent = handle.send(input);
    tokio::spawn(async move {
        if let Err(e) = sent.await {
            tracing::debug!("control reply not delivered: {e}");
        }
    });
}

async fn next_event(live: &mut Option<Live>) -> Option<ClaudeEvent> {
    match live {
        Some(live) => live.events.recv().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
