//! A login's outcome applied to the sessions: after `authenticate` or `logout` (`crate::auth`),
//! each live session's claude is replaced or ended, and the editor hears of the new login once.

use super::Sessions;
use super::actor::Command;
use crate::auth::Login;
use crate::domain::{AgentError, AuthStatusInfo, Gateway};

impl Sessions {
    pub(super) async fn log_in(
        &self,
        method_id: &str,
        gateway: Option<Gateway>,
    ) -> Result<(), AgentError> {
        match crate::auth::authenticate(&self.config.claude, method_id, gateway).await? {
            Login::Unchanged => {}
            Login::Took(status) => self.auth_changed(status),
            Login::Gateway(gateway, status) => {
                self.config.route.set(gateway);
                self.auth_changed(status);
                // Each live session's claude is replaced (with `--resume`) as soon as it has no
                // turn running.
                for commands in self.session_commands() {
                    let _ = commands.send(Command::RouteChanged);
                }
            }
        }
        Ok(())
    }

    /// `logout`: every session's claude ends (each holds the login it started with), then
    /// claude's own logout runs; the next prompt starts a claude that finds no login.
    pub(super) async fn log_out(&self) -> Result<(), AgentError> {
        for commands in self.session_commands() {
            let (tx, rx) = tokio::sync::oneshot::channel();
            if commands.send(Command::LoggedOut { reply: tx }).is_ok() {
                let _ = rx.await;
            }
        }
        let status = crate::auth::log_out(&self.config.claude).await?;
        self.auth_changed(status);
        Ok(())
    }

    fn session_commands(&self) -> Vec<tokio::sync::mpsc::UnboundedSender<Command>> {
        let sessions = self.sessions.lock().expect("session registry lock");
        sessions.values().map(|h| h.commands.clone()).collect()
    }

    /// The login changed (a terminal login took, a logout, a gateway): told to the editor once.
    fn auth_changed(&self, status: AuthStatusInfo) {
        if self.login.changed_to(&status) {
            self.editor.auth_status(&status);
        }
    }
}
