//! One session: a task that owns its claude process and runs one turn at a time.
//!
//! Everything about a session happens here, in order: prompts, cancels, mode changes, claude's
//! output and its control requests. The session is made of parts that own their state and its
//! handling: the turn (`turn/`: the prompt being answered, those waiting, claude-acp's own
//! commands), the running claude (`claude/`: its process, its asks of the editor, its end),
//! the settings (`settings/`), `/undo` and `/rewind` (`rewind/`), and the editor-served tools'
//! per-session state (`tools.rs`); what they share is `ctx.rs`. This loop routes each message to
//! the part it belongs to (claude's events: `events.rs`). Work that waits on the editor
//! (permission asks) or on claude (control replies, mode and model changes) runs in tasks of the
//! parts and reports back, so the loop never stalls.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;

use futures::FutureExt;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use self::claude::Claude;
pub(crate) use self::claude::Request as JobRequest;
pub(crate) use self::ctx::Reply;
use self::ctx::{SessionContext, Tell};
use self::settings::{ClaudeModel, SettingReply, Settings, Toggle};
pub(crate) use self::settings::{OpenedOptions, Switches};
use self::tools::EditorTools;
pub(crate) use self::turn::Request as TurnRequest;
use self::turn::{Parts, Turns};
use super::config::AdapterConfig;
use super::spawn::{SessionFlags, Start};
use crate::claude::wire::ModelInfo;
use crate::domain::McpServer;
use crate::domain::{AgentError, ConfigOption, EditorClient, StopReason};
use crate::editor_tools::fs::EditLog;
use crate::editor_tools::setting::{self, ServedBy};
use crate::history::RewindPoint;
use crate::translate::TurnTranslator;

mod claude;
mod ctx;
mod events;
mod rewind;
mod settings;
mod tools;
mod turn;

/// What the rest of the adapter asks of a session.
pub(crate) enum Command {
    /// A prompt, a cancel or a steer: the turn's ([`turn::Request`]).
    Turn(TurnRequest),
    /// One of claude's background jobs or subagents stopped ([`claude::Request`]).
    Job(JobRequest),
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

/// What the parts' own tasks report back, each to the part it came from.
enum Internal {
    Claude(claude::Done),
    Settings(settings::Done),
    Turn(turn::Done),
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

pub(crate) struct SessionActor {
    ctx: SessionContext,
    /// The running claude, how the next one starts, and its asks of the editor.
    claude: Claude,
    /// The prompt being answered, those waiting behind it, and claude's output translated.
    turns: Turns,
    /// Mode, model, effort, toggles, agent and tools as the editor sees them, and what it was told.
    settings: Settings,
    /// What the session serves claude in the editor's place (files, terminal) and their state.
    tools: EditorTools,
    /// What the parts' own tasks report back.
    inbox: mpsc::UnboundedReceiver<Internal>,
    /// Modes the permission asker saw claude enter (an approved plan, an "always allow" edit).
    mode_changes: mpsc::UnboundedReceiver<String>,
}

/// How a part's tasks report to the loop: into the one inbox, as `wrap` says whose it is.
fn tell<T: 'static>(tx: &mpsc::UnboundedSender<Internal>, wrap: fn(T) -> Internal) -> Tell<T> {
    let tx = tx.clone();
    Tell::new(move |what| {
        let _ = tx.send(wrap(what));
    })
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
        let (tx, inbox) = mpsc::unbounded_channel();
        let edit_log = EditLog::new(config.claude_config_dir.clone(), id.clone());
        let translator = {
            let mut translator = TurnTranslator::new(cwd.clone());
            translator.forward_subagent_text(flags.forward_subagent_text);
            translator.name_session(&id);
            translator.route_subagents(editor.supports_subagents());
            translator
        };
        let ctx = SessionContext {
            id,
            cwd,
            config,
            editor,
            flags,
            editor_servers,
            untrusted,
        };
        let (claude, asker_mode, mode_changes) = Claude::new(
            &ctx,
            mode.clone(),
            start,
            rewind,
            tell(&tx, Internal::Claude),
        );
        let initial = settings::Initial {
            mode,
            models,
            switches,
            file_edits,
            terminal,
        };
        let settings = Settings::new(
            initial,
            &ctx.flags,
            asker_mode,
            tell(&tx, Internal::Settings),
        );
        let mut actor = Self {
            claude,
            turns: Turns::new(translator, tell(&tx, Internal::Turn)),
            settings,
            tools: EditorTools::new(edit_log),
            inbox,
            mode_changes,
            ctx,
        };
        // A session opened on a gateway's route offers the models it lists from the start.
        let handle = actor.claude.handle();
        actor
            .settings
            .offer_models(&mut actor.ctx, ClaudeModel::NextStart, handle);
        actor
    }

