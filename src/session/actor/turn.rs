//! The prompt being answered: a turn starts (the prompt sent to claude), may be cancelled (claude
//! interrupted, pending asks denied, a grace period), and ends with the editor's answer. Prompts
//! that arrive meanwhile wait behind it (`queue.rs`).

use std::time::Duration;

use tokio::time::Instant;

use futures::FutureExt as _;

use super::asks::AskKind;
use super::rewind::RewindCommand;
use super::{CONTROL_TIMEOUT, Reply, SessionActor, deliver};
use crate::claude::wire::{ElicitationAnswer, OutboundControl, PermissionDecision};
use crate::domain::{
    AgentError, AnswerWritten, Inserted, PromptBlock, SessionUpdate, StopReason, TurnOutcome,
    TurnState, TurnUsage,
};
use crate::translate;

/// How long claude may take to end a turn after an interrupt before it is stopped outright.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// The prompt being answered.
pub(super) struct Turn {
    /// Names the prompt among those claude has not answered yet (the ledger's owner).
    pub(super) serial: u64,
    /// Whether claude's results answer it (a prompt written to claude), rather than claude-acp
    /// itself (`/context`, `/undo`, `/rewind`, `/usage`, `/mcp`).
    pub(super) by_claude: bool,
    pub(super) reply: Reply<TurnOutcome>,
    /// Told when the answer is queued to the editor.
    pub(super) written: Option<AnswerWritten>,
    /// Told the prompt's message id once it is in the conversation (an editor answered then).
    pub(super) inserted: Option<Inserted>,
    /// The id of its user message: the uuid it was written to claude with, once it was.
    pub(super) message_id: Option<String>,
    /// Whether it became the session's turn (its start was told, so its end is too).
    pub(super) started: bool,
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
    /// A turn claude-acp answers itself; `local`: one it runs as this task.
    pub(super) fn new(
        reply: Reply<TurnOutcome>,
        blocks: Vec<PromptBlock>,
        local: Option<tokio::task::AbortHandle>,
    ) -> Self {
        Self {
            serial: 0,
            by_claude: false,
            reply,
            written: None,
            inserted: None,
            message_id: None,
            started: false,
            usage: None,
            blocks,
            cancelled: false,
            deadline: None,
            local,
        }
    }
}

impl SessionActor {
    /// A prompt from the editor: it starts now, or waits behind the turn that runs.
    pub(super) fn start_turn(
        &mut self,
        blocks: Vec<PromptBlock>,
        reply: Reply<TurnOutcome>,
        written: Option<AnswerWritten>,
        inserted: Option<Inserted>,
    ) {
        if self.turn.is_some() {
            self.enqueue(blocks, reply, written, inserted);
        } else {
            self.begin(blocks, reply, written, inserted);
        }
    }

    /// Starts a prompt as the session's turn (none runs).
    pub(super) fn begin(
        &mut self,
        blocks: Vec<PromptBlock>,
        reply: Reply<TurnOutcome>,
        written: Option<AnswerWritten>,
        inserted: Option<Inserted>,
    ) {
        if let Some(command) = RewindCommand::of(&blocks) {
            self.start_rewind(command, blocks, reply);
            self.turn_accepted(written, inserted);
            return;
        }
        if translate::is_usage_command(&blocks) {
            // From what claude already said: no claude needed, no model request.
            let text = self.translator.usage_report();
            self.turn = Some(Turn::new(reply, blocks, None));
            self.turn_accepted(written, inserted);
            self.ctx
                .editor
                .session_update(&self.ctx.id, SessionUpdate::agent_text(text));
            self.finish_turn(Ok(StopReason::EndTurn));
            return;
        }
        if let Err(e) = self.ensure_claude() {
            let mut turn = Turn::new(reply, blocks, None);
            turn.written = written;
            self.answer(turn, Err(e));
            // What waits behind it goes on (it may not need claude).
            self.next_turn();
            return;
        }
        if translate::is_context_command(&blocks) {
            self.start_context_turn(blocks, reply);
            self.turn_accepted(written, inserted);
            return;
        }
        if let Some(command) = translate::mcp_command(&blocks) {
            self.start_mcp_turn(command, blocks, reply);
            self.turn_accepted(written, inserted);
            return;
        }
        let serial = self.queue.new_serial();
        let message_id = self.write_prompt(serial, &blocks);
        self.turn_begins();
        let mut turn = Turn::new(reply, blocks, None);
        turn.serial = serial;
        turn.by_claude = true;
        turn.message_id = Some(message_id);
        self.turn = Some(turn);
        self.turn_accepted(written, inserted);
    }

