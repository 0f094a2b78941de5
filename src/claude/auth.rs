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
    let child = tokio::process::Command::new(&command.program)
        .args(&command.prefix_args)
        .args(["auth", "logout"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| ClaudeError::Spawn {
            program: command.program.clone(),
            source,
        })?;
    let output = tokio::time::timeout(LOGOUT_TIMEOUT, child.wait_with_output())
        .await
        .map_err(|_| ClaudeError::Timeout {
            request: "auth logout".into(),
            after: LOGOUT_TIMEOUT,
        })??;
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
