//! What `authenticate` does with each login `initialize` offers (`features.rs`): a terminal login is
//! checked afterwards (claude's `auth status`); the gateway method routes every claude of this
//! adapter through the editor's gateway (its URL and headers as claude's environment, never on its
//! command line), the live sessions moved at their next turn.

use super::Sessions;
use super::actor::Command;
use super::features::{
    CONSOLE_LOGIN, GATEWAY_METHOD, LOGIN_METHOD, SSO_LOGIN, SUBSCRIPTION_LOGIN, auth_status_info,
};
use crate::domain::{AgentError, AuthStatusInfo, Gateway};

impl Sessions {
    pub(super) async fn log_in(
        &self,
        method_id: &str,
        gateway: Option<Gateway>,
    ) -> Result<(), AgentError> {
        let what = match method_id {
            GATEWAY_METHOD => {
                let gateway = gateway.ok_or_else(|| {
                    AgentError::InvalidParams(
                        "the `gateway` method needs `_meta.gateway.baseUrl`".into(),
                    )
                })?;
                self.route_through(gateway);
                return Ok(());
            }
            LOGIN_METHOD => None,
            SUBSCRIPTION_LOGIN => Some("Claude subscription"),
            CONSOLE_LOGIN => Some("Anthropic Console"),
            SSO_LOGIN => Some("SSO"),
            _ => {
                return Err(AgentError::InvalidParams(format!(
                    "unknown auth method `{method_id}`"
                )));
            }
        };
        let Some(what) = what else {
            return if crate::claude::install::has_credentials() {
                Ok(())
            } else {
                Err(AgentError::AuthRequired(
                    "claude is not logged in: run `claude-acp login` in a terminal, or set ANTHROPIC_API_KEY".into(),
                ))
            };
        };
        // The editor ran the login in a terminal: see whether it took.
        let command = self.config.claude.clone().map_err(AgentError::Internal)?;
        let status = crate::claude::auth::status(&command, &[])
            .await
            .map_err(|e| {
                AgentError::Internal(format!("could not ask claude for its login: {e}"))
            })?;
        tracing::info!(login = %status.describe(), "after the {what} login");
        if status.logged_in {
            self.auth_changed(auth_status_info(&status));
            Ok(())
        } else {
            Err(AgentError::AuthRequired(format!(
                "the {what} login did not complete: claude reports no login. Run it again; \
                 the sessions keep whatever login they had."
            )))
        }
    }

    /// Every claude from now on goes through `gateway`; each live session's claude is replaced
    /// (with `--resume`) as soon as it has no turn running.
    fn route_through(&self, gateway: Gateway) {
        let shown = crate::claude::install::redact_url(&gateway.base_url);
        tracing::info!(gateway = %shown, headers = gateway.headers.len(), "claude's route is the editor's gateway");
        self.config.route.set(gateway);
        self.auth_changed(AuthStatusInfo {
            logged_in: true,
            method: GATEWAY_METHOD.into(),
            provider: GATEWAY_METHOD.into(),
            email: None,
            summary: format!("gateway {shown}"),
        });
        let sessions = self.sessions.lock().expect("session registry lock");
        for handle in sessions.values() {
            let _ = handle.commands.send(Command::RouteChanged);
        }
    }
}