    /// Starts claude now, so the first prompt finds it warm. Never waits on a model turn.
    pub(crate) fn start(&mut self) -> Result<(), AgentError> {
        self.parts().1.ensure_claude()
    }

    /// The modes and config options this session would open with, from what is known now (the
    /// options cache's models), its claude not started.
    pub(crate) async fn options_unstarted(&mut self) -> Result<OpenedOptions, AgentError> {
        let (reply, answer) = oneshot::channel();
        self.settings.answer_options(&self.ctx, false, false, reply);
        answer
            .await
            .map_err(|_| AgentError::Internal("the options were not answered".into()))?
    }

    /// The turn part, and the others as a turn uses them.
    fn parts(&mut self) -> (&mut Turns, Parts<'_>) {
        let parts = Parts {
            ctx: &mut self.ctx,
            claude: &mut self.claude,
            tools: &mut self.tools,
            settings: &mut self.settings,
        };
        (&mut self.turns, parts)
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
                Ok(Flow::Go) => self.claude.touch(),
                Ok(Flow::Stop) => return,
                Err(panic) => self.recover_from_panic(&*panic),
            }
        }
    }

    /// Waits for the next thing to happen and hands it to the part it belongs to.
    async fn step(&mut self, commands: &mut mpsc::UnboundedReceiver<Command>) -> Flow {
        let deadline = self.turns.deadline();
        let idle_at = self.claude.idle_deadline(self.turns.running(), &self.tools);
        let answer_pending = self.turns.answer_pending();
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
                self.turns.answer_written();
            }
            event = self.claude.next_event(&*self.ctx.editor), if answer_pending.is_none() => match event {
                Some(event) => self.on_claude(event),
                // The reader ends after its one `Exited`; a closed channel without it still means gone.
                None => self.on_exit(crate::claude::ExitInfo { status: "unknown status".into(), code: None, stderr_tail: String::new() }),
            },
            Some(internal) = self.inbox.recv() => self.on_internal(internal).await,
            Some(mode) = self.mode_changes.recv() => self.settings.mode_changed(&self.ctx, mode),
            () = sleep_until(deadline) => {
                tracing::info!(session = %self.ctx.id, "claude did not end the turn after an interrupt; stopping it");
                self.claude.stop();
                let (turns, mut p) = self.parts();
                turns.finish(&mut p, Ok(StopReason::Cancelled));
            }
            () = sleep_until(idle_at) => {
                let turn = self.turns.running();
                self.claude.stop_if_idle(&self.ctx, turn, &self.tools).await;
            }
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
        self.claude.withdraw_asks();
        self.claude.stop();
        // An internal error is what the editor gets, even for a turn being cancelled.
        self.turns.not_cancelled();
        let (turns, mut p) = self.parts();
        turns.end_turns(
            &mut p,
            Err(AgentError::Internal(format!(
                "claude-acp hit an internal error in this session ({what}); its claude was stopped. \
                 The next prompt starts it again with the conversation intact."
            ))),
            true,
        );
    }

    async fn on_command(&mut self, cmd: Command) {
        match cmd {
            Command::Turn(request) => {
                let (turns, mut p) = self.parts();
                turns.on_request(&mut p, request);
            }
            Command::Job(request) => {
                let translator = &self.turns.translator;
                self.claude
                    .on_request(&self.ctx, &self.tools, translator, request);
            }
            Command::SetMode { mode, reply } => self.set_mode(mode, SettingReply::Mode(reply)),
            Command::SetConfigOption { id, value, reply } => {
                self.set_config_option(&id, value, reply);
            }
            Command::Options { wait, reply } => {
                let claude_runs = self.claude.is_running();
                self.settings
                    .answer_options(&self.ctx, wait, claude_runs, reply);
            }
            Command::LoggedOut { reply } => {
                self.end_claude_for_logout().await;
                let _ = reply.send(());
            }
            Command::RouteChanged => {
                self.claude.restart_due();
                let handle = self.claude.handle();
                self.settings
                    .offer_models(&mut self.ctx, ClaudeModel::NextStart, handle);
                self.settings.options_known(&self.ctx);
                self.restart_if_due();
            }
            Command::Trusted { done } => {
                self.ctx.untrusted = None;
                self.claude.restart_due();
                self.restart_if_due();
                let _ = done.send(());
            }
            Command::Close { .. } => unreachable!("handled in run"),
            #[cfg(test)]
            Command::PanicForTest => panic!("a bug, simulated by a test"),
        }
    }

    /// `session/set_mode`, or the `mode` config option: a claude stopped for being idle is
    /// started again for it.
    fn set_mode(&mut self, mode: String, reply: SettingReply) {
        if let Err(e) = self.settings.check_mode(&self.ctx, &mode) {
            reply.send_error(e);
            return;
        }
        if self.claude.stopped_for_idle()
            && let Err(e) = self.parts().1.ensure_claude()
        {
            reply.send_error(e);
            return;
        }
        let handle = self.claude.handle();
        self.settings.set_mode(&mut self.ctx, mode, handle, reply);
    }

    /// `session/set_config_option`: to the setting it names.
    fn set_config_option(&mut self, id: &str, value: String, reply: Reply<Vec<ConfigOption>>) {
        let handle = self.claude.handle();
        match id {
            "mode" => self.set_mode(value, SettingReply::ConfigOption(reply)),
            "model" => {
                let reply = SettingReply::ConfigOption(reply);
                if let Err(e) = self.settings.check_model(&value) {
                    reply.send_error(e);
                    return;
                }
                if let Err(e) = self.parts().1.ensure_claude() {
                    reply.send_error(e);
                    return;
                }
                let handle = self.claude.handle().expect("claude is running");
                self.settings.set_model(value, handle, reply);
            }
            "effort" => {
                let reply = SettingReply::ConfigOption(reply);
                self.settings
                    .set_effort(&mut self.ctx, value, handle, reply);
            }
            settings::AGENT_ID => {
                let begun = self.claude.conversation_begun();
                let changed = self.settings.set_agent(&mut self.ctx, &value, begun);
                let _ = reply.send(self.after_restart_setting(changed));
            }
            settings::FAST_ID => {
                let reply = SettingReply::ConfigOption(reply);
                self.settings
                    .set_toggle(&self.ctx, Toggle::Fast, &value, handle, reply);
            }
            settings::ULTRACODE_ID => {
                let reply = SettingReply::ConfigOption(reply);
                self.settings
                    .set_toggle(&self.ctx, Toggle::Ultracode, &value, handle, reply);
            }
            other => {
                let result = match setting::find(other) {
                    Some(setting) => {
                        let changed = self.settings.set_tool_setting(setting, &value);
                        self.after_restart_setting(changed)
                    }
                    None => Err(AgentError::InvalidParams(format!(
                        "unknown config option `{other}`"
                    ))),
                };
                let _ = reply.send(result);
            }
        }
    }

    /// A setting claude takes only at its start ("File edits", "Terminal", "Agent") was set:
    /// when it changed, claude is stopped now if idle, else after the turn, and the editor sees
    /// the options as they are now; the options answer the change.
    fn after_restart_setting(
        &mut self,
        changed: Result<bool, AgentError>,
    ) -> Result<Vec<ConfigOption>, AgentError> {
        if changed? {
            self.claude.restart_due();
            self.restart_if_due();
            self.settings.announce_options(&self.ctx);
        }
        Ok(self.settings.config_options(&self.ctx))
    }

    /// Stops claude for a changed setting once no turn is running; the next prompt resumes it.
    fn restart_if_due(&mut self) {
        let turn = self.turns.running();
        self.claude.restart_if_due(&self.ctx, turn, &mut self.tools);
    }

    async fn on_internal(&mut self, internal: Internal) {
        match internal {
            Internal::Claude(claude::Done::Initialized(reply)) => {
                self.claude.initialized();
                self.turns.offer_commands(&self.ctx, &reply);
                let handle = self.claude.handle();
                self.settings.on_initialized(&mut self.ctx, &reply, handle);
            }
            Internal::Claude(claude::Done::Answered { request_id }) => {
                self.claude.ask_done(&request_id);
            }
            Internal::Claude(claude::Done::SwitchReady(symptom)) => {
                let (turns, mut p) = self.parts();
                turns.retry_on_mcp(&mut p, symptom);
            }
            Internal::Settings(done) => self.settings.on_done(&mut self.ctx, done),
            Internal::Turn(done) => {
                let (turns, mut p) = self.parts();
                turns.on_done(&mut p, done).await;
            }
        }
    }

    async fn shutdown(&mut self) {
        // Commands still running in the editor's terminals are killed and their terminals freed.
        self.tools.abort_file_tasks();
        self.claude.end(&self.ctx, true).await;
        self.claude.close_path();
        let (turns, mut p) = self.parts();
        turns.end_turns(&mut p, Ok(StopReason::Cancelled), true);
    }
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
