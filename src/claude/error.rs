//! The one error type of the claude boundary: everything that can go wrong spawning or talking to claude.

use std::path::PathBuf;
use std::time::Duration;

/// Why a call into the claude process failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ClaudeError {
    /// The program could not be started at all (missing, not executable, bad cwd...).
    #[error("could not start claude ({program}): {source}")]
    Spawn {
        program: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// claude is gone; `status` is "exit code 1" or "killed by signal 9".
    #[error("claude exited ({status}){}", stderr_suffix(.stderr_tail))]
    Exited { status: String, stderr_tail: String },
    /// claude answered a control request with an error.
    #[error("claude answered with an error: {0}")]
    ControlError(String),
    /// claude did not answer a control request in time.
    #[error("claude did not answer `{request}` within {}s", .after.as_secs_f32())]
    Timeout { request: String, after: Duration },
    /// Writing to claude failed, or its stdin is already closed.
    #[error("talking to claude failed: {0}")]
    Io(#[from] std::io::Error),
}

/// The last stderr lines, so the user sees claude's own reason ("Invalid API key", ...).
fn stderr_suffix(tail: &str) -> String {
    const SHOWN: usize = 2000;
    let tail = tail.trim();
    if tail.is_empty() {
        return String::new();
    }
    let mut start = tail.len().saturating_sub(SHOWN);
    while !tail.is_char_boundary(start) {
        start += 1;
    }
    format!("; its last stderr output:\n{}", &tail[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exited_shows_status_and_stderr_only_when_there_is_some() {
        let e = ClaudeError::Exited {
            status: "exit code 1".into(),
            stderr_tail: "Invalid API key\n".into(),
        };
        assert_eq!(
            e.to_string(),
            "claude exited (exit code 1); its last stderr output:\nInvalid API key"
        );
        let e = ClaudeError::Exited {
            status: "killed by signal 9".into(),
            stderr_tail: " \n".into(),
        };
        assert_eq!(e.to_string(), "claude exited (killed by signal 9)");
    }

    #[test]
    fn timeout_names_the_request() {
        let e = ClaudeError::Timeout {
            request: "initialize".into(),
            after: Duration::from_millis(1500),
        };
        assert_eq!(
            e.to_string(),
            "claude did not answer `initialize` within 1.5s"
        );
    }
}
