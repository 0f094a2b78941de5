//! The logins `initialize` offers and what `authenticate` does with each: a terminal login is
//! checked afterwards (claude's `auth status`); the gateway method routes every claude of this
//! adapter through the editor's gateway (its URL and headers as claude's environment, never on its
//! command line), the live sessions moved at their next turn.

use super::Sessions;
use super::actor::Command;
use crate::claude::auth::{AuthStatus, LoginKind};
use crate::domain::{AgentError, AuthMethodInfo, AuthStatusInfo, Gateway};

/// The auth methods `initialize` offers; the editor runs `claude-acp login [--kind]` in a
/// terminal. The ids are the TypeScript adapter's where it has the same login.
const LOGIN_METHOD: &str = "claude-login";
const SUBSCRIPTION_LOGIN: &str = "claude-ai-login";
const CONSOLE_LOGIN: &str = "console-login";
const SSO_LOGIN: &str = "sso-login";
/// The editor's own gateway (`_meta.gateway.{baseUrl, headers}` on `authenticate`).
pub(crate) const GATEWAY_METHOD: &str = "gateway";

/// The logins offered: with a key or token in the environment, claude's own screen only (as
/// before: the key is what claude uses); else the subscription, Console and SSO logins too, for
/// editors that run terminal logins. The gateway method goes to editors that declare gateways.
pub(super) fn auth_methods(key_in_env: bool) -> Vec<AuthMethodInfo> {
    let method = |id: &str, name: &str, description: &str, kind: LoginKind| AuthMethodInfo {
        id: id.into(),
        name: name.into(),
        description: description.into(),
        args: kind
            .adapter_args()
            .iter()
            .map(|a| (*a).to_owned())
            .collect(),
        needs_terminal_client: kind != LoginKind::Screen,
        gateway: false,
    };
    let screen = method(
        LOGIN_METHOD,
        "Log in to Claude",
        "Runs claude's own login (`claude /login`) in a terminal",
        LoginKind::Screen,
    );
    let gateway = AuthMethodInfo {
        id: GATEWAY_METHOD.into(),
        name: "Custom model gateway".into(),
        description: "Use a custom gateway to authenticate and access models".into(),
        args: Vec::new(),
        needs_terminal_client: false,
        gateway: true,
    };
    if key_in_env {
        return vec![screen, gateway];
    }
    vec![
        method(
            SUBSCRIPTION_LOGIN,
            "Claude subscription",
            "Use your Claude Pro, Max, Team or Enterprise plan (`claude auth login --claudeai`)",
            LoginKind::Subscription,
        ),
        method(
            CONSOLE_LOGIN,
            "Anthropic Console",
            "Use an Anthropic Console account, billed per API use (`claude auth login --console`)",
            LoginKind::Console,
        ),
        method(
            SSO_LOGIN,
            "Single sign-on",
            "Log in through your organisation's SSO (`claude auth login --sso`)",
            LoginKind::Sso,
        ),
        screen,
        gateway,
    ]
}

/// claude's own report of its login, for the editor.
fn auth_status_info(status: &AuthStatus) -> AuthStatusInfo {
    AuthStatusInfo {
        logged_in: status.logged_in,
        method: status.auth_method.clone(),
        provider: status.api_provider.clone(),
        email: status.masked_email(),
        summary: status.describe(),
    }
}

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
