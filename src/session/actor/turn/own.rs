//! The turns claude-acp answers itself, without a model turn:
//! - `/usage`, from what claude already said;
//! - `/context`: claude's `get_context_usage`, shown as an agent message;
//! - `/mcp`, `/mcp reconnect|enable|disable NAME`: claude's control requests (the action, then
//!   `mcp_status`), its Markdown answer shown;
//! - `/undo` and `/rewind` (`super::super::rewind`), run as a task of their own.
//!
//! Each request runs in a task; its answer comes back to the loop as [`Done`], and a cancel
//! aborts the task (a `/context` cancelled meanwhile has been answered already).

use std::time::Duration;

use serde_json::Value;

use super::local::{self, LocalCommand};
use super::{Done, Parts, Reply, SessionContext, Turn, Turns};
use crate::claude::ClaudeError;
use crate::claude::wire::{ContextUsage, McpServerStatus, OutboundControl};
use crate::domain::{
    AgentError, AnswerWritten, Inserted, PromptBlock, SessionUpdate, StopReason, TurnOutcome,
};
use crate::session::actor::ctx::CONTROL_TIMEOUT;
use crate::session::actor::rewind::{self, RewindCommand, RewindDone};
use crate::translate::{self, McpCommand};

/// Reconnecting or enabling a server waits for it to connect, which claude gives up to 30 s.
const MCP_ACTION_TIMEOUT: Duration = Duration::from_secs(45);

impl Turns {
    /// Starts one of claude-acp's own commands as the session's turn (claude runs where it
    /// needs one).
    pub(super) fn start_own(
        &mut self,
        p: &mut Parts<'_>,
        command: LocalCommand,
        blocks: Vec<PromptBlock>,
        reply: Reply<TurnOutcome>,
        written: Option<AnswerWritten>,
        inserted: Option<Inserted>,
    ) {
        match command {
            LocalCommand::Rewind(command) => self.start_rewind(p, command, blocks, reply),
            LocalCommand::Usage => {
                let text = self.translator.usage_report();
                self.turn = Some(Turn::new(reply, blocks, None));
                self.accepted(p.ctx, written, inserted);
                p.ctx.tell_editor(SessionUpdate::agent_text(text));
                self.finish(p, Ok(StopReason::EndTurn));
                return;
            }
            LocalCommand::Context => self.start_context_turn(p, blocks, reply),
            LocalCommand::Mcp(command) => self.start_mcp_turn(p, command, blocks, reply),
        }
        self.accepted(p.ctx, written, inserted);
    }

    /// claude's `initialize` reply: the prompt box offers claude's commands and claude-acp's own.
    pub(in crate::session::actor) fn offer_commands(
        &mut self,
        ctx: &SessionContext,
        reply: &Value,
    ) {
        if let Some(commands) = translate::available_commands(reply) {
            self.commands.offer(ctx, local::offered(commands));
        }
    }

    /// What the turns claude-acp runs itself reported.
    pub(in crate::session::actor) async fn on_done(&mut self, p: &mut Parts<'_>, done: Done) {
        match done {
            Done::ContextUsage(answer) => self.on_context_usage(p, answer),
            Done::Mcp(text) => self.on_mcp_done(p, text),
            Done::Rewind(done) => self.on_rewind_done(p, done).await,
            Done::Limit(answer) => self.on_limit_answer(p, answer),
        }
    }

    /// Starts the `/context` turn (claude is running).
    fn start_context_turn(
        &mut self,
        p: &mut Parts<'_>,
        blocks: Vec<PromptBlock>,
        reply: Reply<TurnOutcome>,
    ) {
        let handle = p.claude.handle().expect("claude is running");
        self.turn = Some(Turn::new(reply, blocks, None));
        // `summary`: from the last response's usage and local estimates, no API request at all.
        let request = handle.request(
            OutboundControl::GetContextUsage { detail: "summary" },
            CONTROL_TIMEOUT,
        );
        let tell = self.tell.clone();
        tokio::spawn(async move {
            let answer = request.await.map_err(|e| e.to_string());
            tell.tell(Done::ContextUsage(answer));
        });
    }

    fn on_context_usage(&mut self, p: &mut Parts<'_>, answer: Result<Value, String>) {
        // A `/context` cancelled meanwhile has been answered, and another prompt may run now.
        if self
            .turn
            .as_ref()
            .is_none_or(|t| t.by_claude || t.local.is_some())
        {
            return;
        }
        if self.turn.as_ref().is_some_and(|t| t.cancelled) {
            self.finish(p, Ok(StopReason::Cancelled));
            return;
        }
        let usage = answer.and_then(|value| {
            ContextUsage::from_reply(value).ok_or_else(|| "an answer of an unknown shape".into())
        });
        match usage {
            Ok(usage) => {
                let text = translate::context_usage_text(&usage);
                p.ctx.tell_editor(SessionUpdate::agent_text(text));
                self.finish(p, Ok(StopReason::EndTurn));
            }
            Err(e) => self.finish(
                p,
                Err(AgentError::Internal(format!(
                    "claude did not report its context usage: {e}"
                ))),
            ),
        }
    }

