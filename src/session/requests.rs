//! What the editor asks of the sessions (the ACP edge's [`AgentCore`]): each request goes to the
//! session it names, to the store of claude's transcripts, or to the login.

use async_trait::async_trait;
use tokio::sync::oneshot;

use super::actor::{Command, JobRequest, TurnRequest};
use super::config::features;
use super::listing::{self, OpenSession};
use super::spawn::Start;
use super::{SessionHandle, Sessions, directories, history_error};
use crate::domain::{
    AgentCore, AgentError, AgentFeatures, ConfigOption, Gateway, NewSession, PromptBlock,
    ProviderRoute, SessionOpened, SessionPage, TurnOutcome,
};
use crate::history::{self, ForkStart};
use std::path::PathBuf;

#[async_trait]
impl AgentCore for Sessions {
    fn features(&self) -> AgentFeatures {
        AgentFeatures {
            auth_status: Some(self.login.current()),
            ..features()
        }
    }

    async fn authenticate(
        &self,
        method_id: &str,
        gateway: Option<Gateway>,
    ) -> Result<(), AgentError> {
        self.log_in(method_id, gateway).await
    }

    fn provider_route(&self) -> ProviderRoute {
        self.config.route.shown()
    }

    async fn set_provider(&self, provider_id: &str, gateway: Gateway) -> Result<(), AgentError> {
        Sessions::set_provider(self, provider_id, gateway).await
    }

    async fn disable_provider(&self, provider_id: &str) -> Result<(), AgentError> {
        Sessions::disable_provider(self, provider_id).await;
        Ok(())
    }

    async fn new_session(&self, req: NewSession) -> Result<SessionOpened, AgentError> {
        self.open(uuid::Uuid::new_v4().to_string(), req, Start::New)
            .await
    }

    async fn load_session(
        &self,
        session_id: &str,
        req: NewSession,
    ) -> Result<SessionOpened, AgentError> {
        directories::check_cwd(&req.cwd)?;
        // The replay too: two loads of one id each replay the whole thread, one after the other.
        let _one_at_a_time = self.lifecycle.lock(session_id).await;
        let dir = self.config_dir()?;
        let (id, cwd) = (session_id.to_owned(), req.cwd.clone());
        let file = tokio::task::spawn_blocking(move || history::transcript(&dir, &cwd, &id))
            .await
            .map_err(|e| AgentError::Internal(e.to_string()))?
            .map_err(history_error)?;
        let cwd = req.cwd.clone();
        // claude starts first and gets ready while the thread is replayed: for the first session
        // ever the answer waits for claude's models, and a long thread takes a while to send.
        let starting = self
            .start_session(session_id.to_owned(), req, Start::Resume)
            .await?;
        // The whole thread first, then the response: that is how the editor knows it is complete.
        self.replay_to_editor(session_id, file, cwd).await?;
        // ACP v2: after the replay's last update, before the answer and the live session.
        self.editor.replay_complete(session_id);
        self.run_session(starting).await
    }

    async fn resume_session(
        &self,
        session_id: &str,
        req: NewSession,
    ) -> Result<SessionOpened, AgentError> {
        directories::check_cwd(&req.cwd)?;
        let _one_at_a_time = self.lifecycle.lock(session_id).await;
        self.stored(session_id).await?;
        self.open(session_id.to_owned(), req, Start::Resume).await
    }

    async fn fork_session(
        &self,
        session_id: &str,
        mut req: NewSession,
    ) -> Result<SessionOpened, AgentError> {
        directories::check_cwd(&req.cwd)?;
        self.stored(session_id).await?;
        let at = match req.fork_at.take() {
            None => None,
            Some(cursor) => Some(self.fork_start(session_id, &cursor).await?),
        };
        let start = match at {
            None => Start::Fork {
                from: session_id.to_owned(),
                at: None,
            },
            // Before the first prompt: the fork holds nothing of its source.
            Some(ForkStart::Empty) => Start::New,
            Some(ForkStart::At(entry)) => Start::Fork {
                from: session_id.to_owned(),
                at: Some(entry),
            },
        };
        self.open(uuid::Uuid::new_v4().to_string(), req, start)
            .await
    }

