//! `authenticate` and `logout` against claude's own login: a terminal login is checked afterwards
//! (claude's `auth status`), the gateway method becomes the route, and the login last seen is
//! kept so the editor hears of a change once.

use std::sync::Mutex;

use super::methods::{
    CONSOLE_LOGIN, GATEWAY_BEDROCK_METHOD, GATEWAY_METHOD, LOGIN_METHOD, SSO_LOGIN,
    SUBSCRIPTION_LOGIN, status_info,
};
use crate::claude::locate::ClaudeCommand;
use crate::domain::{AgentError, ApiKind, AuthStatusInfo, Gateway};

/// What an `authenticate` that succeeded changed.
#[derive(Debug)]
pub(crate) enum Login {
    /// Nothing: claude's own screen, with a login already in place.
    Unchanged,
    /// A terminal login took: this is the login now.
    Took(AuthStatusInfo),
    /// Every claude from now on goes through the editor's gateway.
    Gateway(Gateway, AuthStatusInfo),
}

/// Checks or applies the login `method_id` names. `claude` is the claude this adapter runs (or
/// why none was found).
pub(crate) async fn authenticate(
    claude: &Result<ClaudeCommand, String>,
    method_id: &str,
    gateway: Option<Gateway>,
) -> Result<Login, AgentError> {
    let what = match method_id {
        GATEWAY_METHOD | GATEWAY_BEDROCK_METHOD => {
            let mut gateway = gateway.ok_or_else(|| {
                AgentError::InvalidParams(format!(
                    "the `{method_id}` method needs `_meta.gateway.baseUrl`"
                ))
            })?;
            if method_id == GATEWAY_BEDROCK_METHOD {
                gateway.api = ApiKind::Bedrock;
            }
            let shown = crate::claude::install::redact_url(&gateway.base_url);
            tracing::info!(gateway = %shown, headers = gateway.headers.len(), "claude's route is the editor's gateway");
            return Ok(Login::Gateway(gateway, gateway_status(&shown)));
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
            Ok(Login::Unchanged)
        } else {
            Err(AgentError::AuthRequired(
                "claude is not logged in: run `claude-acp login` in a terminal, or set ANTHROPIC_API_KEY".into(),
            ))
        };
    };
    // The editor ran the login in a terminal: see whether it took.
    let command = claude.clone().map_err(AgentError::Internal)?;
    let status = crate::claude::auth::status(&command, &[])
        .await
        .map_err(|e| AgentError::Internal(format!("could not ask claude for its login: {e}")))?;
    tracing::info!(login = %status.describe(), "after the {what} login");
    if status.logged_in {
        Ok(Login::Took(status_info(&status)))
    } else {
        Err(AgentError::AuthRequired(format!(
            "the {what} login did not complete: claude reports no login. Run it again; \
             the sessions keep whatever login they had."
        )))
    }
}

/// The login while the editor's gateway holds the credentials (`shown`: its URL, redacted).
fn gateway_status(shown: &str) -> AuthStatusInfo {
    AuthStatusInfo {
        logged_in: true,
        method: GATEWAY_METHOD.into(),
        provider: GATEWAY_METHOD.into(),
        email: None,
        summary: format!("gateway {shown}"),
    }
}

/// Runs claude's own `claude auth logout`; the caller has ended every claude first (each holds
/// the login it started with). Answers the login in use afterwards.
pub(crate) async fn log_out(
    claude: &Result<ClaudeCommand, String>,
) -> Result<AuthStatusInfo, AgentError> {
    let command = claude.clone().map_err(AgentError::Internal)?;
    let said = crate::claude::auth::logout(&command)
        .await
        .map_err(|e| AgentError::Internal(format!("claude could not log out: {e}")))?;
    tracing::info!("logged out: {said}");
    Ok(crate::claude::install::login_in_use())
}

/// The login last seen change in this process (`None` until one did: then the environment and
/// claude's files say).
#[derive(Debug, Default)]
pub(crate) struct KnownLogin(Mutex<Option<AuthStatusInfo>>);

impl KnownLogin {
    /// The login in use.
    pub(crate) fn current(&self) -> AuthStatusInfo {
        let known = self.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
        known.unwrap_or_else(crate::claude::install::login_in_use)
    }

    /// Remembers `status`; true when it differs from the last one seen (the editor is told).
    pub(crate) fn changed_to(&self, status: &AuthStatusInfo) -> bool {
        let mut known = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if known.as_ref() == Some(status) {
            return false;
        }
        *known = Some(status.clone());
        true
    }
}
