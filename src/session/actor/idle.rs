//! Idle sessions cost nothing: a session whose claude has had nothing to do for the idle timeout
//! has it stopped, and the next prompt, mode or model change starts it again with `--resume`
//! (the crash path's respawn), with the session's mode, model, rules, MCP servers and permission
//! transport. The editor sees no difference except that turn's start-up.

use std::time::Duration;

use tokio::time::Instant;

use super::SessionActor;
use crate::claude::wire::{ClaudeMessage, OutboundControl};
use crate::domain::AgentError;

/// How long a stopping claude (stdin closed, nothing to finish) may take before it is killed.
pub(super) const STOP_GRACE: Duration = Duration::from_secs(2);

/// How long a session's end waits for claude to stop its background tasks (`stop_task`), all of
/// them together, before it closes claude's stdin anyway.
const STOP_TASKS_WAIT: Duration = Duration::from_secs(1);

/// When the session last did anything, and what claude still runs in the background.
pub(super) struct Idle {
    /// `None`: never stop.
    timeout: Option<Duration>,
    last_activity: Instant,
    /// The ids of claude's background tasks (shells, subagents) that keep it busy, from its
    /// latest `system/background_tasks_changed`.
    background_tasks: Vec<String>,
    /// claude was stopped for being idle and is started again on demand.
    stopped: bool,
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
}

impl SessionActor {
    /// When claude is to be stopped, if nothing happens before: never while a turn runs, a
    /// permission ask is open or claude has background work (its own, or a background command in
    /// the editor's terminal, which ends with claude).
    pub(super) fn idle_deadline(&self) -> Option<Instant> {
        let timeout = self.idle.timeout?;
        let busy = !self.claude.is_running()
            || self.turn.is_some()
            || self.asks.any_open()
            || !self.idle.background_tasks.is_empty()
            || self
                .tools
                .served
                .terminal
                .as_ref()
                .is_some_and(|t| t.has_background());
        (!busy).then(|| self.idle.last_activity + timeout)
    }

    /// The session ends: claude is asked to stop each of its background tasks (`stop_task`) before
    /// its stdin closes, so that it ends them as its own and says so in its transcript (a resumed
    /// conversation does not wait on a job that is gone). Whatever is left is killed with claude's
    /// tree afterwards, so a claude that does not answer only costs `STOP_TASKS_WAIT`.
    pub(super) async fn stop_background_tasks(&mut self) {
        let Some(handle) = self.claude.handle() else {
            return;
        };
        let stops: Vec<_> = std::mem::take(&mut self.idle.background_tasks)
            .into_iter()
            .filter(|id| !id.is_empty())
            .map(|task_id| handle.request(OutboundControl::StopTask { task_id }, STOP_TASKS_WAIT))
            .collect();
        if stops.is_empty() {
            return;
        }
        let stopped = tokio::time::timeout(STOP_TASKS_WAIT, futures::future::join_all(stops)).await;
        tracing::debug!(session = %self.ctx.id, answered = stopped.is_ok(), "asked claude to stop its background tasks");
    }

    /// The idle timeout has passed: stops claude cleanly (stdin closed, so it ends as it would
    /// when the editor quits), unless one of our control requests still waits for its answer.
    pub(super) async fn stop_idle_claude(&mut self) {
        let waiting = self
            .claude
            .handle()
            .map_or(0, |handle| handle.requests_waiting());
        if waiting > 0 || self.idle_deadline().is_none() {
            return;
        }
        // Its `--mcp-config` file (the editor's MCP secrets) goes with it.
        let Some(mut process) = self.claude.ended() else {
            return;
        };
        process.shutdown(STOP_GRACE).await;
        self.idle.stopped = true;
        tracing::info!(session = %self.ctx.id,
            "claude stopped after {:?} idle; the next prompt resumes it", self.idle.timeout.unwrap_or_default());
    }

    /// A mode or model change to a session whose claude was stopped for being idle starts it again.
    pub(super) fn wake_if_stopped(&mut self) -> Result<(), AgentError> {
        if self.idle.stopped && !self.claude.is_running() {
            self.ensure_claude()?;
        }
        Ok(())
    }

    /// What the session changed since it opened goes on the command line of a restarted claude:
    /// the mode (set by the editor, or by claude itself after ExitPlanMode or a permission answer).
    pub(super) fn carry_session_state_into_flags(&mut self) {
        if self.settings.mode_touched {
            let mode = self.settings.mode.clone();
            self.ctx.flags.set("--permission-mode", &mode);
        }
    }
}
