//! claude's own account commands run outside any session: `claude auth logout`.

use std::process::Stdio;
use std::time::Duration;

use super::error::ClaudeError;
use super::locate::ClaudeCommand;
use super::redact::redact_secrets;

/// How long `claude auth logout` may take (it may try to revoke the login online first).
const LOGOUT_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs `claude auth logout` with the adapter's environment; returns what it printed (secrets
/// masked). A failure carries claude's exit status and its output.
pub(crate) async fn logout(command: &ClaudeCommand) -> Result<String, ClaudeError> {
    let output = run_auth(command, &["logout"], &[], LOGOUT_TIMEOUT).await?;
    let printed = redact_secrets(&format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ));
    if output.status.success() {
        Ok(printed.trim().to_owned())
    } else {
        Err(ClaudeError::Exited {
            status: output.status.to_string(),
            stderr_tail: printed,
        })
    }
}

/// How long `claude auth status` may take (it reads local files only).
const STATUS_TIMEOUT: Duration = Duration::from_secs(15);

/// The login claude would use, as `claude auth status --json` reports it.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AuthStatus {
    #[serde(default, deserialize_with = "super::lenient::any_shape")]
    pub(crate) logged_in: bool,
    /// `none`, `api_key`, `oauth_token`, `claude.ai`, `console`, `third_party`, ...
    #[serde(default, deserialize_with = "super::lenient::any_shape")]
    pub(crate) auth_method: String,
    /// `firstParty`, `bedrock`, `vertex`, `foundry`, ...
    #[serde(default, deserialize_with = "super::lenient::any_shape")]
    pub(crate) api_provider: String,
    #[serde(default, deserialize_with = "super::lenient::any_shape")]
    pub(crate) api_key_source: Option<String>,
    #[serde(default, deserialize_with = "super::lenient::any_shape")]
    pub(crate) email: Option<String>,
    #[serde(default, deserialize_with = "super::lenient::any_shape")]
    pub(crate) subscription_type: Option<String>,
}

impl AuthStatus {
    /// The account's e-mail, masked as the logs mask it.
    pub(crate) fn masked_email(&self) -> Option<String> {
        self.email.as_deref().map(super::redact::redact_secrets)
    }

    /// "Claude subscription (a***@example.com)", "API key (ANTHROPIC_API_KEY)", "not logged in".
    pub(crate) fn describe(&self) -> String {
        if !self.logged_in {
            return "not logged in".into();
        }
        let what = match (self.auth_method.as_str(), self.api_provider.as_str()) {
            (_, "bedrock") => "Amazon Bedrock".to_owned(),
            (_, "vertex") => "Google Vertex AI".to_owned(),
            (_, "foundry") => "Microsoft Foundry".to_owned(),
            ("claude.ai", _) => match &self.subscription_type {
                Some(plan) => format!("Claude subscription ({plan})"),
                None => "Claude subscription".to_owned(),
            },
            ("console", _) => "Anthropic Console".to_owned(),
            ("api_key", _) => match &self.api_key_source {
                Some(source) => format!("API key ({source})"),
                None => "API key".to_owned(),
            },
            ("oauth_token", _) => {
                "token (ANTHROPIC_AUTH_TOKEN or CLAUDE_CODE_OAUTH_TOKEN)".to_owned()
            }
            (other, _) => other.replace('_', " "),
        };
        match self.masked_email() {
            Some(email) => format!("{what}, {email}"),
            None => what,
        }
    }
}

/// Runs `claude auth status --json` with the adapter's environment plus `env`. claude exits 1
/// when not logged in and still prints its JSON.
pub(crate) async fn status(
    command: &ClaudeCommand,
    env: &[(String, String)],
) -> Result<AuthStatus, ClaudeError> {
    let output = run_auth(command, &["status", "--json"], env, STATUS_TIMEOUT).await?;
    serde_json::from_slice::<AuthStatus>(&output.stdout).map_err(|_| ClaudeError::Exited {
        status: output.status.to_string(),
        stderr_tail: redact_secrets(&format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )),
    })
}

/// How `claude auth login` is asked to sign in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LoginKind {
    /// claude's own `/login` screen, where the user picks.
    Screen,
    /// `--claudeai`: a Claude subscription (Pro, Max, Team, Enterprise).
    Subscription,
    /// `--console`: an Anthropic Console account, billed per API use.
    Console,
    /// `--sso`: the organisation's single sign-on.
    Sso,
}

impl LoginKind {
    /// claude's arguments for this login.
    pub(crate) fn claude_args(self) -> &'static [&'static str] {
        match self {
            LoginKind::Screen => &["/login"],
            LoginKind::Subscription => &["auth", "login", "--claudeai"],
            LoginKind::Console => &["auth", "login", "--console"],
            LoginKind::Sso => &["auth", "login", "--sso"],
        }
    }

    /// `claude-acp`'s own arguments that run it (`claude-acp login --console`).
    pub(crate) fn adapter_args(self) -> &'static [&'static str] {
        match self {
            LoginKind::Screen => &["login"],
            LoginKind::Subscription => &["login", "--claudeai"],
            LoginKind::Console => &["login", "--console"],
            LoginKind::Sso => &["login", "--sso"],
        }
    }
}

/// Runs `claude auth ARGS...` with the adapter's environment plus `env`, stdin closed, and waits
/// for it for at most `timeout` (killed if it takes longer).
async fn run_auth(
    command: &ClaudeCommand,
    args: &[&str],
    env: &[(String, String)],
    timeout: Duration,
) -> Result<std::process::Output, ClaudeError> {
    let child = tokio::process::Command::new(&command.program)
        .args(&command.prefix_args)
        .arg("auth")
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| ClaudeError::Spawn {
            program: command.program.clone(),
            source,
        })?;
    Ok(tokio::time::timeout(timeout, child.wait_with_output())
        .await
        .map_err(|_| ClaudeError::Timeout {
            request: format!("auth {}", args.join(" ")),
            after: timeout,
        })??)
}
