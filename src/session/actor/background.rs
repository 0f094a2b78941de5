//! claude's background jobs (a command run in the background, a background subagent) on the
//! editor's request: one stopped by its task id without cancelling the turn (claude's
//! `stop_task`, as its TaskStop tool would). The request runs in a task of its own.

use super::{CONTROL_TIMEOUT, Reply, SessionActor};
use crate::claude::ClaudeError;
use crate::claude::wire::OutboundControl;
use crate::domain::AgentError;

impl SessionActor {
    /// Asks claude to stop job `task_id`; answers whether it did (false: no claude runs, or no
    /// such job runs: claude acknowledges a stop of any id, so its own list of the jobs that run,
    /// `system/background_tasks_changed`, decides).
    pub(super) fn stop_task(&mut self, task_id: String, reply: Reply<bool>) {
        let handle = self
            .claude
            .handle()
            .filter(|_| self.idle.runs_task(&task_id));
        let Some(handle) = handle else {
            let _ = reply.send(Ok(false));
            return;
        };
        let request = handle.request(OutboundControl::StopTask { task_id }, CONTROL_TIMEOUT);
        tokio::spawn(async move {
            let stopped = match request.await {
                Ok(_) => Ok(true),
                // claude's own refusal ("No task found ..."): nothing was running by that id.
                Err(ClaudeError::ControlError(reason)) => {
                    tracing::debug!("claude did not stop the task: {reason}");
                    Ok(false)
                }
                Err(e) => Err(AgentError::Internal(format!(
                    "claude did not answer the request to stop the task: {e}"
                ))),
            };
            let _ = reply.send(stopped);
        });
    }
}
