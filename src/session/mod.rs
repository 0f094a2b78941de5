//! Sessions: one claude per ACP session, and the turns that run in it.

mod actor;
pub mod config;
mod directories;
mod id_locks;
mod incoming;
mod listing;
mod login;
pub(crate) mod meta;
pub(crate) mod modes;
pub(crate) mod options_cache;
mod own_question;
mod prompt_keys;
mod requests;
pub(crate) mod spawn;
mod stored;
pub(crate) mod trust;

#[cfg(any(test, feature = "fuzzing"))]
pub(crate) use incoming::{ControlAction, classify as classify_control_request};

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, oneshot};

use self::actor::{Closed, Command, SessionActor, SessionSpec, TurnRequest};
use self::config::AdapterConfig;
use self::listing::OpenSession;
use self::prompt_keys::PromptKeys;
use self::spawn::{Start, SystemPromptParts};
use crate::domain::{
    AgentError, AnswerWritten, EditorClient, Inserted, NewSession, PromptBlock, SessionOpened,
    SessionPage, TurnOutcome,
};
use crate::editor_tools::setting::{FILE_EDITS, ServedBy, TERMINAL};
use crate::history::{self, HistoryError};

/// How long `session/options` waits for a claude starting cold to tell its models.
const LEARN_OPTIONS_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// A running session as the registry holds it.
#[derive(Clone)]
struct SessionHandle {
    commands: mpsc::UnboundedSender<Command>,
    /// What `session/list` shows of it until claude has stored it.
    listed: Arc<Mutex<OpenSession>>,
    /// The roots claude got with `--add-dir`, reported by `session/list`.
    additional_directories: Vec<PathBuf>,
    /// The keys its prompts were sent with (ACP v2's `idempotencyKey`).
    keys: Arc<PromptKeys>,
}

/// Every session of this adapter process.
/// A session whose claude is starting and whose actor does not run yet (see
/// [`Sessions::start_session`]); dropped, it ends that claude.
struct Starting {
    session_id: String,
    cwd: PathBuf,
    actor: SessionActor,
    /// Whether the answer waits for claude's models (none are cached).
    wait: bool,
    additional_directories: Vec<PathBuf>,
    /// The workspace waits for the user's trust: asked once the session's answer is queued.
    untrusted: Option<(trust::Untrusted, Option<crate::domain::AnswerWritten>)>,
    keys: Arc<PromptKeys>,
}

pub(crate) struct Sessions {
    config: Arc<AdapterConfig>,
    editor: Arc<dyn EditorClient>,
    sessions: Mutex<HashMap<String, SessionHandle>>,
    /// Loads, resumes, closes and deletes of one session id run one at a time.
    lifecycle: id_locks::IdLocks,
    /// `session/list` listings whose later pages may still be asked for.
    listings: Arc<history::Listings>,
    /// The login last seen change here.
    login: crate::auth::KnownLogin,
}

impl Sessions {
    pub(crate) fn new(config: AdapterConfig, editor: Arc<dyn EditorClient>) -> Arc<Self> {
        Arc::new(Self {
            config: Arc::new(config),
            editor,
            sessions: Mutex::new(HashMap::new()),
            lifecycle: id_locks::IdLocks::default(),
            listings: Arc::default(),
            login: Default::default(),
        })
    }

    fn handle(&self, session_id: &str) -> Result<SessionHandle, AgentError> {
        self.sessions
            .lock()
            .expect("session registry lock")
            .get(session_id)
            .cloned()
            .ok_or_else(|| AgentError::UnknownSession(session_id.to_owned()))
    }

    async fn ask<T>(
        &self,
        session_id: &str,
        make: impl FnOnce(oneshot::Sender<Result<T, AgentError>>) -> Command,
    ) -> Result<T, AgentError> {
        let handle = self.handle(session_id)?;
        let (tx, rx) = oneshot::channel();
        handle
            .commands
            .send(make(tx))
            .map_err(|_| AgentError::UnknownSession(session_id.to_owned()))?;
        rx.await
            .map_err(|_| AgentError::Internal(format!("session {session_id} ended")))?
    }

