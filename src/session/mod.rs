//! Sessions: one claude per ACP session, and the turns that run in it.

mod actor;
pub mod config;
mod control;
pub mod modes;
pub mod permissions;
pub mod spawn;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use tokio::sync::{mpsc, oneshot};

use self::actor::{Command, SessionActor};
use self::config::AdapterConfig;
use self::spawn::{SessionFlags, Start};
use crate::domain::{
    AgentCore, AgentError, AgentFeatures, ConfigOption, EditorClient, NewSession, PromptBlock,
    SessionOpened, SessionPage, StopReason,
};

/// The auth method `initialize` offers: the editor runs `claude-acp login` in a terminal.
const LOGIN_METHOD: &str = "claude-login";

/// A running session as the registry holds it.
#[derive(Clone)]
struct SessionHandle {
    commands: mpsc::UnboundedSender<Command>,
}

/// Every session of this adapter process.
pub struct Sessions {
    config: Arc<AdapterConfig>,
    editor: Arc<dyn EditorClient>,
    sessions: Mutex<HashMap<String, SessionHandle>>,
}

impl Sessions {
    pub fn new(config: AdapterConfig, editor: Arc<dyn EditorClient>) -> Arc<Self> {
        Arc::new(Self {
            config: Arc::new(config),
            editor,
            sessions: Mutex::new(HashMap::new()),
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

    fn check_cwd(cwd: &std::path::Path) -> Result<(), AgentError> {
        if !cwd.is_absolute() {
            return Err(AgentError::InvalidParams(format!(
                "cwd must be an absolute path, got `{}`",
                cwd.display()
            )));
        }
        if !cwd.is_dir() {
            return Err(AgentError::InvalidParams(format!(
                "cwd `{}` is not an existing directory",
                cwd.display()
            )));
        }
        Ok(())
    }

    /// Starts a session actor with claude running, and registers it.
    async fn open(
        &self,
        session_id: String,
        req: NewSession,
        start: Start,
    ) -> Result<SessionOpened, AgentError> {
        Self::check_cwd(&req.cwd)?;
        let flags = SessionFlags::default();
        let mode = "default".to_owned();
        let mut actor = SessionActor::new(
            session_id.clone(),
            req.cwd.clone(),
            self.config.clone(),
            self.editor.clone(),
            flags,
            start,
            mode,
        );
        actor.start()?;
        let opened = SessionOpened {
            session_id: session_id.clone(),
            modes: Some(modes::state(
                actor.mode(),
                self.config.allow_bypass_permissions,
            )),
            config_options: actor.config_options(),
        };
        let (tx, rx) = mpsc::unbounded_channel();
        let previous = self
            .sessions
            .lock()
            .expect("session registry lock")
            .insert(session_id, SessionHandle { commands: tx });
        if let Some(previous) = previous {
            // Loading a session that is open already: the old claude must go before the new one talks.
            let (done_tx, done_rx) = oneshot::channel();
            let _ = previous.commands.send(Command::Close { reply: done_tx });
            let _ = done_rx.await;
        }
        tokio::spawn(actor.run(rx));
        Ok(opened)
    }
}

#[async_trait]
impl AgentCore for Sessions {
    fn features(&self) -> AgentFeatures {
        AgentFeatures {
            close_session: true,
            auth_methods: vec![(
                LOGIN_METHOD.into(),
                "Log in to Claude".into(),
                "Runs claude's own login (`claude /login`) in a terminal".into(),
            )],
            ..AgentFeatures::default()
        }
    }

    async fn authenticate(&self, method_id: &str) -> Result<(), AgentError> {
        if method_id != LOGIN_METHOD {
            return Err(AgentError::InvalidParams(format!(
                "unknown auth method `{method_id}`"
            )));
        }
        if crate::doctor::has_credentials() {
            Ok(())
        } else {
            Err(AgentError::AuthRequired(
                "claude is not logged in: run `claude-acp login` in a terminal, or set ANTHROPIC_API_KEY".into(),
            ))
        }
    }

    async fn new_session(&self, req: NewSession) -> Result<SessionOpened, AgentError> {
        self.open(uuid::Uuid::new_v4().to_string(), req, Start::New)
            .await
    }

    async fn load_session(
        &self,
        _session_id: &str,
        _req: NewSession,
    ) -> Result<SessionOpened, AgentError> {
        Err(AgentError::MethodNotFound(
            "session/load is not offered by this build".into(),
        ))
    }

    async fn resume_session(
        &self,
        _session_id: &str,
        _req: NewSession,
    ) -> Result<SessionOpened, AgentError> {
        Err(AgentError::MethodNotFound(
            "session/resume is not offered by this build".into(),
        ))
    }

    async fn fork_session(
        &self,
        _session_id: &str,
        _req: NewSession,
    ) -> Result<SessionOpened, AgentError> {
        Err(AgentError::MethodNotFound(
            "session/fork is not offered by this build".into(),
        ))
    }

    async fn list_sessions(
        &self,
        _cwd: Option<PathBuf>,
        _cursor: Option<String>,
    ) -> Result<SessionPage, AgentError> {
        Err(AgentError::MethodNotFound(
            "session/list is not offered by this build".into(),
        ))
    }

    async fn close_session(&self, session_id: &str) -> Result<(), AgentError> {
        let handle = self
            .sessions
            .lock()
            .expect("session registry lock")
            .remove(session_id)
            .ok_or_else(|| AgentError::UnknownSession(session_id.to_owned()))?;
        let (tx, rx) = oneshot::channel();
        if handle.commands.send(Command::Close { reply: tx }).is_ok() {
            let _ = rx.await;
        }
        Ok(())
    }

    async fn prompt(
        &self,
        session_id: &str,
        blocks: Vec<PromptBlock>,
    ) -> Result<StopReason, AgentError> {
        self.ask(session_id, |reply| Command::Prompt { blocks, reply })
            .await
    }

    fn cancel(&self, session_id: &str) {
        match self.handle(session_id) {
            Ok(h) => {
                let _ = h.commands.send(Command::Cancel);
            }
            Err(_) => tracing::debug!("session/cancel for unknown session {session_id}"),
        }
    }

    async fn set_mode(&self, session_id: &str, mode_id: &str) -> Result<(), AgentError> {
        let mode = mode_id.to_owned();
        self.ask(session_id, |reply| Command::SetMode { mode, reply })
            .await
    }

    async fn set_config_option(
        &self,
        session_id: &str,
        config_id: &str,
        value: &str,
    ) -> Result<Vec<ConfigOption>, AgentError> {
        let (id, value) = (config_id.to_owned(), value.to_owned());
        self.ask(session_id, |reply| Command::SetConfigOption {
            id,
            value,
            reply,
        })
        .await
    }

    async fn shutdown(&self) {
        let handles: Vec<SessionHandle> = self
            .sessions
            .lock()
            .expect("session registry lock")
            .drain()
            .map(|(_, h)| h)
            .collect();
        let mut waits = Vec::new();
        for h in handles {
            let (tx, rx) = oneshot::channel();
            if h.commands.send(Command::Close { reply: tx }).is_ok() {
                waits.push(rx);
            }
        }
        for w in waits {
            let _ = w.await;
        }
    }
}
