//! The prompt being answered: a turn starts (the prompt sent to claude), may be cancelled (claude
//! interrupted, pending asks denied, a grace period), and ends with the editor's answer.

use std::time::Duration;

use tokio::time::Instant;

use super::asks::AskKind;
use super::rewind::RewindCommand;
use super::{CONTROL_TIMEOUT, Reply, SessionActor, deliver};
use crate::claude::wire::{ElicitationAnswer, OutboundControl, PermissionDecision};
use crate::domain::{
    AgentError, ContentChunk, PromptBlock, SessionUpdate, StopReason, TurnOutcome, TurnUsage,
};
use crate::translate;

/// How long claude may take to end a turn after an interrupt before it is stopped outright.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// The prompt being answered.
pub(super) struct Turn {
    pub(super) reply: Reply<TurnOutcome>,
    /// The tokens claude says the turn took (its `result`), for the prompt's answer.
    pub(super) usage: Option<TurnUsage>,
    /// The prompt, to send again if claude had to be restarted before it read it.
    pub(super) blocks: Vec<PromptBlock>,
    pub(super) cancelled: bool,
    /// Set when cancelled: past it, the turn ends as cancelled whether or not claude agrees.
    pub(super) deadline: Option<Instant>,
    /// A turn claude-acp runs itself (`/undo`, `/rewind`): its task, ended by a cancel.
    pub(super) local: Option<tokio::task::AbortHandle>,
}

impl Turn {
    /// A turn of claude's; `local`: one claude-acp runs itself, as this task.
    pub(super) fn new(
        reply: Reply<TurnOutcome>,
        blocks: Vec<PromptBlock>,
        local: Option<tokio::task::AbortHandle>,
    ) -> Self {
        Self {
            reply,
            usage: None,
            blocks,
            cancelled: false,
            deadline: None,
            local,
        }
    }
}

impl SessionActor {
    pub(super) fn start_turn(&mut self, blocks: Vec<PromptBlock>, reply: Reply<TurnOutcome>) {
        if self.turn.is_some() {
            let _ = reply.send(Err(AgentError::Busy(self.ctx.id.clone())));
            return;
        }
        if let Some(command) = RewindCommand::of(&blocks) {
            self.start_rewind(command, blocks, reply);
            return;
        }
        if translate::is_usage_command(&blocks) {
            // From what claude already said: no claude needed, no model request.
            let text = self.translator.usage_report();
            self.turn = Some(Turn::new(reply, blocks, None));
            self.ctx.editor.session_update(
                &self.ctx.id,
                SessionUpdate::AgentMessageChunk {
                    content: ContentChunk::text(text),
                },
            );
            self.finish_turn(Ok(StopReason::EndTurn));
            return;
        }
        if let Err(e) = self.ensure_claude() {
            let _ = reply.send(Err(e));
            return;
        }
        if translate::is_context_command(&blocks) {
            self.start_context_turn(blocks, reply);
            return;
        }
        if let Some(command) = translate::mcp_command(&blocks) {
            self.start_mcp_turn(command, blocks, reply);
            return;
        }
        let message = translate::user_message(&self.ctx.id, &blocks);
        self.path.turn_started();
        self.tools.edit_log.start_turn();
        let handle = self.claude.handle().expect("claude is running");
        self.translator.start_turn();
        self.turn = Some(Turn::new(reply, blocks, None));
        self.next.conversation_stored = true;
        let internal_session = self.ctx.id.clone();
        let sent = handle.send(message);
        tokio::spawn(async move {
            if let Err(e) = sent.await {
                // The exit event that follows ends the turn with claude's status and stderr.
                tracing::warn!(session = %internal_session, "prompt not delivered to claude: {e}");
            }
        });
    }

    pub(super) fn cancel(&mut self) {
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        if let Some(task) = &turn.local {
            // Whatever it had not done yet stays undone: it asks before it changes anything.
            task.abort();
            self.finish_turn(Ok(StopReason::Cancelled));
            return;
        }
        if turn.cancelled {
            return;
        }
        turn.cancelled = true;
        turn.deadline = Some(Instant::now() + CANCEL_GRACE);
        self.cancel_file_calls();
        // Pending asks end now: the editor's request is withdrawn and claude gets a deny.
        let handle = self.claude.handle();
        for (request_id, kind) in self.asks.withdraw_all() {
            let Some(h) = &handle else { continue };
            match kind {
                AskKind::Permission => {
                    let decision = PermissionDecision::Deny {
                        message: "The user cancelled the turn.".into(),
                        interrupt: true,
                    };
                    deliver(h.answer_permission(&request_id, decision));
                }
                AskKind::Elicitation => {
                    deliver(h.respond_success(&request_id, ElicitationAnswer::Cancel.to_value()))
                }
            }
        }
        if let Some(h) = handle {
            let interrupt = h.request(OutboundControl::Interrupt, CONTROL_TIMEOUT);
            tokio::spawn(async move {
                if let Err(e) = interrupt.await {
                    tracing::warn!("interrupt not acknowledged: {e}");
                }
            });
        }
    }

    pub(super) fn finish_turn(&mut self, outcome: Result<StopReason, AgentError>) {
        let Some(turn) = self.turn.take() else { return };
        let outcome = if turn.cancelled {
            Ok(StopReason::Cancelled)
        } else {
            outcome
        };
        let rate_limits = self.translator.rate_limits();
        let outcome = outcome.map(|stop_reason| TurnOutcome {
            stop_reason,
            usage: turn.usage,
            rate_limits,
        });
        self.restart_if_due();
        if let Some(task) = &turn.local {
            // Ended early (cancelled, claude gone): it changes nothing more.
            task.abort();
            let _ = turn.reply.send(outcome);
            return;
        }
        if outcome.is_ok() {
            // claude stored this turn on from the rewind point: its transcript now says it all.
            self.next.rewind = None;
        }
        if outcome.is_ok() && !self.title_announced {
            self.title_announced = true;
            self.announce_title_then_reply(&turn.blocks, turn.reply, outcome);
            return;
        }
        let _ = turn.reply.send(outcome);
    }
}

/// claude's error text -> the editor's error; "not logged in" is ACP's auth_required, so the
/// editor can offer its login flow.
pub(super) fn turn_error(message: String) -> AgentError {
    let lower = message.to_lowercase();
    if lower.contains("not logged in")
        || lower.contains("/login")
        || lower.contains("invalid api key")
    {
        AgentError::AuthRequired(format!(
            "{message} (log in with `claude-acp login`, or set ANTHROPIC_API_KEY)"
        ))
    } else {
        AgentError::Internal(message)
    }
}