    /// The running turn was just made the session's: notes when its answer will have reached
    /// the editor's queue, and tells that it started.
    fn turn_accepted(&mut self, written: Option<AnswerWritten>, inserted: Option<Inserted>) {
        if let Some(turn) = self.turn.as_mut() {
            turn.written = written;
            turn.inserted = inserted;
        }
        self.announce_started();
    }

    /// Tells the editor (and the prompt's sender) that the running turn started, once: its
    /// message is in the conversation, under the id it was written to claude with (a turn
    /// claude-acp answers itself gets one of its own).
    pub(super) fn announce_started(&mut self) {
        let Some(turn) = self.turn.as_mut().filter(|t| !t.started) else {
            return;
        };
        turn.started = true;
        let message_id = turn
            .message_id
            .get_or_insert_with(|| uuid::Uuid::new_v4().to_string())
            .clone();
        if let Some(inserted) = turn.inserted.take() {
            let _ = inserted.send(message_id.clone());
        }
        if self.ctx.editor.follows_turns() {
            let prompt = turn.blocks.clone();
            let state = TurnState::Started { message_id, prompt };
            self.ctx.editor.turn_state(&self.ctx.id, state);
        }
    }

    /// The per-turn state a prompt of claude's starts with, when it becomes the session's turn.
    pub(super) fn turn_begins(&mut self) {
        self.path.turn_started();
        self.tools.edit_log.start_turn();
        self.translator.prompt_starts();
        self.next.conversation_stored = true;
    }

    /// `session/cancel`: the running turn and every prompt waiting behind it end as cancelled.
    pub(super) fn cancel(&mut self) {
        let Some(turn) = self.turn.as_mut() else {
            self.cancel_claudes_own_turn();
            return;
        };
        // Prompts already in claude's queue are dropped there by the interrupt.
        let queued_in_claude = self.queue.cancel_all();
        if let Some(task) = &turn.local {
            // Whatever it had not done yet stays undone: it asks before it changes anything.
            task.abort();
            self.finish_turn(Ok(StopReason::Cancelled));
            return;
        }
        let handle = self.claude.handle();
        if turn.cancelled {
            // Prompts sent after the first cancel were not dropped by its interrupt.
            if queued_in_claude && let Some(h) = &handle {
                interrupt(h);
            }
            return;
        }
        turn.cancelled = true;
        turn.deadline = Some(Instant::now() + CANCEL_GRACE);
        self.end_what_claude_waits_on();
    }

    /// `session/cancel` with no prompt running: a turn claude started on its own (its follow-up
    /// to a background job's end) that waits on the editor (a permission ask, a question, an
    /// editor tool's call) is cancelled as a prompt's turn would be. Without such a wait there
    /// is nothing of the editor's to end, and claude is left alone (an interrupt would reach its
    /// background work).
    fn cancel_claudes_own_turn(&mut self) {
        if !self.asks.any_open() && !self.file_calls_waiting() {
            return;
        }
        tracing::debug!(session = %self.ctx.id, "cancel of claude's own turn");
        self.end_what_claude_waits_on();
    }

    /// Pending asks and editor tool calls end now (the editor's requests withdrawn, claude told
    /// the user cancelled), and claude is interrupted.
    fn end_what_claude_waits_on(&mut self) {
        let handle = self.claude.handle();
        self.cancel_file_calls();
        for (request_id, kind) in self.asks.withdraw_all() {
            let Some(h) = &handle else { continue };
            match kind {
                AskKind::Permission => {
                    let decision = PermissionDecision::Deny {
                        message: "The user cancelled the turn.".into(),
                        interrupt: true,
                    };
                    let by = Some(crate::claude::wire::DecisionClassification::UserReject);
                    deliver(h.answer_permission(&request_id, decision, by));
                }
                AskKind::Elicitation => {
                    deliver(h.respond_success(&request_id, ElicitationAnswer::Cancel.to_value()))
                }
            }
        }
        if let Some(h) = handle {
            interrupt(&h);
        }
    }

