//! Idle sessions cost nothing: a session whose claude has had nothing to do for the idle timeout
//! has it stopped, and the next prompt, mode or model change starts it again with `--resume`
//! (the crash path's respawn), with the session's mode, model, rules, MCP servers and permission
//! transport. The editor sees no difference except that turn's start-up.

use std::time::Duration;

use tokio::time::Instant;

use crate::claude::wire::ClaudeMessage;

/// How long a stopping claude (stdin closed, nothing to finish) may take before it is killed.
pub(super) const STOP_GRACE: Duration = Duration::from_secs(2);

/// How long a session's end waits for claude to stop its background tasks (`stop_task`), all of
/// them together, before it closes claude's stdin anyway.
pub(super) const STOP_TASKS_WAIT: Duration = Duration::from_secs(1);

/// When the session last did anything, and what claude still runs in the background.
pub(super) struct Idle {
    /// `None`: never stop.
    pub(super) timeout: Option<Duration>,
    last_activity: Instant,
    /// The ids of claude's background tasks (shells, subagents) that keep it busy, from its
    /// latest `system/background_tasks_changed`.
    background_tasks: Vec<String>,
    /// claude was stopped for being idle and is started again on demand.
    pub(super) stopped: bool,
}

impl Idle {
    pub(super) fn new(timeout: Option<Duration>) -> Self {
        Self {
            timeout,
            last_activity: Instant::now(),
            background_tasks: Vec::new(),
            stopped: false,
        }
    }

    /// Whether claude said background task `id` runs.
    pub(super) fn runs_task(&self, id: &str) -> bool {
        self.background_tasks.iter().any(|t| t == id)
    }

    /// Something happened in the session: the idle time starts again.
    pub(super) fn touch(&mut self) {
        self.last_activity = Instant::now();
    }

    /// Follows what claude says about its background work.
    pub(super) fn saw(&mut self, message: &ClaudeMessage) {
        if let ClaudeMessage::System(system) = message
            && let Some(running) = system.background_tasks_running()
        {
            self.background_tasks = running;
        }
    }

    /// A new claude process: it has no background tasks yet (claude sends the set only on change).
    pub(super) fn claude_started(&mut self) {
        self.background_tasks.clear();
        self.stopped = false;
        self.touch();
    }

    /// When claude is to be stopped, if nothing happens before; `busy`: it is not to be (a turn
    /// runs, an ask is open, a background command runs in the editor's terminal). Never while
    /// claude has background work of its own.
    pub(super) fn deadline(&self, busy: bool) -> Option<Instant> {
        let timeout = self.timeout?;
        let busy = busy || !self.background_tasks.is_empty();
        (!busy).then(|| self.last_activity + timeout)
    }

    /// The background tasks claude said run, forgotten (the session ends).
    pub(super) fn take_background_tasks(&mut self) -> Vec<String> {
        std::mem::take(&mut self.background_tasks)
    }
}
