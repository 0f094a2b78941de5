//! One session: a task that owns its claude process and runs one turn at a time.
//!
//! Everything about a session happens here, in order: prompts, cancels, mode changes, claude's
//! output and its control requests. Work that waits on the editor (permission asks) or on claude
//! (control replies, mode and model changes) runs in tasks of its own and reports back, so the
//! loop never stalls.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;

use futures::FutureExt;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use self::asks::PendingAsks;
use self::next_claude::NextClaude;
pub(crate) use self::options::OpenedOptions;
use self::rewind::RewindDone;
use self::running::RunningClaude;
use self::settings::{Setting, SettingReply};
use self::toggles::Switches;
use self::turn::Turn;
use super::config::AdapterConfig;
use super::spawn::{SessionFlags, Start};
use crate::claude::ExitInfo;
use crate::claude::wire::ModelInfo;
use crate::domain::McpServer;
use crate::domain::{AgentError, ConfigOption, EditorClient, PromptBlock, StopReason, TurnOutcome};
use crate::editor_tools::fs::EditLog;
use crate::editor_tools::server::ToolServer;
use crate::editor_tools::setting::{self, ServedBy};
use crate::history::RewindPoint;
use crate::permissions::fallback::{BreakSymptom, PermissionPath};
use crate::permissions::{self, asker::PermissionAsker};
use crate::translate::TurnTranslator;

mod agent;
mod answers;
mod asks;
mod background;
mod claude_io;
mod context;
mod effort;
mod elicit;
mod files;
mod idle;
mod logout;
mod mcp;
mod next_claude;
mod options;
mod queue;
mod rewind;
mod rewind_asks;
mod rewind_editor;
mod running;
mod settings;
mod switch;
mod terminal;
mod title;
mod toggles;
mod turn;

/// How long a control request to claude may take.
const CONTROL_TIMEOUT: Duration = Duration::from_secs(10);

pub(crate) type Reply<T> = oneshot::Sender<Result<T, AgentError>>;

/// What the rest of the adapter asks of a session.
pub(crate) enum Command {
    Prompt {
        blocks: Vec<PromptBlock>,
        reply: Reply<TurnOutcome>,
        written: Option<crate::domain::AnswerWritten>,
        inserted: Option<crate::domain::Inserted>,
    },
    Cancel,
    /// `_session/steering`: into the running turn, or per `idle` when none runs.
    Steer {
        blocks: Vec<PromptBlock>,
        idle: crate::domain::IdleBehavior,
        reply: Reply<crate::domain::SteerOutcome>,
    },
    /// `session/cancel` of one of its subagents' child sessions: that subagent stops, the rest
    /// goes on.
    CancelSubagent {
        task_id: String,
    },
    /// `_session/async_task/stop`: one of claude's background jobs, by its task id.
    StopTask {
        task_id: String,
        reply: Reply<bool>,
    },
    /// ACP v2's `tool_call/cancel`: the background job a tool call started, by the call's id.
    CancelToolCall {
        tool_call_id: String,
        reply: Reply<()>,
    },
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
        reply: oneshot::Sender<Closed>,
    },
    /// The mode and config options for the answer that opens the session; `wait`: claude's
    /// models are not known yet and this session may wait a little for them.
    Options {
        wait: bool,
        reply: Reply<OpenedOptions>,
    },
    /// The user is logging out: end claude, which holds the old login.
    LoggedOut {
        reply: oneshot::Sender<()>,
    },
    /// claude's route changed (the editor's gateway): the claude running is replaced as soon as
    /// no turn runs, the next resuming the conversation.
    RouteChanged,
    /// The user trusted the workspace: the next claude loads the project's settings, and the
    /// running one is replaced as soon as no turn runs; `done` once that is in force.
    Trusted {
        done: oneshot::Sender<()>,
    },
    /// Makes the session's task panic where a bug would (built for unit tests only).
    #[cfg(test)]
    PanicForTest,
}

/// Whether the session goes on after one step of its loop.
enum Flow {
    Go,
    Stop,
}

/// What the session's own helper tasks report back.
enum Internal {
    /// claude's answer to our `initialize`.
    Initialized(Value),
    /// claude's answer to `get_settings`, asked when it starts.
    ClaudeSettings(Value),
    /// A permission ask or an MCP server's question has been answered (or withdrawn).
    PermissionDone { request_id: String },
    /// A session that waited for claude's models waited long enough.
    OptionsDeadline,
    /// claude's answer to `get_context_usage`, for a `/context` prompt.
    ContextUsage(Result<Value, String>),
    /// The answer to a `/mcp` prompt.
    McpDone(String),
    /// A `/undo` or `/rewind` has run its course.
    RewindDone(Result<RewindDone, AgentError>),
    /// The claude a switch to the MCP permission path stopped has exited.
    SwitchReady(BreakSymptom),
    /// claude answered a mode or model change, or did not in time.
    SettingDone {
        setting: Setting,
        answer: Result<(), crate::claude::ClaudeError>,
        reply: SettingReply,
    },
}

