//! `/mcp`, `/mcp reconnect|enable|disable NAME` answered without a model turn: claude's control
//! requests (the action, then `mcp_status`) in a task of its own, its Markdown answer coming back
//! to the loop as `Internal`; a cancel aborts the task like a `/rewind`'s.

use std::time::Duration;

use super::turn::Turn;
use super::{CONTROL_TIMEOUT, Internal, Reply, SessionActor};
use crate::claude::ClaudeError;
use crate::claude::wire::{McpServerStatus, OutboundControl};
use crate::domain::{PromptBlock, SessionUpdate, StopReason, TurnOutcome};
use crate::translate::{self, McpCommand};

/// Reconnecting or enabling a server waits for it to connect, which claude gives up to 30 s.
const ACTION_TIMEOUT: Duration = Duration::from_secs(45);

impl SessionActor {
    /// Starts the `/mcp` turn (claude is running).
    pub(super) fn start_mcp_turn(
        &mut self,
        command: McpCommand,
        blocks: Vec<PromptBlock>,
        reply: Reply<TurnOutcome>,
    ) {
        let handle = self.claude.handle().expect("claude is running");
        let internal = self.inbox.tx.clone();
        let task = tokio::spawn(async move {
            let acted = match &command {
                McpCommand::Act(action, name) => Some(
                    handle
                        .request(action.request(name), ACTION_TIMEOUT)
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
            let _ = internal.send(Internal::McpDone(text));
        });
        self.turn = Some(Turn::new(reply, blocks, Some(task.abort_handle())));
    }

    pub(super) fn on_mcp_done(&mut self, text: String) {
        if self.turn.as_ref().is_none_or(|t| t.local.is_none()) {
            return; // cancelled meanwhile
        }
        self.ctx
            .editor
            .session_update(&self.ctx.id, SessionUpdate::agent_text(text));
        self.finish_turn(Ok(StopReason::EndTurn));
    }
}

/// claude's own words for a refusal ("Server not found: nope"), else what went wrong.
fn claude_s_reason(e: ClaudeError) -> String {
    match e {
        ClaudeError::ControlError(reason) => reason,
        other => other.to_string(),
    }
}
