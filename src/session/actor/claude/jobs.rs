//! claude's background jobs (a command run in the background, a background subagent): one
//! stopped on the editor's request by its task id without cancelling the turn (claude's
//! `stop_task`, as its TaskStop tool would; a command in the editor's terminal is stopped here),
//! and a command's card completed with its output when it ends. Both run in tasks of their own.
//! A subagent's child session cancelled by the editor, and (ACP v2) a tool call whose job runs in
//! the background, are stopped the same way.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use super::super::ctx::{CONTROL_TIMEOUT, Reply, SessionContext};
use super::super::tools::EditorTools;
use super::{Claude, Request};
use crate::claude::ClaudeError;
use crate::claude::wire::OutboundControl;
use crate::domain::{AgentError, SessionUpdate};
use crate::translate::{self, JobEnd, TurnTranslator};

/// claude's answer to a control request already sent.
type ControlAnswer = Pin<Box<dyn Future<Output = Result<Value, ClaudeError>> + Send>>;

/// The most of a job's output shown on its card: its end, where the outcome is.
const OUTPUT_SHOWN: u64 = 256 * 1024;

impl Claude {
    /// The editor's request about claude's background work; `translator` says which jobs and
    /// subagents claude runs, and which tool call started which.
    pub(in crate::session::actor) fn on_request(
        &self,
        ctx: &SessionContext,
        tools: &EditorTools,
        translator: &TurnTranslator,
        request: Request,
    ) {
        match request {
            Request::StopTask { task_id, reply } => self.stop_task(tools, task_id, reply),
            Request::CancelToolCall {
                tool_call_id,
                reply,
            } => {
                let task_id = translator.background_task_of(&tool_call_id);
                self.cancel_tool_call(tools, tool_call_id, task_id, reply);
            }
            Request::CancelSubagent { task_id } => {
                let runs = translator.subagent_runs(&task_id);
                self.cancel_subagent(ctx, task_id, runs);
            }
        }
    }

    /// A background command ended: its card gets the output claude wrote to its file (read
    /// off the loop) and its status.
    pub(in crate::session::actor) fn background_job_ended(
        &self,
        ctx: &SessionContext,
        end: JobEnd,
    ) {
        let (editor, session) = (ctx.editor.clone(), ctx.id.clone());
        tokio::spawn(async move {
            let output = match end.output_file.clone() {
                Some(path) => tokio::task::spawn_blocking(move || tail_of(&path))
                    .await
                    .ok()
                    .flatten(),
                None => None,
            };
            let update = translate::job_end_update(&end, output);
            editor.session_update(&session, SessionUpdate::ToolCallUpdate(update));
        });
    }

    /// The editor cancelled subagent `task_id`'s child session: claude stops that subagent
    /// (`stop_task`, foreground or background; a foreground one's Task call then fails and the
    /// turn goes on). Nothing happens for a subagent that does not run (`runs`: the translation
    /// follows claude's subagents).
    fn cancel_subagent(&self, ctx: &SessionContext, task_id: String, runs: bool) {
        let Some(handle) = self.handle().filter(|_| runs) else {
            tracing::debug!(session = %ctx.id, task_id, "cancel of a subagent that does not run");
            return;
        };
        let request = handle.request(OutboundControl::StopTask { task_id }, CONTROL_TIMEOUT);
        tokio::spawn(async move {
            if let Err(e) = request.await {
                tracing::debug!("claude did not stop the subagent: {e}");
            }
        });
    }

    /// Asks claude to stop job `task_id`; answers whether it did (false: no claude runs, or no
    /// such job runs: claude acknowledges a stop of any id, so its own list of the jobs that run,
    /// `system/background_tasks_changed`, decides).
    fn stop_task(&self, tools: &EditorTools, task_id: String, reply: Reply<bool>) {
        let stopping = self.stop_job(tools, task_id);
        tokio::spawn(async move {
            let _ = reply.send(stopping.await);
        });
    }

    /// ACP v2's `tool_call/cancel`: the background job the call started is stopped as
    /// [`Self::stop_task`] stops it (its card ends `cancelled` when claude says it stopped); any
    /// other call, or one whose job already ended, is refused with invalid params. `task_id`: the
    /// job the call started, as the translation knows it.
    fn cancel_tool_call(
        &self,
        tools: &EditorTools,
        tool_call_id: String,
        task_id: Option<String>,
        reply: Reply<()>,
    ) {
        let id = tool_call_id.clone();
        let not_cancellable = move || {
            AgentError::InvalidParams(format!(
                "tool call {id} is not running in the background, so it cannot be \
                 cancelled (session/cancel stops the turn)"
            ))
        };
        let Some(task_id) = task_id else {
            let _ = reply.send(Err(not_cancellable()));
            return;
        };
        let stopping = self.stop_job(tools, task_id);
        tokio::spawn(async move {
            let answer = match stopping.await {
                Ok(true) => Ok(()),
                Ok(false) => Err(not_cancellable()),
                Err(e) => Err(e),
            };
            let _ = reply.send(answer);
        });
    }

    /// Stops job `task_id` (off the loop): whether a job by that id ran and was stopped.
    fn stop_job(
        &self,
        tools: &EditorTools,
        task_id: String,
    ) -> impl Future<Output = Result<bool, AgentError>> + Send + use<> {
        // A background command in the editor's terminal is ours to stop.
        let terminal = tools
            .served
            .terminal
            .clone()
            .filter(|terminal| terminal.runs_shell(&task_id));
        let request = match self.handle() {
            Some(handle) if terminal.is_none() && self.idle.runs_task(&task_id) => {
                let stop = OutboundControl::StopTask {
                    task_id: task_id.clone(),
                };
                // Boxed: the request owes nothing to the handle once sent.
                let request: ControlAnswer = Box::pin(handle.request(stop, CONTROL_TIMEOUT));
                Some(request)
            }
            _ => None,
        };
        async move {
            if let Some(terminal) = terminal {
                terminal.stop_shell(&task_id).await;
                return Ok(true);
            }
            let Some(request) = request else {
                return Ok(false);
            };
            match request.await {
                Ok(_) => Ok(true),
                // claude's own refusal ("No task found ..."): nothing was running by that id.
                Err(ClaudeError::ControlError(reason)) => {
                    tracing::debug!("claude did not stop the task: {reason}");
                    Ok(false)
                }
                Err(e) => Err(AgentError::Internal(format!(
                    "claude did not answer the request to stop the task: {e}"
                ))),
            }
        }
    }
}

/// The last [`OUTPUT_SHOWN`] bytes of the file at `path`, as text; `None` if it cannot be read.
fn tail_of(path: &str) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).ok()?;
    let size = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(size.saturating_sub(OUTPUT_SHOWN)))
        .ok()?;
    let mut bytes = Vec::new();
    file.take(OUTPUT_SHOWN).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}
