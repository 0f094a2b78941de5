//! Prompts that arrive while a turn runs. Each is written to claude at once as its own user
//! message (claude runs it after the current one, or folds it in), unless it has to wait here:
//! behind a turn claude-acp runs itself, or being one (`/undo`, `/context`, `/mcp`, ...). Each is
//! answered once, in the order they came, when a `result` answers it (`ledger.rs` says which);
//! the session's turn is always the oldest one not answered.

use std::collections::VecDeque;

use super::ledger::Sent;
use super::limit::LimitAnswer;
use super::local::LocalCommand;
use super::{Parts, PromptQueue, Reply, Turn, Turns, Waiting, turn_error};
use crate::claude::wire::{Priority, ResultMessage};
use crate::domain::{
    AgentError, AnswerWritten, IdleBehavior, Inserted, PromptBlock, SteerOutcome, StopReason,
    TurnOutcome,
};
use crate::permissions::fallback::{self, BreakSymptom};
use crate::translate;

/// The most prompts that may wait behind the running turn of one session.
const MAX_WAITING: usize = 16;

impl PromptQueue {
    pub(super) fn new_serial(&mut self) -> u64 {
        self.serials += 1;
        self.serials
    }

    /// Marks every waiting prompt cancelled; returns whether one not cancelled before was
    /// already written to claude (so claude must drop it too).
    pub(super) fn cancel_all(&mut self) -> bool {
        let mut in_claude = false;
        for waiting in &mut self.waiting {
            in_claude |= !waiting.turn.cancelled && waiting.written_to.is_some();
            waiting.turn.cancelled = true;
        }
        in_claude
    }

    fn len(&self) -> usize {
        self.waiting.len()
    }
}

impl Turns {
    /// A prompt while a turn runs: written to claude now when claude runs that turn, else kept
    /// until its turn comes.
    pub(super) fn enqueue(
        &mut self,
        p: &mut Parts<'_>,
        blocks: Vec<PromptBlock>,
        reply: Reply<TurnOutcome>,
        written: Option<AnswerWritten>,
        inserted: Option<Inserted>,
    ) {
        if self.queue.len() >= MAX_WAITING {
            // Refused at once: it is no prompt of the session's, so it waits on no answer.
            let _ = reply.send(Err(AgentError::QueueFull {
                session: p.ctx.id.clone(),
                limit: MAX_WAITING,
            }));
            return;
        }
        let mut turn = Turn::new(reply, blocks, None);
        turn.written = written;
        turn.inserted = inserted;
        turn.serial = self.queue.new_serial();
        // A turn waiting out the usage limit has nothing in claude: what comes behind it waits.
        let claude_runs_it = self
            .turn
            .as_ref()
            .is_some_and(|t| t.by_claude && t.local.is_none())
            && self.queue.waiting.iter().all(|w| w.written_to.is_some())
            && LocalCommand::of(&turn.blocks).is_none()
            && p.claude.is_running();
        let mut written_to = None;
        if claude_runs_it {
            turn.message_id = Some(self.write_prompt(p, turn.serial, &turn.blocks));
            turn.by_claude = true;
            written_to = Some(p.claude.generation());
        }
        self.queue.waiting.push_back(Waiting { turn, written_to });
    }

    /// `_session/steering`: into the turn claude runs now (at once, or once the ask the editor
    /// shows is answered, so that it stays asked); with none, per `idle`.
    pub(super) fn steer(
        &mut self,
        p: &mut Parts<'_>,
        blocks: Vec<PromptBlock>,
        idle: IdleBehavior,
        reply: Reply<SteerOutcome>,
    ) {
        let running = self
            .turn
            .as_ref()
            .filter(|t| t.by_claude && t.local.is_none() && !t.cancelled && p.claude.is_running())
            .map(|t| t.serial);
        if let Some(serial) = running {
            let priority = if p.claude.asks_open() {
                Priority::Later
            } else {
                Priority::Now
            };
            self.write_message(p, serial, &blocks, Sent::Steer, Some(priority));
            let _ = reply.send(Ok(SteerOutcome::Injected));
            return;
        }
        if idle == IdleBehavior::PromptRequired {
            let _ = reply.send(Ok(SteerOutcome::PromptRequired));
            return;
        }
        // A prompt of its own, which no `session/prompt` waits for. (With a turn of claude-acp's
        // own running, or one being cancelled, it waits behind it like any prompt.)
        let (answer, mut answered) = tokio::sync::oneshot::channel();
        self.start(p, blocks, answer, None, None);
        let _ = reply.send(match answered.try_recv() {
            // Refused at once: claude could not start, or too many wait.
            Ok(Err(e)) => Err(e),
            _ => Ok(SteerOutcome::StartedNewTurn),
        });
    }