    /// The running turn is over: the editor gets its answer and the next prompt waiting, if
    /// any, becomes the turn.
    pub(super) fn finish_turn(&mut self, outcome: Result<StopReason, AgentError>) {
        let Some(turn) = self.turn.take() else { return };
        self.answer(turn, outcome);
        self.next_turn();
    }

    /// Answers one prompt's `session/prompt`, once: the turn is consumed. Answers go out in the
    /// order given: each waits until the one before it is queued to the editor.
    pub(super) fn answer(&mut self, mut turn: Turn, outcome: Result<StopReason, AgentError>) {
        self.queue.ledger.forget(turn.serial);
        let before = self.answers_written.clone();
        if let Some(written) = turn.written.take() {
            self.answers_written = Some(written.map(|_| ()).boxed().shared());
        }
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
        self.announce_end(&mut turn, &outcome);
        if let Some(task) = &turn.local {
            // Ended early (cancelled, claude gone): it changes nothing more.
            task.abort();
            send_after(before, turn.reply, outcome);
            return;
        }
        if outcome.is_ok() {
            // claude stored this turn on from the rewind point: its transcript now says it all.
            self.next.rewind = None;
        }
        if outcome.is_ok() && !self.title_announced {
            self.title_announced = true;
            self.announce_title_then_reply(&turn.blocks, turn.reply, outcome, before);
            return;
        }
        send_after(before, turn.reply, outcome);
    }
}

impl SessionActor {
    /// Tells how a prompt ended: the end of the session's turn, if it was one; else, for a
    /// prompt claude ran within another's turn, that its message is in the conversation. A
    /// prompt that ended before either (cancelled while it waited, refused) tells nothing.
    fn announce_end(&self, turn: &mut Turn, outcome: &Result<TurnOutcome, AgentError>) {
        let editor = &self.ctx.editor;
        if turn.started {
            if editor.follows_turns() {
                let outcome = outcome.clone();
                editor.turn_state(&self.ctx.id, TurnState::Ended { outcome });
            }
            return;
        }
        let ran = matches!(outcome, Ok(o) if o.stop_reason != StopReason::Cancelled);
        let (Some(message_id), true) = (turn.message_id.clone(), ran) else {
            return;
        };
        if let Some(inserted) = turn.inserted.take() {
            let _ = inserted.send(message_id.clone());
        }
        if editor.follows_turns() {
            let prompt = turn.blocks.clone();
            editor.turn_state(&self.ctx.id, TurnState::Joined { message_id, prompt });
        }
    }
}

/// The most an answer waits for the one before it to reach the editor's queue (it takes
/// microseconds; this only bounds a lost signal).
pub(super) const ANSWER_ORDER_WAIT: Duration = Duration::from_secs(2);

/// Sends `outcome` once the answer `before` it is queued to the editor (at once without one).
pub(super) fn send_after(
    before: Option<AnswersWritten>,
    reply: Reply<TurnOutcome>,
    outcome: Result<TurnOutcome, AgentError>,
) {
    match before {
        None => {
            let _ = reply.send(outcome);
        }
        Some(before) => {
            tokio::spawn(async move {
                let _ = tokio::time::timeout(ANSWER_ORDER_WAIT, before).await;
                let _ = reply.send(outcome);
            });
        }
    }
}

/// Resolves once the latest answer given is queued to the editor; shared by the next answer
/// and by the session's loop, which holds claude's output until then.
pub(super) type AnswersWritten = futures::future::Shared<futures::future::BoxFuture<'static, ()>>;

/// Interrupts claude's turn and drops the prompts waiting in its queue, in a task.
fn interrupt(handle: &crate::claude::ClaudeHandle) {
    let interrupt = handle.request(
        OutboundControl::InterruptAll {
            cancel_queued: true,
        },
        CONTROL_TIMEOUT,
    );
    tokio::spawn(async move {
        if let Err(e) = interrupt.await {
            tracing::warn!("interrupt not acknowledged: {e}");
        }
    });
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