    /// Starts a session actor with claude running, and registers it.
    async fn open(
        &self,
        session_id: String,
        req: NewSession,
        start: Start,
    ) -> Result<SessionOpened, AgentError> {
        let starting = self.start_session(session_id, req, start).await?;
        self.run_session(starting).await
    }

    /// The first half of opening a session: the one open under this id (if any) closed, and the
    /// new session's claude started. Nothing reaches the editor from the session until
    /// [`Sessions::run_session`], so a `session/load` replays the stored thread in between while
    /// claude starts.
    async fn start_session(
        &self,
        session_id: String,
        req: NewSession,
        start: Start,
    ) -> Result<Starting, AgentError> {
        let mut starting = self.prepare_session(session_id, req, start).await?;
        starting.actor.start()?;
        Ok(starting)
    }

    /// [`Sessions::start_session`] but for starting claude.
    async fn prepare_session(
        &self,
        session_id: String,
        mut req: NewSession,
        start: Start,
    ) -> Result<Starting, AgentError> {
        directories::check_cwd(&req.cwd)?;
        let mut flags = directories::session_flags(&req)?;
        if let Some(prompt) = &req.system_prompt {
            // The request's own `systemPrompt` wins over `_meta`'s.
            flags.system_prompt = SystemPromptParts::from_request(prompt);
        }
        let additional_directories = directories::added_directories(&flags);
        let mode = flags
            .value_of("--permission-mode")
            .unwrap_or("default")
            .to_owned();
        // Loading a session that is open already: the old claude goes before the new one starts,
        // so one conversation never has two processes writing to it.
        let previous = self
            .sessions
            .lock()
            .expect("session registry lock")
            .remove(&session_id);
        let mut carried = Closed::default();
        let carried_keys = previous.as_ref().map(|p| p.keys.clone());
        if let Some(previous) = previous {
            let (done_tx, done_rx) = oneshot::channel();
            if previous
                .commands
                .send(Command::Close { reply: done_tx })
                .is_ok()
            {
                carried = done_rx.await.unwrap_or_default();
            }
        }
        // The keys of the prompts taken in: this process's, else those kept with the session.
        let keys = match carried_keys {
            Some(keys) => keys,
            None => {
                let store = (self.config.claude_config_dir.clone())
                    .map(|dir| (dir, req.cwd.clone(), session_id.clone()));
                let stored = matches!(start, Start::Resume);
                let load = move || PromptKeys::load(store, stored);
                Arc::new(
                    tokio::task::spawn_blocking(load)
                        .await
                        .map_err(|e| AgentError::Internal(e.to_string()))?,
                )
            }
        };
        // claude's models as it offered them last time: the answer carries every option at once.
        // (A small file read once per process; memory afterwards.)
        let cached = self
            .config
            .claude
            .as_ref()
            .ok()
            .and_then(|command| self.config.options_cache.models(command));
        let wait = cached.is_none() && self.config.options_cache.may_wait();
        // A stored thread may have been rewound (`/undo`) before the last prompt's turn was replaced.
        let rewind = match (&start, self.config.claude_config_dir.clone()) {
            (Start::Resume, Some(dir)) => {
                let id = session_id.clone();
                tokio::task::spawn_blocking(move || history::pending_rewind(&dir, &id))
                    .await
                    .ok()
                    .flatten()
            }
            _ => None,
        };
        // An editor that asks its user before it writes a file or runs a command (acpx) would
        // ask a second time after the permission prompt: its sessions start on claude's own tools.
        let default = match self.editor.confirms_itself() {
            true => ServedBy::Claude,
            false => ServedBy::Editor,
        };
        let file_edits = FILE_EDITS.initial(
            self.editor.supports_text_files().then_some(default),
            req.meta.as_ref(),
        )?;
        let terminal = TERMINAL.initial(
            self.editor.supports_terminal().then_some(default),
            req.meta.as_ref(),
        )?;
        let untrusted = trust::check_workspace(&req.cwd, &flags)
            .await
            .map_err(AgentError::Internal)?;
        let spec = SessionSpec {
            id: session_id.clone(),
            cwd: req.cwd.clone(),
            flags,
            editor_servers: req.mcp_servers.clone(),
            start,
            mode,
            models: cached.unwrap_or_default(),
            rewind,
            file_edits,
            terminal,
            switches: carried.switches,
            untrusted: untrusted.clone(),
        };
        let actor = SessionActor::new(spec, self.config.clone(), self.editor.clone());
        Ok(Starting {
            session_id,
            cwd: req.cwd,
            actor,
            wait,
            additional_directories,
            untrusted: untrusted.map(|u| (u, req.answered.take())),
            keys,
        })
    }