    async fn list_sessions(
        &self,
        cwd: Option<PathBuf>,
        cursor: Option<String>,
        archived: crate::domain::ArchiveFilter,
    ) -> Result<SessionPage, AgentError> {
        let dir = self.config_dir()?;
        // The first page also shows the sessions open here that claude has not stored yet.
        let open: Vec<OpenSession> = match cursor {
            Some(_) => Vec::new(),
            None => self
                .sessions
                .lock()
                .expect("session registry lock")
                .values()
                .map(|h| h.listed.lock().expect("listing lock").clone())
                .collect(),
        };
        let listings = self.listings.clone();
        let mut page = tokio::task::spawn_blocking(move || {
            let page = listings.page(&dir, cwd.as_deref(), cursor.as_deref(), 0)?;
            let mut page = listing::with_open_sessions(page, open, cwd.as_deref(), |id| {
                history::is_listed(&dir, cwd.as_deref(), id)
            });
            // A page holds fewer sessions when the filter leaves some out; its cursor goes on.
            for s in &mut page.sessions {
                s.archived = history::is_archived(&dir, &s.cwd, &s.session_id);
            }
            page.sessions.retain(|s| archived.admits(s.archived));
            Ok(page)
        })
        .await
        .map_err(|e| AgentError::Internal(e.to_string()))?
        .map_err(history_error)?;
        self.add_open_session_roots(&mut page);
        Ok(page)
    }

    async fn session_options(
        &self,
        session_id: Option<&str>,
        req: NewSession,
    ) -> Result<SessionOpened, AgentError> {
        self.options(session_id, req).await
    }

    async fn set_archived(&self, session_id: &str, archived: bool) -> Result<(), AgentError> {
        self.archive(session_id, archived).await
    }

    async fn set_session_title(&self, session_id: &str, title: &str) -> Result<String, AgentError> {
        self.set_title(session_id, title).await
    }

    async fn session_status(
        &self,
        session_id: &str,
    ) -> Result<crate::domain::SessionStatus, AgentError> {
        self.status(session_id).await
    }

    async fn close_session(&self, session_id: &str) -> Result<(), AgentError> {
        let _one_at_a_time = self.lifecycle.lock(session_id).await;
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

    async fn delete_session(&self, session_id: &str) -> Result<(), AgentError> {
        self.delete(session_id).await
    }

    async fn logout(&self) -> Result<(), AgentError> {
        self.log_out().await
    }

    async fn prompt(
        &self,
        session_id: &str,
        blocks: Vec<PromptBlock>,
        written: Option<crate::domain::AnswerWritten>,
    ) -> Result<TurnOutcome, AgentError> {
        self.run_prompt(session_id, blocks, written, None).await
    }

    async fn prompt_inserted(
        &self,
        session_id: &str,
        blocks: Vec<PromptBlock>,
        inserted: crate::domain::Inserted,
        key: Option<String>,
    ) -> Result<TurnOutcome, AgentError> {
        let Some(key) = key else {
            return self
                .run_prompt(session_id, blocks, None, Some(inserted))
                .await;
        };
        let keys = self.handle(session_id)?.keys;
        keys.prompt(key, inserted, |mine| {
            self.run_prompt(session_id, blocks, None, Some(mine))
        })
        .await
    }

    async fn steer(
        &self,
        session_id: &str,
        blocks: Vec<PromptBlock>,
        idle: crate::domain::IdleBehavior,
    ) -> Result<crate::domain::SteerOutcome, AgentError> {
        let blank = blocks
            .iter()
            .all(|b| matches!(b, PromptBlock::Text(text) if text.trim().is_empty()));
        if blank {
            return Err(AgentError::InvalidParams(
                "_session/steering: the prompt is empty".into(),
            ));
        }
        crate::translate::check_prompt(&blocks).map_err(AgentError::InvalidParams)?;
        self.ask(session_id, |reply| {
            Command::Turn(TurnRequest::Steer {
                blocks,
                idle,
                reply,
            })
        })
        .await
    }

    async fn stop_async_task(&self, session_id: &str, task_id: &str) -> Result<bool, AgentError> {
        let task_id = task_id.to_owned();
        self.ask(session_id, |reply| {
            Command::Job(JobRequest::StopTask { task_id, reply })
        })
        .await
    }

    async fn cancel_tool_call(
        &self,
        session_id: &str,
        tool_call_id: &str,
    ) -> Result<(), AgentError> {
        let tool_call_id = tool_call_id.to_owned();
        self.ask(session_id, |reply| {
            Command::Job(JobRequest::CancelToolCall {
                tool_call_id,
                reply,
            })
        })
        .await
    }

    fn cancel(&self, session_id: &str) {
        match self.handle(session_id) {
            Ok(h) => {
                let _ = h.commands.send(Command::Turn(TurnRequest::Cancel));
            }
            // A subagent's child session: its parent stops that subagent only.
            Err(_) => match crate::domain::parse_subagent_session_id(session_id)
                .and_then(|(parent, task)| Some((self.handle(parent).ok()?, task)))
            {
                Some((h, task)) => {
                    let task_id = task.to_owned();
                    let request = JobRequest::CancelSubagent { task_id };
                    let _ = h.commands.send(Command::Job(request));
                }
                None => tracing::debug!("session/cancel for unknown session {session_id}"),
            },
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