    /// Writes a prompt's user message to claude (which is running), noted for its answer;
    /// returns the message's uuid.
    pub(in crate::session::actor) fn write_prompt(
        &mut self,
        p: &Parts<'_>,
        serial: u64,
        blocks: &[PromptBlock],
    ) -> String {
        self.write_message(p, serial, blocks, Sent::Prompt, None)
    }

    /// Writes one user message to claude for prompt `serial`, named by a fresh uuid (returned).
    fn write_message(
        &mut self,
        p: &Parts<'_>,
        serial: u64,
        blocks: &[PromptBlock],
        sent: Sent,
        priority: Option<Priority>,
    ) -> String {
        let uuid = uuid::Uuid::new_v4().to_string();
        let message = translate::user_message(&p.ctx.id, blocks).addressed(uuid.clone(), priority);
        self.queue.ledger.wrote(serial, uuid.clone(), sent);
        let Some(handle) = p.claude.handle() else {
            return uuid;
        };
        let session = p.ctx.id.clone();
        let sent = handle.send(message);
        tokio::spawn(async move {
            if let Err(e) = sent.await {
                // The exit event that follows ends the turn with claude's status and stderr.
                tracing::info!(session = %session, "prompt not delivered to claude: {e}");
            }
        });
        uuid
    }

    /// After the running turn was answered: the prompts cancelled meanwhile are answered so, and
    /// the next one becomes the turn (it already runs in claude, or starts now).
    pub(in crate::session::actor) fn next_turn(&mut self, p: &mut Parts<'_>) {
        while self.turn.is_none() {
            let Some(next) = self.queue.waiting.pop_front() else {
                // Nothing runs: a restart a setting asked for can happen now.
                p.claude.restart_if_due(p.ctx, false, p.tools);
                return;
            };
            let Waiting { turn, written_to } = next;
            if turn.cancelled {
                self.answer(p, turn, Ok(StopReason::Cancelled));
                continue;
            }
            let in_this_claude = p.claude.is_running() && written_to == Some(p.claude.generation());
            if in_this_claude {
                self.turn_begins(p);
                self.turn = Some(turn);
                self.announce_started(p.ctx);
            } else {
                // Kept here, or written to a claude that is gone: it starts now.
                self.queue.ledger.forget(turn.serial);
                self.begin(p, turn.blocks, turn.reply, turn.written, turn.inserted);
            }
        }
    }

    /// claude is gone (or the session ends): the running turn and every prompt written to claude
    /// get `outcome`; with `all`, the prompts kept here too, else they go on with a new claude.
    pub(in crate::session::actor) fn end_turns(
        &mut self,
        p: &mut Parts<'_>,
        outcome: Result<StopReason, AgentError>,
        all: bool,
    ) {
        if let Some(turn) = self.turn.take() {
            self.answer(p, turn, outcome.clone());
        }
        let mut kept = VecDeque::new();
        while let Some(waiting) = self.queue.waiting.pop_front() {
            if all || waiting.written_to.is_some() {
                self.answer(p, waiting.turn, outcome.clone());
            } else {
                kept.push_back(waiting);
            }
        }
        self.queue.waiting = kept;
        self.queue.ledger.clear();
        if !all {
            self.next_turn(p);
        }
    }

    /// A `result` of claude's: the prompts it answers are answered with it (the running turn
    /// among them, and those behind it that claude ran as one turn with it).
    pub(in crate::session::actor) fn on_result(
        &mut self,
        p: &mut Parts<'_>,
        result: &ResultMessage,
    ) {
        if let Some(state) = result.fast_mode_state.as_deref() {
            let reason = result.fast_mode_disabled_reason.as_deref();
            p.settings.fast_mode_reported(p.ctx, state, reason);
        }
        if self
            .turn
            .as_ref()
            .is_some_and(|t| LocalCommand::is_model_command(&t.blocks))
        {
            // The user changed the model in the prompt: the picker follows claude.
            p.settings.read_claude_settings(p.claude.handle());
        }
        let end = self.translator.on_result(result);
        for update in end.updates {
            p.ctx.tell_editor(update);
        }
        // A result no prompt of ours waits on (a background task's follow-up, or one
        // during `/undo`) ends no turn.
        let named = result.user_message_uuids.as_deref();
        if !self.queue.ledger.result(named, result.autonomous()) {
            tracing::debug!(session = %p.ctx.id, "a result outside any turn was dropped");
            return;
        }
        if self.turn.as_ref().is_some_and(|t| t.by_claude)
            && let Some(symptom) = p.claude.take_break()
        {
            self.switch_to_mcp_and_retry(p, symptom);
            return;
        }
        let outcome = end.outcome.map_err(|message| match end.sign_in_needed {
            true => {
                AgentError::AuthRequired(format!("{message} (sign in with `claude-acp login`)"))
            }
            false => turn_error(message),
        });
        if let Err(error) = &outcome
            && self.waits_out_the_limit(p, result, error)
        {
            return;
        }
        // The turn, and the prompts behind it this same result answered (claude ran
        // them as one turn), each answered with it. A cancelled turn ends at its first
        // result: what it still waited on (a steer) was dropped with the interrupt.
        while let Some(turn) = self.turn.as_mut()
            && turn.by_claude
            && (turn.cancelled || !self.queue.ledger.waits_on(turn.serial))
        {
            turn.usage = end.usage;
            self.finish(p, outcome.clone());
        }
    }