    /// `session/options`: what `req` would open a new session with (without a session, and with
    /// no claude started when claude's models are cached; else learned as `session/new` learns
    /// them, by a session opened and closed), or what session `session_id` has.
    pub(crate) async fn options(
        &self,
        session_id: Option<&str>,
        req: NewSession,
    ) -> Result<SessionOpened, AgentError> {
        if let Some(id) = session_id {
            let (modes, config_options) = self
                .ask(id, |reply| Command::Options { wait: false, reply })
                .await
                .map_err(|e| match e {
                    AgentError::UnknownSession(id) => AgentError::SessionNotFound(id),
                    other => other,
                })?;
            return Ok(SessionOpened {
                session_id: id.to_owned(),
                modes: Some(modes),
                config_options,
            });
        }
        let id = uuid::Uuid::new_v4().to_string();
        let cached = || {
            self.config
                .claude
                .as_ref()
                .ok()
                .and_then(|command| self.config.options_cache.models(command))
                .is_some()
        };
        if cached() || !self.config.options_cache.may_wait() {
            let mut starting = self.prepare_session(id.clone(), req, Start::New).await?;
            let (modes, config_options) = starting.actor.options_unstarted().await?;
            return Ok(SessionOpened {
                session_id: id,
                modes: Some(modes),
                config_options,
            });
        }
        // Nothing said in it: claude stores nothing, and closing it ends its claude. Its answer
        // may come before claude's models (as session/new's may): they are waited for here, so
        // the answer has them and the cache serves the next call.
        self.open(id.clone(), req, Start::New).await?;
        let learning = async {
            while !cached() && self.handle(&id).is_ok() {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        };
        let _ = tokio::time::timeout(LEARN_OPTIONS_WAIT, learning).await;
        let known = self
            .ask(&id, |reply| Command::Options { wait: false, reply })
            .await;
        crate::domain::AgentCore::close_session(self, &id).await?;
        let (modes, config_options) = known?;
        Ok(SessionOpened {
            session_id: id,
            modes: Some(modes),
            config_options,
        })
    }

    /// The second half: the session registered, its actor running, and the answer once it knows
    /// the session's options (for the first session ever, once claude has told its models).
    async fn run_session(&self, starting: Starting) -> Result<SessionOpened, AgentError> {
        let Starting {
            session_id,
            cwd,
            actor,
            wait,
            additional_directories,
            untrusted,
            keys,
        } = starting;
        let (tx, rx) = mpsc::unbounded_channel();
        let (options_tx, options_rx) = oneshot::channel();
        let _ = tx.send(Command::Options {
            wait,
            reply: options_tx,
        });
        let listed = Arc::new(Mutex::new(OpenSession::new(session_id.clone(), cwd)));
        self.sessions.lock().expect("session registry lock").insert(
            session_id.clone(),
            SessionHandle {
                commands: tx.clone(),
                listed,
                additional_directories,
                keys,
            },
        );
        tokio::spawn(actor.run(rx));
        let (modes, config_options) = options_rx
            .await
            .map_err(|_| AgentError::Internal(format!("session {session_id} ended")))??;
        if let Some((untrusted, answered)) = untrusted {
            // On trust, the session's next claude loads the project's settings.
            let editor = self.editor.clone();
            trust::ask_in_background(editor, &session_id, untrusted, answered, async move {
                let (done, applied) = oneshot::channel();
                tx.send(Command::Trusted { done }).is_ok() && applied.await.is_ok()
            });
        }
        Ok(SessionOpened {
            modes: Some(modes),
            session_id,
            config_options,
        })
    }

    fn config_dir(&self) -> Result<PathBuf, AgentError> {
        self.config.claude_config_dir.clone().ok_or_else(|| {
            AgentError::Internal(
                "cannot find claude's stored sessions: neither CLAUDE_CONFIG_DIR nor HOME is set"
                    .into(),
            )
        })
    }

    /// Where a fork of `session_id` at `cursor` starts: a cursor that names no point of its
    /// thread is invalid params, never a fork of the whole session.
    async fn fork_start(
        &self,
        session_id: &str,
        cursor: &str,
    ) -> Result<history::ForkStart, AgentError> {
        let unknown = || {
            AgentError::InvalidParams(format!(
                "cursor {cursor} is not one of session {session_id}'s"
            ))
        };
        let point = crate::domain::ForkPoint::of_cursor(cursor).ok_or_else(unknown)?;
        let (dir, id) = (self.config_dir()?, session_id.to_owned());
        tokio::task::spawn_blocking(move || history::fork_start(&dir, &id, &point))
            .await
            .map_err(|e| AgentError::Internal(e.to_string()))?
            .map_err(history_error)?
            .ok_or_else(unknown)
    }

    /// Where claude stored `session_id`, or an error naming it.
    async fn stored(&self, session_id: &str) -> Result<PathBuf, AgentError> {
        history::check_session_id(session_id).map_err(history_error)?;
        let dir = self.config_dir()?;
        let id = session_id.to_owned();
        tokio::task::spawn_blocking(move || history::find(&dir, &id))
            .await
            .map_err(|e| AgentError::Internal(e.to_string()))?
            .map(|(_, cwd)| cwd)
            .ok_or_else(|| {
                AgentError::InvalidParams(format!("no stored conversation with id {session_id}"))
            })
    }

    /// Runs `blocks` as a prompt of `session_id`; `written` and `inserted` as the actor's
    /// [`TurnRequest::Prompt`] takes them.
    pub(super) async fn run_prompt(
        &self,
        session_id: &str,
        blocks: Vec<PromptBlock>,
        written: Option<AnswerWritten>,
        inserted: Option<Inserted>,
    ) -> Result<TurnOutcome, AgentError> {
        crate::translate::check_prompt(&blocks).map_err(AgentError::InvalidParams)?;
        if let Ok(handle) = self.handle(session_id) {
            handle
                .listed
                .lock()
                .expect("listing lock")
                .prompted(&blocks);
        }
        self.ask(session_id, |reply| {
            Command::Turn(TurnRequest::Prompt {
                blocks,
                reply,
                written,
                inserted,
            })
        })
        .await
    }

    /// claude does not store a session's extra roots: those of sessions open here are known.
    fn add_open_session_roots(&self, page: &mut SessionPage) {
        let sessions = self.sessions.lock().expect("session registry lock");
        for summary in &mut page.sessions {
            if let Some(open) = sessions.get(&summary.session_id) {
                summary.additional_directories = open.additional_directories.clone();
            }
        }
    }
}

fn history_error(e: HistoryError) -> AgentError {
    match e {
        HistoryError::NotFound(_)
        | HistoryError::InvalidSessionId(_)
        | HistoryError::OptionLikeSessionId(_)
        | HistoryError::InvalidCursor(_) => AgentError::InvalidParams(e.to_string()),
        other => AgentError::Internal(other.to_string()),
    }
}
