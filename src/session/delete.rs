//! `session/delete`: the session's claude ends first (so nothing writes the conversation again),
//! then claude's stored conversation goes.

use super::Sessions;
use super::actor::Command;
use crate::domain::AgentError;
use crate::history;

impl Sessions {
    pub(super) async fn delete(&self, session_id: &str) -> Result<(), AgentError> {
        let _one_at_a_time = self.lifecycle.lock(session_id).await;
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
        let dir = self.config_dir()?;
        let id = session_id.to_owned();
        let removed = tokio::task::spawn_blocking(move || history::delete(&dir, &id))
            .await
            .map_err(|e| AgentError::Internal(e.to_string()))?
            .map_err(super::history_error)?;
        if removed || open.is_some() {
            tracing::info!(session = %session_id, stored = removed, "session deleted");
            Ok(())
        } else {
            Err(AgentError::InvalidParams(format!(
                "no session {session_id}: it is not open and claude stored no conversation under it"
            )))
        }
    }
}
