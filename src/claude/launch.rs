//! How a claude is started: the one seam between a session and the way its claude runs, as a
//! child process (the real CLI, [`ProcessLauncher`]) or inside this process over pipes (a test
//! double such as the stand-in, [`in_process`]). Either way the session gets the same handle and
//! events, and ends the claude the same way.

use std::time::Duration;

use super::connection::ClaudeHandle;
use super::error::ClaudeError;
use super::events::EventReceiver;
#[cfg(test)]
use super::in_process::{self, InProcessClaude, Pipes};
use super::process::{ClaudeProcess, SpawnOptions};

/// Runs `claude` (given its stdin, stdout and stderr; it returns its exit code) as a task of this
/// process ([`in_process::start`]).
#[cfg(test)]
pub(crate) fn in_process<F>(claude: impl FnOnce(Pipes) -> F) -> Launched
where
    F: Future<Output = i32> + Send + 'static,
{
    let (claude, handle, events) = in_process::start(claude);
    Launched {
        claude: StartedClaude::InProcess(claude),
        handle,
        events,
    }
}

/// Starts claude. The session holds one and calls it for every (re)start.
pub(crate) trait Launch: Send + Sync + std::fmt::Debug {
    fn launch(&self, opts: SpawnOptions) -> Result<Launched, ClaudeError>;
}

/// A claude just started: what ends it, what talks to it, and what it says (messages, then one
/// `Exited`).
pub(crate) struct Launched {
    pub(crate) claude: StartedClaude,
    pub(crate) handle: ClaudeHandle,
    pub(crate) events: EventReceiver,
}

/// A running claude, however it runs. Dropping it ends it.
pub(crate) enum StartedClaude {
    Process(ClaudeProcess),
    #[cfg(test)]
    InProcess(InProcessClaude),
}

impl StartedClaude {
    /// The process id, for logs; none for a claude inside this process.
    pub(crate) fn pid(&self) -> Option<u32> {
        match self {
            Self::Process(p) => Some(p.pid()),
            #[cfg(test)]
            Self::InProcess(_) => None,
        }
    }

    /// Ends it now, and everything it started.
    pub(crate) fn kill(&self) {
        match self {
            Self::Process(p) => p.kill(),
            #[cfg(test)]
            Self::InProcess(c) => c.kill(),
        }
    }

    /// Ends it politely: stdin closed, up to `grace` to exit, then killed.
    pub(crate) async fn shutdown(&mut self, grace: Duration) {
        match self {
            Self::Process(p) => {
                p.shutdown(grace).await;
            }
            #[cfg(test)]
            Self::InProcess(c) => c.shutdown(grace).await,
        }
    }
}

/// Starts the claude CLI as a child process ([`ClaudeProcess::spawn`]).
#[derive(Debug, Default)]
pub(crate) struct ProcessLauncher;

impl Launch for ProcessLauncher {
    fn launch(&self, opts: SpawnOptions) -> Result<Launched, ClaudeError> {
        let (process, handle, events) = ClaudeProcess::spawn(opts)?;
        Ok(Launched {
            claude: StartedClaude::Process(process),
            handle,
            events,
        })
    }
}