/// What a session is opened with.
pub(crate) struct SessionSpec {
    pub(crate) id: String,
    pub(crate) cwd: PathBuf,
    pub(crate) flags: SessionFlags,
    /// The editor's MCP servers, passed to claude in `--mcp-config`.
    pub(crate) editor_servers: Vec<McpServer>,
    pub(crate) start: Start,
    pub(crate) mode: String,
    /// claude's models as last seen (the options cache); empty when unknown.
    pub(crate) models: Vec<ModelInfo>,
    /// Where an earlier `/undo` or `/rewind` left the stored thread, while it is still in force.
    pub(crate) rewind: Option<RewindPoint>,
    /// Whether Read, Write and Edit go through the editor; `None` where it cannot serve files.
    pub(crate) file_edits: Option<ServedBy>,
    /// Whether Bash runs in the editor's terminal; `None` where the editor has none.
    pub(crate) terminal: Option<ServedBy>,
    /// Fast mode and ultracode as the session this one replaces had them (`session/load` of a
    /// session open in this process); off for a session opened afresh.
    pub(crate) switches: Switches,
    /// The workspace's settings wait for the user's trust (see `session::trust`).
    pub(crate) untrusted: Option<crate::session::trust::Untrusted>,
}

/// What a closed session hands on to one opened over it (`session/load` of the same id): the
/// toggles the editor set, which claude keeps only in its session-scoped flag layer.
#[derive(Debug, Default)]
pub(crate) struct Closed {
    pub(crate) switches: Switches,
}

/// What the session is and talks to: fixed when it opens, except claude's flags, which follow
/// the settings so a restarted claude starts with them.
struct SessionContext {
    id: String,
    cwd: PathBuf,
    config: Arc<AdapterConfig>,
    editor: Arc<dyn EditorClient>,
    /// claude's command-line flags (`--model`, `--effort`, `--permission-mode` kept current).
    flags: SessionFlags,
    /// The editor's MCP servers, passed to claude in `--mcp-config`.
    editor_servers: Vec<McpServer>,
    /// While the workspace is not trusted, claude starts without its project's settings.
    untrusted: Option<crate::session::trust::Untrusted>,
}

/// What the session's own tasks report back to its loop.
struct Inbox {
    tx: mpsc::UnboundedSender<Internal>,
    rx: mpsc::UnboundedReceiver<Internal>,
    /// Modes the permission asker saw claude enter (an approved plan, an "always allow" edit).
    mode_changes: mpsc::UnboundedReceiver<String>,
}

pub(crate) struct SessionActor {
    ctx: SessionContext,
    /// The running claude, and how the next one resumes the conversation.
    claude: RunningClaude,
    next: NextClaude,
    /// The prompt being answered, and claude's output for it translated for the editor.
    turn: Option<Turn>,
    /// The prompts waiting behind it, and the user messages claude has yet to answer.
    queue: queue::PromptQueue,
    /// The latest answer given, until it is queued to the editor: claude's output waits for it.
    answers_written: Option<turn::AnswersWritten>,
    translator: TurnTranslator,
    /// Mode, model and effort as the editor sees them, and what it was told.
    settings: settings::Settings,
    /// How permission asks reach the editor, whichever transport brings them.
    asker: PermissionAsker,
    /// How claude's permission asks reach us (and whether a broken stdio channel switches it).
    path: PermissionPath,
    asks: PendingAsks,
    /// "Always reject" rules of this session, re-sent to a restarted claude.
    rules: permissions::SessionRules,
    /// What the session serves claude in the editor's place (files, terminal) and their state.
    tools: files::EditorTools,
    /// When claude last had something to do (it is stopped after the idle timeout).
    idle: idle::Idle,
    inbox: Inbox,
    /// Whether the editor was told the title (once, after the first turn).
    title_announced: bool,
}

