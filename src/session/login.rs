//! A login's or a route's change applied to the sessions: after `authenticate`, `logout` or
//! `providers/set|disable` (`crate::auth`), each live session's claude is replaced or ended, and
//! the editor hears of a new login once.

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
                self.reroute(Some(gateway));
                self.auth_changed(status);
            }
        }
        Ok(())
    }

    /// `providers/set`: the editor's gateway for the one provider, `main`, once its models are
    /// listed (a listing that fails changes nothing).
    pub(super) async fn set_provider(
        &self,
        provider_id: &str,
        gateway: Gateway,
    ) -> Result<(), AgentError> {
        crate::auth::check_provider_id(provider_id)?;
        let route = &self.config.route;
        if route
            .set_provider(gateway, &crate::auth::SystemHttp)
            .await?
        {
            self.rerouted();
        }
        Ok(())
    }

    /// `providers/disable`: the environment's own route again (an unknown id changes nothing).
    pub(super) async fn disable_provider(&self, provider_id: &str) {
        if crate::auth::check_provider_id(provider_id).is_ok()
            && self.config.route.disable_provider().await
        {
            self.rerouted();
        }
    }

    /// Every claude from now on takes `gateway` (or the environment's route).
    fn reroute(&self, gateway: Option<Gateway>) {
        if self.config.route.set(gateway) {
            self.rerouted();
        }
    }

    /// The route changed: each live session's claude is replaced (with `--resume`) as soon as
    /// it has no turn running, and its models follow the route at once.
    fn rerouted(&self) {
        let shown = self.config.route.shown();
        tracing::info!(
            api = shown.api.name(),
            url = %crate::claude::install::redact_url(&shown.base_url),
            "claude's route changed"
        );
        for commands in self.session_commands() {
            let _ = commands.send(Command::RouteChanged);
        }
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
        // The editor's gateway goes with the login it stood for; the claudes just ended start
        // again on the environment's route.
        self.config.route.set(None);
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
