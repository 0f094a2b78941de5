//! Prompts that arrive while a turn runs. Each is written to claude at once as its own user
//! message (claude runs it after the current one, or folds it in), unless it has to wait here:
//! behind a turn claude-acp runs itself, or being one (`/undo`, `/context`, `/mcp`, ...). Each is
//! answered once, in the order they came, when a `result` answers it (`answers.rs` says which);
//! the session's turn is always the oldest one not answered.

use std::collections::VecDeque;

use super::answers::{Ledger, Sent};
use super::turn::Turn;
use super::{Reply, SessionActor};
use crate::claude::wire::Priority;
use crate::domain::{
    AgentError, AnswerWritten, IdleBehavior, Inserted, PromptBlock, SteerOutcome, StopReason,
    TurnOutcome,
};
use crate::translate;

/// The most prompts that may wait behind the running turn of one session.
pub(super) const MAX_WAITING: usize = 16;

/// A prompt waiting behind the running turn.
struct Waiting {
    turn: Turn,
    /// The claude it was written to (its start, [`super::running::RunningClaude::generation`]),
    /// or `None`: kept here until it is its turn.
    written_to: Option<u64>,
}

#[derive(Default)]
pub(super) struct PromptQueue {
    waiting: VecDeque<Waiting>,
    /// The user messages written to claude that it has not answered yet.
    pub(super) ledger: Ledger,
    serials: u64,
}

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

    pub(super) fn len(&self) -> usize {
        self.waiting.len()
    }
}

impl SessionActor {
    /// A prompt while a turn runs: written to claude now when claude runs that turn, else kept
    /// until its turn comes.
    pub(super) fn enqueue(
        &mut self,
        blocks: Vec<PromptBlock>,
        reply: Reply<TurnOutcome>,
        written: Option<AnswerWritten>,
        inserted: Option<Inserted>,
    ) {
        if self.queue.len() >= MAX_WAITING {
            // Refused at once: it is no prompt of the session's, so it waits on no answer.
            let _ = reply.send(Err(AgentError::QueueFull {
                session: self.ctx.id.clone(),
                limit: MAX_WAITING,
            }));
            return;
        }
        let mut turn = Turn::new(reply, blocks, None);
        turn.written = written;
        turn.inserted = inserted;
        turn.serial = self.queue.new_serial();
        let claude_runs_it = self.turn.as_ref().is_some_and(|t| t.by_claude)
            && self.queue.waiting.iter().all(|w| w.written_to.is_some())
            && !is_local_command(&turn.blocks)
            && self.claude.is_running();
        let written_to = claude_runs_it.then(|| {
            turn.message_id = Some(self.write_prompt(turn.serial, &turn.blocks));
            turn.by_claude = true;
            self.claude.generation()
        });
        self.queue.waiting.push_back(Waiting { turn, written_to });
    }

    /// `_session/steering`: into the turn claude runs now (at once, or once the ask the editor
    /// shows is answered, so that it stays asked); with none, per `idle`.
    pub(super) fn steer(
        &mut self,
        blocks: Vec<PromptBlock>,
        idle: IdleBehavior,
        reply: Reply<SteerOutcome>,
    ) {
        let running = self
            .turn
            .as_ref()
            .filter(|t| t.by_claude && !t.cancelled && self.claude.is_running())
            .map(|t| t.serial);
        if let Some(serial) = running {
            let priority = if self.asks.any_open() {
                Priority::Later
            } else {
                Priority::Now
            };
            self.write_message(serial, &blocks, Sent::Steer, Some(priority));
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
        self.start_turn(blocks, answer, None, None);
        let _ = reply.send(match answered.try_recv() {
            // Refused at once: claude could not start, or too many wait.
            Ok(Err(e)) => Err(e),
            _ => Ok(SteerOutcome::StartedNewTurn),
        });
    }

    /// Writes a prompt's user message to claude (which is running), noted for its answer;
    /// returns the message's uuid.
    pub(super) fn write_prompt(&mut self, serial: u64, blocks: &[PromptBlock]) -> String {
        self.write_message(serial, blocks, Sent::Prompt, None)
    }

    /// Writes one user message to claude for prompt `serial`, named by a fresh uuid (returned).
    pub(super) fn write_message(
        &mut self,
        serial: u64,
        blocks: &[PromptBlock],
        sent: Sent,
        priority: Option<Priority>,
    ) -> String {
        let uuid = uuid::Uuid::new_v4().to_string();
        let message =
            translate::user_message(&self.ctx.id, blocks).addressed(uuid.clone(), priority);
        self.queue.ledger.wrote(serial, uuid.clone(), sent);
        let Some(handle) = self.claude.handle() else {
            return uuid;
        };
        let session = self.ctx.id.clone();
        let sent = handle.send(message);
        tokio::spawn(async move {
            if let Err(e) = sent.await {
                // The exit event that follows ends the turn with claude's status and stderr.
                tracing::warn!(session = %session, "prompt not delivered to claude: {e}");
            }
        });
        uuid
    }

    /// After the running turn was answered: the prompts cancelled meanwhile are answered so, and
    /// the next one becomes the turn (it already runs in claude, or starts now).
    pub(super) fn next_turn(&mut self) {
        while self.turn.is_none() {
            let Some(next) = self.queue.waiting.pop_front() else {
                // Nothing runs: a restart a setting asked for can happen now.
                self.restart_if_due();
                return;
            };
            let Waiting { turn, written_to } = next;
            if turn.cancelled {
                self.answer(turn, Ok(StopReason::Cancelled));
                continue;
            }
            let in_this_claude =
                self.claude.is_running() && written_to == Some(self.claude.generation());
            if in_this_claude {
                self.turn_begins();
                self.turn = Some(turn);
                self.announce_started();
            } else {
                // Kept here, or written to a claude that is gone: it starts now.
                self.queue.ledger.forget(turn.serial);
                self.begin(turn.blocks, turn.reply, turn.written, turn.inserted);
            }
        }
    }

    /// claude is gone (or the session ends): the running turn and every prompt written to claude
    /// get `outcome`; with `all`, the prompts kept here too, else they go on with a new claude.
    pub(super) fn end_turns(&mut self, outcome: Result<StopReason, AgentError>, all: bool) {
        if let Some(turn) = self.turn.take() {
            self.answer(turn, outcome.clone());
        }
        let mut kept = VecDeque::new();
        while let Some(waiting) = self.queue.waiting.pop_front() {
            if all || waiting.written_to.is_some() {
                self.answer(waiting.turn, outcome.clone());
            } else {
                kept.push_back(waiting);
            }
        }
        self.queue.waiting = kept;
        self.queue.ledger.clear();
        if !all {
            self.next_turn();
        }
    }
}

/// A prompt claude-acp answers itself, which cannot go into claude's queue.
fn is_local_command(blocks: &[PromptBlock]) -> bool {
    super::rewind::RewindCommand::of(blocks).is_some()
        || translate::is_usage_command(blocks)
        || translate::is_context_command(blocks)
        || translate::mcp_command(blocks).is_some()
}
