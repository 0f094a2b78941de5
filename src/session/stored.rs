//! claude's stored conversation, for the editor: `session/load`'s replay (the stored thread
//! handed to the editor as it is read), `session/delete` (the session's claude ends
//! first, so nothing writes the conversation again, then claude's stored conversation goes), a
//! session's name (`session/set_title`) and whether it is open or only stored (`session/status`).

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::actor::{Command, TurnRequest};
use super::{Sessions, history_error};
use crate::domain::{AgentError, SessionStatus};
use crate::history;

impl Sessions {
    /// Names the session as claude's `/rename` does, in its transcript; an open session is told
    /// too, and one whose conversation claude has not stored yet keeps the name until it has.
    pub(super) async fn set_title(
        &self,
        session_id: &str,
        title: &str,
    ) -> Result<String, AgentError> {
        let title = title.trim().to_owned();
        if title.is_empty() {
            return Err(AgentError::InvalidParams(
                "session/set_title: the title is empty".into(),
            ));
        }
        history::check_session_id(session_id).map_err(history_error)?;
        let _one_at_a_time = self.lifecycle.lock(session_id).await;
        if let Ok(handle) = self.handle(session_id) {
            handle.listed.lock().expect("listing lock").named(&title);
            let name = title.clone();
            self.ask(session_id, |reply| {
                Command::Turn(TurnRequest::SetTitle { title: name, reply })
            })
            .await?;
            return Ok(title);
        }
        let (dir, id, name) = (self.config_dir()?, session_id.to_owned(), title.clone());
        let written = tokio::task::spawn_blocking(move || history::write_title(&dir, &id, &name))
            .await
            .map_err(|e| AgentError::Internal(e.to_string()))?
            .map_err(history_error)?;
        match written {
            true => Ok(title),
            false => Err(AgentError::SessionNotFound(session_id.to_owned())),
        }
    }

    /// Ends the session if it is open here (its claude first); whether it was. The caller holds
    /// its lifecycle lock.
    async fn close_open(&self, session_id: &str) -> bool {
        let open = self
            .sessions
            .lock()
            .expect("session registry lock")
            .remove(session_id);
        if let Some(handle) = &open {
            let (tx, rx) = tokio::sync::oneshot::channel();
            if handle.commands.send(Command::Close { reply: tx }).is_ok() {
                let _ = rx.await;
            }
        }
        open.is_some()
    }

    /// Archives or unarchives a session claude stored; an open one is closed first, as ACP asks.
    pub(super) async fn archive(&self, session_id: &str, archived: bool) -> Result<(), AgentError> {
        history::check_session_id(session_id).map_err(history_error)?;
        let _one_at_a_time = self.lifecycle.lock(session_id).await;
        let dir = self.config_dir()?;
        let (stored_dir, id) = (dir.clone(), session_id.to_owned());
        let stored = tokio::task::spawn_blocking(move || history::find(&stored_dir, &id).is_some())
            .await
            .map_err(|e| AgentError::Internal(e.to_string()))?;
        let open = self.handle(session_id).is_ok();
        if !stored && !open {
            return Err(AgentError::SessionNotFound(session_id.to_owned()));
        }
        if archived {
            self.close_open(session_id).await;
        }
        let id = session_id.to_owned();
        tokio::task::spawn_blocking(move || history::set_archived(&dir, &id, archived))
            .await
            .map_err(|e| AgentError::Internal(e.to_string()))?
            .map_err(history_error)?;
        Ok(())
    }

    /// Open while its actor runs here, saved while only claude's store has it: read, never
    /// started or loaded.
    pub(super) async fn status(&self, session_id: &str) -> Result<SessionStatus, AgentError> {
        if self.handle(session_id).is_ok() {
            return Ok(SessionStatus::Open);
        }
        history::check_session_id(session_id).map_err(history_error)?;
        let (dir, id) = (self.config_dir()?, session_id.to_owned());
        let stored = tokio::task::spawn_blocking(move || history::find(&dir, &id).is_some())
            .await
            .map_err(|e| AgentError::Internal(e.to_string()))?;
        match stored {
            true => Ok(SessionStatus::Saved),
            false => Err(AgentError::SessionNotFound(session_id.to_owned())),
        }
    }

    /// Sends the thread stored in `file` to the editor, in order.
    pub(super) async fn replay_to_editor(
        &self,
        session_id: &str,
        file: PathBuf,
        cwd: PathBuf,
    ) -> Result<(), AgentError> {
        // One blocking thread reads, translates and queues each update for the editor as it is
        // made, with no hand-over per update (a long thread has tens of thousands), and waits
        // while the editor has more than a little left to read: the replay holds a few lines at
        // most, however long the transcript and however slow the editor.
        let editor = self.editor.clone();
        let (id, runtime) = (session_id.to_owned(), tokio::runtime::Handle::current());
        let cursors = editor.supports_cursors();
        let gone = StopOnDrop(Arc::new(AtomicBool::new(false)));
        let stop = gone.0.clone();
        let replay = tokio::task::spawn_blocking(move || {
            history::stream_replay(&file, &cwd, cursors, &mut |update| {
                runtime.block_on(editor.room_for_replay());
                // Nobody waits for the answer any more (the request was dropped): stop reading.
                if stop.load(Ordering::Relaxed) {
                    return ControlFlow::Break(());
                }
                editor.session_update(&id, update);
                ControlFlow::Continue(())
            })
        });
        let replayed = replay
            .await
            .map_err(|e| AgentError::Internal(e.to_string()))?;
        // What the replay freed goes back to the system, not kept for the session's life.
        crate::platform::memory::give_back_free();
        replayed.map_err(history_error)?;
        drop(gone);
        Ok(())
    }

    pub(super) async fn delete(&self, session_id: &str) -> Result<(), AgentError> {
        let _one_at_a_time = self.lifecycle.lock(session_id).await;
        let open = self.close_open(session_id).await;
        let dir = self.config_dir()?;
        let id = session_id.to_owned();
        let removed = tokio::task::spawn_blocking(move || history::delete(&dir, &id))
            .await
            .map_err(|e| AgentError::Internal(e.to_string()))?
            .map_err(super::history_error)?;
        if removed || open {
            tracing::info!(session = %session_id, stored = removed, "session deleted");
            Ok(())
        } else {
            Err(AgentError::InvalidParams(format!(
                "no session {session_id}: it is not open and claude stored no conversation under it"
            )))
        }
    }
}

/// Tells the replay's thread to stop when the load is dropped before its end.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}
