//! `logout`: every session's claude ends (each holds the login it started with), then claude's own
//! `claude auth logout` runs; the next prompt starts a claude that finds no login (auth_required).

use super::Sessions;
use super::actor::Command;
use crate::domain::AgentError;

impl Sessions {
    pub(super) async fn log_out(&self) -> Result<(), AgentError> {
        let command = self.config.claude.clone().map_err(AgentError::Internal)?;
        let handles: Vec<_> = self
            .sessions
            .lock()
            .expect("session registry lock")
            .values()
            .map(|h| h.commands.clone())
            .collect();
        for commands in handles {
            let (tx, rx) = tokio::sync::oneshot::channel();
            if commands.send(Command::LoggedOut { reply: tx }).is_ok() {
                let _ = rx.await;
            }
        }
        let said = crate::claude::auth::logout(&command)
            .await
            .map_err(|e| AgentError::Internal(format!("claude could not log out: {e}")))?;
        tracing::info!("logged out: {said}");
        self.auth_changed(crate::claude::install::login_in_use());
        Ok(())
    }
}
