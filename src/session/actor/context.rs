//! `/context` answered without a model turn: claude's `get_context_usage`, shown as an agent
//! message. The request runs in a task; its answer comes back to the loop as `Internal`.

use serde_json::Value;

use super::turn::Turn;
use super::{CONTROL_TIMEOUT, Internal, Reply, SessionActor};
use crate::claude::wire::{ContextUsage, OutboundControl};
use crate::domain::{AgentError, PromptBlock, SessionUpdate, StopReason, TurnOutcome};
use crate::translate;

impl SessionActor {
    /// Starts the `/context` turn (claude is running).
    pub(super) fn start_context_turn(
        &mut self,
        blocks: Vec<PromptBlock>,
        reply: Reply<TurnOutcome>,
    ) {
        let handle = self.claude.handle().expect("claude is running");
        self.turn = Some(Turn::new(reply, blocks, None));
        // `summary`: from the last response's usage and local estimates, no API request at all.
        let request = handle.request(
            OutboundControl::GetContextUsage { detail: "summary" },
            CONTROL_TIMEOUT,
        );
        let internal = self.inbox.tx.clone();
        tokio::spawn(async move {
            let answer = request.await.map_err(|e| e.to_string());
            let _ = internal.send(Internal::ContextUsage(answer));
        });
    }

    pub(super) fn on_context_usage(&mut self, answer: Result<Value, String>) {
        // A `/context` cancelled meanwhile has been answered, and another prompt may run now.
        if self
            .turn
            .as_ref()
            .is_none_or(|t| t.by_claude || t.local.is_some())
        {
            return;
        }
        if self.turn.as_ref().is_some_and(|t| t.cancelled) {
            self.finish_turn(Ok(StopReason::Cancelled));
            return;
        }
        let usage = answer.and_then(|value| {
            ContextUsage::from_reply(value).ok_or_else(|| "an answer of an unknown shape".into())
        });
        match usage {
            Ok(usage) => {
                let text = translate::context_usage_text(&usage);
                self.ctx
                    .editor
                    .session_update(&self.ctx.id, SessionUpdate::agent_text(text));
                self.finish_turn(Ok(StopReason::EndTurn));
            }
            Err(e) => self.finish_turn(Err(AgentError::Internal(format!(
                "claude did not report its context usage: {e}"
            )))),
        }
    }
}
