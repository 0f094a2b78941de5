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
use super::permissions;
use super::spawn::{SessionFlags, Start};
use super::transport::McpPath;
use crate::claude::wire::{OutboundControl, PermissionDecision};
use crate::claude::{ClaudeEvent, ClaudeHandle, ClaudeProcess, ExitInfo};
use crate::domain::McpServer;
use crate::domain::{AgentError, ConfigOption, EditorClient, PromptBlock, StopReason};
use crate::mcp::{BreakDetector, BreakSymptom, McpConfigFile};
use crate::translate::{self, TurnTranslator};

mod claude_io;
mod fallback;
mod idle;
mod settings;

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
    /// When claude last had something to do (it is stopped after the idle timeout).
    idle: idle::Idle,
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
        let idle = idle::Idle::new(config.idle_timeout);
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
            idle,
        }
    }

    /// Starts claude now, so the first prompt finds it warm. Never waits on a model turn.
    pub fn start(&mut self) -> Result<(), AgentError> {
        self.ensure_claude()
    }

    pub fn mode(&self) -> &str {
        &self.mode
    }

    /// Runs until the session is closed or every handle to it is gone.
    pub async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) {
        loop {
            let deadline = self.turn.as_ref().and_then(|t| t.deadline);
            let idle_at = self.idle_deadline();
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
                () = sleep_until(idle_at) => self.stop_idle_claude().await,
            }
            self.idle.touch();
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
                let value = serde_json::to_value(decision).unwrap_or_default();
                deliver(h.respond_success(&request_id, value));
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

    fn on_internal(&mut self, internal: Internal) {
        match internal {
            Internal::Initialized(reply) => self.on_initialized(reply),
            Internal::PermissionDone { request_id } => {
                self.permission_tasks.remove(&request_id);
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

/// Lets a line already queued for claude finish writing in the background.
fn deliver(sent: impl Future<Output = Result<(), crate::claude::ClaudeError>> + Send + 'static) {
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
