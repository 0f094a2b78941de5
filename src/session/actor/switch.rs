//! The actor's side of a switch to the MCP permission path (the why and the what-to-say live in
//! `permissions/fallback/`): claude restarted with the conversation intact, and the turn kept.

use super::idle::STOP_GRACE;
use super::{Internal, SessionActor};
use crate::domain::{AgentError, SessionUpdate, StopReason};
use crate::permissions::fallback::{self, BreakSymptom};

impl SessionActor {
    /// Restarts claude on the MCP path (the path already says MCP), says so in the thread, and
    /// keeps the turn: claude is asked to retry the denied call, which now reaches the editor.
    pub(super) fn switch_to_mcp_and_retry(&mut self, symptom: BreakSymptom) {
        self.ctx.editor.session_update(
            &self.ctx.id,
            SessionUpdate::agent_text(fallback::switch_notice(&symptom)),
        );
        match self.claude.ended() {
            // Stopped politely, in a task: with its stdin closed claude writes out the rest of its
            // transcript before it exits, and the new claude resumes all of it. Killed at once,
            // it could lose the turn's last lines, or the whole conversation if it had stored none.
            Some(mut old) => {
                let internal = self.inbox.tx.clone();
                tokio::spawn(async move {
                    old.shutdown(STOP_GRACE).await;
                    let _ = internal.send(Internal::SwitchReady(symptom));
                });
            }
            None => self.retry_on_mcp(symptom),
        }
    }

    /// The old claude is gone: starts the new one and sends the retry, unless the turn ended or
    /// was cancelled meanwhile.
    pub(super) fn retry_on_mcp(&mut self, symptom: BreakSymptom) {
        match &self.turn {
            None => return,
            Some(turn) if turn.cancelled => {
                self.finish_turn(Ok(StopReason::Cancelled));
                return;
            }
            Some(_) => {}
        }
        if let Err(e) = self.ensure_claude() {
            self.finish_turn(Err(e));
            return;
        }
        let Some((serial, prompt)) = self.turn.as_ref().map(|t| (t.serial, t.blocks.clone()))
        else {
            return;
        };
        if !self.claude.is_running() {
            self.finish_turn(Err(AgentError::Internal(
                "claude is not running after the switch".into(),
            )));
            return;
        }
        let blocks = fallback::retry_prompt(&symptom, &prompt);
        self.translator.start_turn();
        // What the old claude was given went with it; prompts waiting behind this one are
        // written to the new claude when their turn comes.
        self.queue.ledger.clear();
        // A retry of the message already announced, which keeps its id.
        self.write_prompt(serial, &blocks);
    }
}