impl SessionActor {
    pub(crate) fn new(
        spec: SessionSpec,
        config: Arc<AdapterConfig>,
        editor: Arc<dyn EditorClient>,
    ) -> Self {
        let SessionSpec {
            id,
            cwd,
            flags,
            editor_servers,
            start,
            mode,
            models,
            rewind,
            file_edits,
            terminal,
            switches,
            untrusted,
        } = spec;
        let (tx, rx) = mpsc::unbounded_channel();
        let (mode_tx, mode_changes) = mpsc::unbounded_channel();
        let rules = permissions::SessionRules::new();
        let claude = RunningClaude::default();
        let asker = PermissionAsker {
            editor: editor.clone(),
            session_id: id.clone(),
            cwd: cwd.clone(),
            rules: rules.clone(),
            claude: claude.shared_handle(),
            mode_changes: mode_tx,
            mode: Arc::new(std::sync::Mutex::new(mode.clone())),
            files: Arc::default(),
            terminal: Arc::default(),
            sources: permissions::RuleSources::from_flags(
                &cwd,
                &flags.extra_args,
                &flags.secret_files,
            ),
        };
        let mut settings = settings::Settings::new(mode, models, &flags);
        settings.toggles.fast = switches.fast;
        settings.toggles.ultracode = switches.ultracode;
        let edit_log = EditLog::new(config.claude_config_dir.clone(), id.clone());
        let mut actor = Self {
            asker,
            path: PermissionPath::new(config.permission_transport),
            translator: {
                let mut translator = TurnTranslator::new(cwd.clone());
                translator.forward_subagent_text(flags.forward_subagent_text);
                translator.name_session(&id);
                translator
            },
            claude,
            next: NextClaude::new(start, rewind),
            turn: None,
            queue: queue::PromptQueue::default(),
            answers_written: None,
            settings,
            asks: PendingAsks::default(),
            rules,
            inbox: Inbox {
                tx,
                rx,
                mode_changes,
            },
            title_announced: false,
            idle: idle::Idle::new(config.idle_timeout),
            tools: files::EditorTools {
                file_edits,
                terminal,
                edit_log,
                served: ToolServer::default(),
                file_tasks: Vec::new(),
                restart_due: false,
            },
            ctx: SessionContext {
                id,
                cwd,
                config,
                editor,
                flags,
                editor_servers,
                untrusted,
            },
        };
        // A session opened on a gateway's route offers the models it lists from the start.
        actor.offer_models(settings::ClaudeModel::NextStart);
        actor
    }

    /// Starts claude now, so the first prompt finds it warm. Never waits on a model turn.
    pub(crate) fn start(&mut self) -> Result<(), AgentError> {
        self.ensure_claude()
    }