    /// Starts the `/mcp` turn (claude is running).
    fn start_mcp_turn(
        &mut self,
        p: &mut Parts<'_>,
        command: McpCommand,
        blocks: Vec<PromptBlock>,
        reply: Reply<TurnOutcome>,
    ) {
        let handle = p.claude.handle().expect("claude is running");
        let tell = self.tell.clone();
        let task = tokio::spawn(async move {
            let acted = match &command {
                McpCommand::Act(action, name) => Some(
                    handle
                        .request(action.request(name), MCP_ACTION_TIMEOUT)
                        .await
                        .map(|_| ())
                        .map_err(claude_s_reason),
                ),
                _ => None,
            };
            let servers = handle
                .request(OutboundControl::McpStatus, CONTROL_TIMEOUT)
                .await
                .map_err(claude_s_reason)
                .and_then(|reply| {
                    McpServerStatus::list_from_reply(&reply)
                        .ok_or_else(|| "an answer of an unknown shape".to_owned())
                });
            let text = translate::mcp_text(&command, acted, servers);
            tell.tell(Done::Mcp(text));
        });
        self.turn = Some(Turn::new(reply, blocks, Some(task.abort_handle())));
    }

    fn on_mcp_done(&mut self, p: &mut Parts<'_>, text: String) {
        if self.turn.as_ref().is_none_or(|t| t.local.is_none()) {
            return; // cancelled meanwhile
        }
        p.ctx.tell_editor(SessionUpdate::agent_text(text));
        self.finish(p, Ok(StopReason::EndTurn));
    }

    /// Starts `/undo` or `/rewind` as a task of its own (claude runs for its file checkpoints).
    fn start_rewind(
        &mut self,
        p: &mut Parts<'_>,
        command: RewindCommand,
        blocks: Vec<PromptBlock>,
        reply: Reply<TurnOutcome>,
    ) {
        let Some(config_dir) = p.ctx.config.claude_config_dir.clone() else {
            let _ = reply.send(Err(AgentError::Internal(
                "cannot find claude's stored sessions: neither CLAUDE_CONFIG_DIR nor HOME is set"
                    .into(),
            )));
            return;
        };
        if let Err(e) = p.ensure_claude() {
            let _ = reply.send(Err(e));
            return;
        }
        let job = rewind::Job {
            editor: p.ctx.editor.clone(),
            session_id: p.ctx.id.clone(),
            cwd: p.ctx.cwd.clone(),
            config_dir,
            claude: p.claude.handle().expect("claude is running"),
            edit_log: p.tools.edit_log.clone(),
            command,
            tool_call_id: format!("rewind-{}", uuid::Uuid::new_v4()),
        };
        let tell = self.tell.clone();
        let task = tokio::spawn(async move {
            let done = job.run().await;
            tell.tell(Done::Rewind(done));
        });
        self.turn = Some(Turn::new(reply, blocks, Some(task.abort_handle())));
    }

    async fn on_rewind_done(&mut self, p: &mut Parts<'_>, done: Result<RewindDone, AgentError>) {
        if self.turn.as_ref().is_none_or(|t| t.local.is_none()) {
            return; // cancelled meanwhile
        }
        let outcome = match done {
            Ok(RewindDone::Rewound { point, message }) => {
                // This claude holds the whole thread in memory: the next one resumes what is kept.
                p.claude.stop_gracefully().await;
                let warm = point.resume_at.is_some();
                p.claude.rewound(point);
                // Started now so the next prompt finds it warm; after dropping the first prompt
                // the next prompt starts afresh instead (see `Claude::ensure`).
                if warm && let Err(e) = p.ensure_claude() {
                    tracing::info!(session = %p.ctx.id, "claude did not start after a rewind: {e}");
                }
                p.ctx.tell_editor(SessionUpdate::agent_text(message));
                Ok(StopReason::EndTurn)
            }
            Ok(RewindDone::Unchanged(message)) => {
                p.ctx.tell_editor(SessionUpdate::agent_text(message));
                Ok(StopReason::EndTurn)
            }
            Err(e) => Err(e),
        };
        self.finish(p, outcome);
    }
}

/// claude's own words for a refusal ("Server not found: nope"), else what went wrong.
fn claude_s_reason(e: ClaudeError) -> String {
    match e {
        ClaudeError::ControlError(reason) => reason,
        other => other.to_string(),
    }
}