    /// The permission path broke: claude is restarted on the MCP path (the path already says
    /// MCP), and the turn kept: retried once the old claude is gone.
    pub(in crate::session::actor) fn switch_to_mcp_and_retry(
        &mut self,
        p: &mut Parts<'_>,
        symptom: BreakSymptom,
    ) {
        if let Some(symptom) = p.claude.switch_to_mcp(p.ctx, symptom) {
            self.retry_on_mcp(p, symptom);
        }
    }

    /// The old claude is gone: starts the new one and sends the retry, unless the turn ended or
    /// was cancelled meanwhile. claude is asked to retry the denied call, which now reaches the
    /// editor.
    pub(in crate::session::actor) fn retry_on_mcp(
        &mut self,
        p: &mut Parts<'_>,
        symptom: BreakSymptom,
    ) {
        match &self.turn {
            None => return,
            Some(turn) if turn.cancelled => {
                self.finish(p, Ok(StopReason::Cancelled));
                return;
            }
            Some(_) => {}
        }
        if let Err(e) = p.ensure_claude() {
            self.finish(p, Err(e));
            return;
        }
        let Some((serial, prompt)) = self.turn.as_ref().map(|t| (t.serial, t.blocks.clone()))
        else {
            return;
        };
        if !p.claude.is_running() {
            self.finish(
                p,
                Err(AgentError::Internal(
                    "claude is not running after the switch".into(),
                )),
            );
            return;
        }
        let blocks = fallback::retry_prompt(&symptom, &prompt);
        self.translator.start_turn();
        // What the old claude was given went with it; prompts waiting behind this one are
        // written to the new claude when their turn comes.
        self.queue.ledger.clear();
        // A retry of the message already announced, which keeps its id.
        self.write_prompt(p, serial, &blocks);
    }

    /// The running turn ended on claude's usage limit: it stays open while the user is asked
    /// whether to wait for the reset (`limit.rs`). Not for a turn with prompts behind it (claude
    /// may run them meanwhile), nor a cancelled one. Returns whether it stays open.
    fn waits_out_the_limit(
        &mut self,
        p: &Parts<'_>,
        result: &ResultMessage,
        error: &AgentError,
    ) -> bool {
        let Some(turn) = self.turn.as_mut() else {
            return false;
        };
        if !turn.by_claude
            || turn.cancelled
            || turn.local.is_some()
            || !self.queue.waiting.is_empty()
            || self.queue.ledger.waits_on(turn.serial)
        {
            return false;
        }
        turn.local = self.limit.offer_wait(p.ctx, &self.tell, result, error);
        turn.local.is_some()
    }

    /// The usage limit's ask reported: the prompt goes to claude again (the limit has reset),
    /// or the turn ends as claude ended it.
    pub(in crate::session::actor) fn on_limit_answer(
        &mut self,
        p: &mut Parts<'_>,
        answer: LimitAnswer,
    ) {
        let Some(turn) = self
            .turn
            .as_mut()
            .filter(|t| t.by_claude && t.local.is_some())
        else {
            return; // cancelled meanwhile
        };
        turn.local = None;
        let (serial, blocks) = (turn.serial, turn.blocks.clone());
        match answer {
            LimitAnswer::Stop(error) => self.finish(p, Err(error)),
            LimitAnswer::Resend => {
                if let Err(e) = p.ensure_claude() {
                    self.finish(p, Err(e));
                    return;
                }
                self.translator.prompt_starts();
                // The message already announced, sent again: it keeps its id.
                self.write_prompt(p, serial, &blocks);
            }
        }
    }
}
