//! The logins `initialize` offers, by id (the TypeScript adapter's where it has the same login),
//! and claude's report of its login put in the editor's words.

use crate::claude::auth::{AuthStatus, LoginKind};
use crate::domain::{ApiKind, AuthMethodInfo, AuthStatusInfo};

/// claude's own login screen; the editor runs `claude-acp login` in a terminal.
pub(super) const LOGIN_METHOD: &str = "claude-login";
/// The terminal logins of `claude auth login` (`claude-acp login --kind`).
pub(super) const SUBSCRIPTION_LOGIN: &str = "claude-ai-login";
pub(super) const CONSOLE_LOGIN: &str = "console-login";
pub(super) const SSO_LOGIN: &str = "sso-login";
/// The editor's own gateway (`_meta.gateway.{baseUrl, headers}` on `authenticate`): one that
/// speaks Anthropic's API, and one that speaks Bedrock's.
pub(super) const GATEWAY_METHOD: &str = "gateway";
pub(super) const GATEWAY_BEDROCK_METHOD: &str = "gateway-bedrock";

/// The logins offered: with a key or token in the environment, claude's own screen only (as
/// before: the key is what claude uses); else the subscription, Console and SSO logins too, for
/// editors that run terminal logins. The gateway method goes to editors that declare gateways.
pub(crate) fn offered(key_in_env: bool) -> Vec<AuthMethodInfo> {
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
        gateway: None,
    };
    let screen = method(
        LOGIN_METHOD,
        "Log in to Claude",
        "Runs claude's own login (`claude /login`) in a terminal",
        LoginKind::Screen,
    );
    let gateway = |id: &str, api: ApiKind| AuthMethodInfo {
        id: id.into(),
        name: "Custom model gateway".into(),
        description: "Use a custom gateway to authenticate and access models".into(),
        args: Vec::new(),
        needs_terminal_client: false,
        gateway: Some(api),
    };
    let gateways = [
        gateway(GATEWAY_METHOD, ApiKind::Anthropic),
        gateway(GATEWAY_BEDROCK_METHOD, ApiKind::Bedrock),
    ];
    if key_in_env {
        return [screen].into_iter().chain(gateways).collect();
    }
    [
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
    ]
    .into_iter()
    .chain(gateways)
    .collect()
}

/// claude's own report of its login, for the editor.
pub(super) fn status_info(status: &AuthStatus) -> AuthStatusInfo {
    AuthStatusInfo {
        logged_in: status.logged_in,
        method: status.auth_method.clone(),
        provider: status.api_provider.clone(),
        email: status.masked_email(),
        summary: status.describe(),
    }
}