    /// Runs until the session is closed or every handle to it is gone.
    ///
    /// A panic while handling one event (a bug) is caught here, so it never takes the session's
    /// prompt or claude with it: the prompt is answered with an error, claude is stopped, and the
    /// session goes on (the next prompt starts claude again with `--resume`).
    pub(crate) async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) {
        loop {
            let step = AssertUnwindSafe(self.step(&mut commands))
                .catch_unwind()
                .await;
            match step {
                Ok(Flow::Go) => self.idle.touch(),
                Ok(Flow::Stop) => return,
                Err(panic) => self.recover_from_panic(&*panic),
            }
        }
    }

    /// Waits for the next thing to happen and handles it.
    async fn step(&mut self, commands: &mut mpsc::UnboundedReceiver<Command>) -> Flow {
        let deadline = self.turn.as_ref().and_then(|t| t.deadline);
        let idle_at = self.idle_deadline();
        let answer_pending = self.answers_written.clone();
        tokio::select! {
            cmd = commands.recv() => match cmd {
                Some(Command::Close { reply }) => {
                    self.shutdown().await;
                    let _ = reply.send(Closed {
                        switches: self.settings.switches(),
                    });
                    return Flow::Stop;
                }
                Some(cmd) => self.on_command(cmd).await,
                None => {
                    self.shutdown().await;
                    return Flow::Stop;
                }
            },
            // The editor sees an answer before what claude does next (the next prompt's turn).
            () = wait_written(answer_pending.clone()), if answer_pending.is_some() => {
                self.answers_written = None;
            }
            event = self.claude.next_event(&*self.ctx.editor), if answer_pending.is_none() => match event {
                Some(event) => self.on_claude(event),
                // The reader ends after its one `Exited`; a closed channel without it still means gone.
                None => self.on_exit(ExitInfo { status: "unknown status".into(), code: None, stderr_tail: String::new() }),
            },
            Some(internal) = self.inbox.rx.recv() => self.on_internal(internal).await,
            Some(mode) = self.inbox.mode_changes.recv() => self.mode_changed(mode),
            () = sleep_until(deadline) => {
                tracing::warn!(session = %self.ctx.id, "claude did not end the turn after an interrupt; stopping it");
                self.stop_claude();
                self.finish_turn(Ok(StopReason::Cancelled));
            }
            () = sleep_until(idle_at) => self.stop_idle_claude().await,
        }
        Flow::Go
    }

    /// After a panic in this session's code: its claude may be mid-turn in a state the session no
    /// longer follows, so it is stopped, and the prompt waiting is told.
    fn recover_from_panic(&mut self, panic: &(dyn std::any::Any + Send)) {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        tracing::error!(session = %self.ctx.id, panic = %what, "internal error in the session; its claude is stopped");
        self.asks.withdraw_all();
        self.stop_claude();
        if let Some(turn) = self.turn.as_mut() {
            // An internal error is what the editor gets, even for a turn being cancelled.
            turn.cancelled = false;
        }
        self.end_turns(
            Err(AgentError::Internal(format!(
                "claude-acp hit an internal error in this session ({what}); its claude was stopped. \
                 The next prompt starts it again with the conversation intact."
            ))),
            true,
        );
    }

    async fn on_command(&mut self, cmd: Command) {
        match cmd {
            Command::Prompt {
                blocks,
                reply,
                written,
                inserted,
            } => self.start_turn(blocks, reply, written, inserted),
            Command::Cancel => self.cancel(),
            Command::Steer {
                blocks,
                idle,
                reply,
            } => self.steer(blocks, idle, reply),
            Command::StopTask { task_id, reply } => self.stop_task(task_id, reply),
            Command::CancelToolCall {
                tool_call_id,
                reply,
            } => self.cancel_tool_call(tool_call_id, reply),
            Command::CancelSubagent { task_id } => self.cancel_subagent(task_id),
            Command::SetMode { mode, reply } => self.set_mode(mode, SettingReply::Mode(reply)),
            Command::SetConfigOption { id, value, reply } => match id.as_str() {
                "mode" => self.set_mode(value, SettingReply::ConfigOption(reply)),
                "model" => self.set_model(value, SettingReply::ConfigOption(reply)),
                "effort" => self.set_effort(value, SettingReply::ConfigOption(reply)),
                agent::AGENT_ID => {
                    let result = self.set_agent(&value).map(|()| self.config_options());
                    let _ = reply.send(result);
                }
                toggles::FAST_ID => self.set_toggle(
                    toggles::Toggle::Fast,
                    &value,
                    SettingReply::ConfigOption(reply),
                ),
                toggles::ULTRACODE_ID => self.set_toggle(
                    toggles::Toggle::Ultracode,
                    &value,
                    SettingReply::ConfigOption(reply),
                ),
                other => {
                    let result = match setting::find(other) {
                        Some(setting) => self
                            .set_tool_setting(setting, &value)
                            .map(|()| self.config_options()),
                        None => Err(AgentError::InvalidParams(format!(
                            "unknown config option `{other}`"
                        ))),
                    };
                    let _ = reply.send(result);
                }
            },
            Command::Options { wait, reply } => self.answer_options(wait, reply),
            Command::LoggedOut { reply } => {
                self.end_claude_for_logout().await;
                let _ = reply.send(());
            }
            Command::RouteChanged => {
                self.tools.restart_due = self.claude.is_running();
                self.offer_models(settings::ClaudeModel::NextStart);
                self.options_known();
                self.restart_if_due();
            }
            Command::Trusted { done } => {
                self.ctx.untrusted = None;
                self.tools.restart_due = self.claude.is_running();
                self.restart_if_due();
                let _ = done.send(());
            }
            Command::Close { .. } => unreachable!("handled in run"),
            #[cfg(test)]
            Command::PanicForTest => panic!("a bug, simulated by a test"),
        }
    }

    async fn on_internal(&mut self, internal: Internal) {
        match internal {
            Internal::Initialized(reply) => self.on_initialized(reply),
            Internal::ClaudeSettings(reply) => self.on_claude_settings(&reply),
            Internal::PermissionDone { request_id } => {
                self.asks.answered(&request_id);
            }
            Internal::OptionsDeadline => self.options_known(),
            Internal::ContextUsage(answer) => self.on_context_usage(answer),
            Internal::McpDone(text) => self.on_mcp_done(text),
            Internal::RewindDone(done) => self.on_rewind_done(done).await,
            Internal::SwitchReady(symptom) => self.retry_on_mcp(symptom),
            Internal::SettingDone {
                setting,
                answer,
                reply,
            } => self.setting_done(setting, answer, reply),
        }
    }

    async fn shutdown(&mut self) {
        self.asks.withdraw_all();
        // Commands still running in the editor's terminals are killed and their terminals freed.
        self.abort_file_tasks();
        self.stop_background_tasks().await;
        // With the process goes its MCP config, which may hold the editor's MCP secrets: gone
        // before the session says it is closed.
        if let Some(mut claude) = self.claude.ended() {
            claude.shutdown(Duration::from_millis(500)).await;
        }
        self.path.stop();
        self.end_turns(Ok(StopReason::Cancelled), true);
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

async fn wait_written(answer: Option<turn::AnswersWritten>) {
    if let Some(answer) = answer {
        let _ = tokio::time::timeout(turn::ANSWER_ORDER_WAIT, answer).await;
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests;
