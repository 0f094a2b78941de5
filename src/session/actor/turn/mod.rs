//! The prompt being answered, and the prompts waiting behind it: a turn starts (the prompt sent
//! to claude, or run by claude-acp itself when it is one of its local commands, `local.rs`), may
//! be cancelled (claude interrupted, pending asks denied, a grace period), and ends with the
//! editor's answer; claude's output for it is translated for the editor here. Prompts that
//! arrive meanwhile, and which of claude's results answer them, are `queue.rs`; the turns
//! claude-acp answers itself `own.rs`.

use std::collections::VecDeque;
use std::time::Duration;

use futures::FutureExt as _;
use serde_json::Value;
use tokio::time::Instant;

use self::ledger::Ledger;
use self::local::LocalCommand;
use super::claude::Claude;
use super::ctx::{Reply, SessionContext, Tell};
use super::rewind::RewindDone;
use super::settings::Settings;
use super::tools::EditorTools;
use crate::claude::wire::ClaudeMessage;
use crate::domain::{
    AgentError, AnswerWritten, IdleBehavior, Inserted, PromptBlock, SessionUpdate, SteerOutcome,
    StopReason, TurnOutcome, TurnState, TurnUsage,
};
use crate::history;
use crate::translate::{TurnSignal, TurnTranslator};

mod commands;
mod cursor;
mod ledger;
mod limit;
mod local;
mod own;
mod queue;
mod title;

/// How long claude may take to end a turn after an interrupt before it is stopped outright.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// The most an answer waits for the one before it to reach the editor's queue (it takes
/// microseconds; this only bounds a lost signal).
pub(super) const ANSWER_ORDER_WAIT: Duration = Duration::from_secs(2);

/// Resolves once the latest answer given is queued to the editor; shared by the next answer
/// and by the session's loop, which holds claude's output until then.
pub(super) type AnswersWritten = futures::future::Shared<futures::future::BoxFuture<'static, ()>>;

/// What the editor asks of the turn.
pub(crate) enum Request {
    /// `session/prompt`: `written` is told when the answer is queued to the editor, `inserted`
    /// the prompt's message id once it is in the conversation.
    Prompt {
        blocks: Vec<PromptBlock>,
        reply: Reply<TurnOutcome>,
        written: Option<AnswerWritten>,
        inserted: Option<Inserted>,
    },
    /// `session/cancel`.
    Cancel,
    /// `_session/steering`: into the running turn, or per `idle` when none runs.
    Steer {
        blocks: Vec<PromptBlock>,
        idle: IdleBehavior,
        reply: Reply<SteerOutcome>,
    },
    /// `session/set_title`: the user names the session.
    SetTitle { title: String, reply: Reply<()> },
}

/// What the turns claude-acp runs itself report back.
pub(super) enum Done {
    /// claude's answer to `get_context_usage`, for a `/context` prompt.
    ContextUsage(Result<Value, String>),
    /// The answer to a `/mcp` prompt.
    Mcp(String),
    /// A `/undo` or `/rewind` has run its course.
    Rewind(Result<RewindDone, AgentError>),
    /// The usage limit's ask was answered, and waited out if so.
    Limit(limit::LimitAnswer),
}

/// The session's other parts, as a turn uses them.
pub(super) struct Parts<'a> {
    pub(super) ctx: &'a mut SessionContext,
    pub(super) claude: &'a mut Claude,
    pub(super) tools: &'a mut EditorTools,
    pub(super) settings: &'a mut Settings,
}

impl Parts<'_> {
    /// Starts claude unless it runs.
    pub(super) fn ensure_claude(&mut self) -> Result<(), AgentError> {
        self.claude.ensure(self.ctx, self.tools, self.settings)
    }
}

/// The prompt being answered.
struct Turn {
    /// Names the prompt among those claude has not answered yet (the ledger's owner).
    serial: u64,
    /// Whether claude's results answer it (a prompt written to claude), rather than claude-acp
    /// itself (`/context`, `/undo`, `/rewind`, `/usage`, `/mcp`).
    by_claude: bool,
    reply: Reply<TurnOutcome>,
    /// Told when the answer is queued to the editor.
    written: Option<AnswerWritten>,
    /// Told the prompt's message id once it is in the conversation (an editor answered then).
    inserted: Option<Inserted>,
    /// The id of its user message: the uuid it was written to claude with, once it was.
    message_id: Option<String>,
    /// Whether it became the session's turn (its start was told, so its end is too).
    started: bool,
    /// The tokens claude says the turn took (its `result`), for the prompt's answer.
    usage: Option<TurnUsage>,
    /// The prompt, to send again if claude had to be restarted before it read it.
    blocks: Vec<PromptBlock>,
    cancelled: bool,
    /// Set when cancelled: past it, the turn ends as cancelled whether or not claude agrees.
    deadline: Option<Instant>,
    /// A turn claude-acp runs itself (`/undo`, `/rewind`, `/mcp`), or one of claude's waiting
    /// out its usage limit (`limit.rs`): its task, ended by a cancel.
    local: Option<tokio::task::AbortHandle>,
}

impl Turn {
    /// A turn claude-acp answers itself; `local`: one it runs as this task.
    fn new(
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

/// A prompt waiting behind the running turn.
struct Waiting {
    turn: Turn,
    /// The claude it was written to (its start, [`Claude::generation`]), or `None`: kept here
    /// until it is its turn.
    written_to: Option<u64>,
}

/// The prompts waiting behind the running turn, and the user messages claude has yet to answer.
#[derive(Default)]
struct PromptQueue {
    waiting: VecDeque<Waiting>,
    /// The user messages written to claude that it has not answered yet.
    ledger: Ledger,
    serials: u64,
}

/// The prompt being answered and those waiting behind it, and claude's output translated.
pub(super) struct Turns {
    turn: Option<Turn>,
    queue: PromptQueue,
    /// The latest answer given, until it is queued to the editor: claude's output waits for it.
    answers_written: Option<AnswersWritten>,
    /// The title the editor is told: once after the first turn, or the user's name.
    title: title::SessionTitle,
    /// claude's output translated for the editor.
    pub(super) translator: TurnTranslator,
    /// The commands the prompt box offers.
    pub(super) commands: commands::OfferedCommands,
    /// Where the running turn ends, for its session cursor.
    cursor: cursor::TurnCursor,
    /// claude's word, during the running turn, that the usage limit is reached.
    limit: limit::UsageLimit,
    tell: Tell<Done>,
}

impl Turns {
    pub(super) fn new(translator: TurnTranslator, tell: Tell<Done>) -> Self {
        Self {
            turn: None,
            queue: PromptQueue::default(),
            answers_written: None,
            title: title::SessionTitle::default(),
            translator,
            commands: commands::OfferedCommands::default(),
            cursor: cursor::TurnCursor::default(),
            limit: limit::UsageLimit::default(),
            tell,
        }
    }

    /// Whether a turn runs.
    pub(super) fn running(&self) -> bool {
        self.turn.is_some()
    }

    /// Whether the running turn is one of claude's that was not cancelled.
    pub(super) fn runs_uncancelled(&self) -> bool {
        self.turn.as_ref().is_some_and(|t| !t.cancelled)
    }

    /// Past it, a cancelled turn ends whether or not claude agrees.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.turn.as_ref().and_then(|t| t.deadline)
    }

    /// The latest answer given while it is not yet queued to the editor.
    pub(super) fn answer_pending(&self) -> Option<AnswersWritten> {
        self.answers_written.clone()
    }

    /// The latest answer reached the editor's queue (or waited long enough).
    pub(super) fn answer_written(&mut self) {
        self.answers_written = None;
    }

    /// The editor's request, handled.
    pub(super) fn on_request(&mut self, p: &mut Parts<'_>, request: Request) {
        match request {
            Request::Prompt {
                blocks,
                reply,
                written,
                inserted,
            } => self.start(p, blocks, reply, written, inserted),
            Request::Cancel => self.cancel(p),
            Request::Steer {
                blocks,
                idle,
                reply,
            } => self.steer(p, blocks, idle, reply),
            Request::SetTitle { title, reply } => {
                self.title.name(p.ctx, p.claude.handle(), title, reply)
            }
        }
    }

    /// A prompt from the editor: it starts now, or waits behind the turn that runs.
    fn start(
        &mut self,
        p: &mut Parts<'_>,
        blocks: Vec<PromptBlock>,
        reply: Reply<TurnOutcome>,
        written: Option<AnswerWritten>,
        inserted: Option<Inserted>,
    ) {
        if self.turn.is_some() {
            self.enqueue(p, blocks, reply, written, inserted);
        } else {
            self.begin(p, blocks, reply, written, inserted);
        }
    }

    /// Starts a prompt as the session's turn (none runs).
    fn begin(
        &mut self,
        p: &mut Parts<'_>,
        blocks: Vec<PromptBlock>,
        reply: Reply<TurnOutcome>,
        written: Option<AnswerWritten>,
        inserted: Option<Inserted>,
    ) {
        let local = LocalCommand::of(&blocks);
        if local.as_ref().is_none_or(LocalCommand::needs_claude)
            && let Err(e) = p.ensure_claude()
        {
            let mut turn = Turn::new(reply, blocks, None);
            turn.written = written;
            self.answer(p, turn, Err(e));
            // What waits behind it goes on (it may not need claude).
            self.next_turn(p);
            return;
        }
        match local {
            Some(local) => self.start_own(p, local, blocks, reply, written, inserted),
            None => {
                let serial = self.queue.new_serial();
                let message_id = self.write_prompt(p, serial, &blocks);
                self.turn_begins(p);
                let mut turn = Turn::new(reply, blocks, None);
                turn.serial = serial;
                turn.by_claude = true;
                turn.message_id = Some(message_id);
                self.turn = Some(turn);
                self.accepted(p.ctx, written, inserted);
            }
        }
    }

    /// The running turn was just made the session's: notes when its answer will have reached
    /// the editor's queue, and tells that it started.
    fn accepted(
        &mut self,
        ctx: &SessionContext,
        written: Option<AnswerWritten>,
        inserted: Option<Inserted>,
    ) {
        if let Some(turn) = self.turn.as_mut() {
            turn.written = written;
            turn.inserted = inserted;
        }
        self.announce_started(ctx);
    }

    /// Tells the editor (and the prompt's sender) that the running turn started, once: its
    /// message is in the conversation, under the id it was written to claude with (a turn
    /// claude-acp answers itself gets one of its own).
    fn announce_started(&mut self, ctx: &SessionContext) {
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
        if ctx.editor.follows_turns() {
            let prompt = turn.blocks.clone();
            let state = TurnState::Started {
                message_id: message_id.clone(),
                prompt,
            };
            ctx.editor.turn_state(&ctx.id, state);
            // The editor holds the prompt's message (v1's does not, live): the cursor before it,
            // where claude's transcript stores the prompt under its id.
            if turn.by_claude && ctx.editor.supports_cursors() {
                let cursor = crate::domain::Cursor::before_prompt(&message_id);
                ctx.tell_editor(SessionUpdate::Cursor(cursor));
            }
        }
    }

    /// The per-turn state a prompt of claude's starts with, when it becomes the session's turn.
    fn turn_begins(&mut self, p: &mut Parts<'_>) {
        p.claude.turn_starts();
        p.tools.edit_log.start_turn();
        self.translator.prompt_starts();
        self.cursor.starts();
        self.limit.turn_starts();
    }

    /// `session/cancel`: the running turn and every prompt waiting behind it end as cancelled.
    fn cancel(&mut self, p: &mut Parts<'_>) {
        let Some(turn) = self.turn.as_mut() else {
            self.cancel_claudes_own_turn(p);
            return;
        };
        // Prompts already in claude's queue are dropped there by the interrupt.
        let queued_in_claude = self.queue.cancel_all();
        if let Some(task) = &turn.local {
            // Whatever it had not done yet stays undone: it asks before it changes anything.
            task.abort();
            self.finish(p, Ok(StopReason::Cancelled));
            return;
        }
        if turn.cancelled {
            // Prompts sent after the first cancel were not dropped by its interrupt.
            if queued_in_claude {
                p.claude.interrupt();
            }
            return;
        }
        turn.cancelled = true;
        turn.deadline = Some(Instant::now() + CANCEL_GRACE);
        p.claude.end_what_it_waits_on(p.tools);
    }

    /// `session/cancel` with no prompt running: a turn claude started on its own (its follow-up
    /// to a background job's end) that waits on the editor (a permission ask, a question, an
    /// editor tool's call) is cancelled as a prompt's turn would be. Without such a wait there
    /// is nothing of the editor's to end, and claude is left alone (an interrupt would reach its
    /// background work).
    fn cancel_claudes_own_turn(&mut self, p: &mut Parts<'_>) {
        if !p.claude.asks_open() && !p.tools.file_calls_waiting() {
            return;
        }
        tracing::debug!(session = %p.ctx.id, "cancel of claude's own turn");
        p.claude.end_what_it_waits_on(p.tools);
    }

    /// A panic left the running turn unfollowed: it is answered with the internal error, even
    /// when it was being cancelled.
    pub(super) fn not_cancelled(&mut self) {
        if let Some(turn) = self.turn.as_mut() {
            turn.cancelled = false;
        }
    }

    /// The running turn is over: the editor gets its answer and the next prompt waiting, if
    /// any, becomes the turn.
    pub(super) fn finish(&mut self, p: &mut Parts<'_>, outcome: Result<StopReason, AgentError>) {
        let Some(turn) = self.turn.take() else { return };
        self.answer(p, turn, outcome);
        self.next_turn(p);
    }

    /// Answers one prompt's `session/prompt`, once: the turn is consumed. Answers go out in the
    /// order given: each waits until the one before it is queued to the editor.
    fn answer(
        &mut self,
        p: &mut Parts<'_>,
        mut turn: Turn,
        outcome: Result<StopReason, AgentError>,
    ) {
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
        if turn.by_claude
            && outcome.is_ok()
            && let Some(cursor) = self.cursor.ended()
            && p.ctx.editor.supports_cursors()
        {
            p.ctx.tell_editor(SessionUpdate::Cursor(cursor));
        }
        announce_end(p.ctx, &mut turn, &outcome);
        if let Some(task) = &turn.local {
            // Ended early (cancelled, claude gone): it changes nothing more.
            task.abort();
            send_after(before, turn.reply, outcome);
            return;
        }
        if outcome.is_ok() {
            // claude stored this turn on from the rewind point: its transcript now says it all.
            p.claude.turn_stored();
        }
        if outcome.is_ok() && self.title.turn_stored(p.ctx) {
            announce_title_then_reply(p.ctx, &turn.blocks, turn.reply, outcome, before);
            return;
        }
        send_after(before, turn.reply, outcome);
    }

    /// claude's output other than a `result`, translated for the editor; returns what it
    /// signals to the session's other parts.
    pub(super) fn on_output(
        &mut self,
        p: &mut Parts<'_>,
        message: ClaudeMessage,
    ) -> Vec<TurnSignal> {
        self.cursor.on_message(&message);
        let by_claude = self.turn.as_ref().is_some_and(|t| t.by_claude);
        self.limit.on_message(&message, by_claude);
        let out = self.translator.on_message(message);
        for update in out.updates {
            self.cursor.on_update(&update);
            let update = p.tools.keep_terminal_shown(update);
            p.ctx.tell_editor(update);
        }
        out.signals
    }

    /// claude is gone: what the translation held open for it ends.
    pub(super) fn claude_ended(&mut self, ctx: &SessionContext) {
        for update in self.translator.claude_ended() {
            ctx.tell_editor(update);
        }
    }
}

/// Tells how a prompt ended: the end of the session's turn, if it was one; else, for a prompt
/// claude ran within another's turn, that its message is in the conversation. A prompt that
/// ended before either (cancelled while it waited, refused) tells nothing.
fn announce_end(ctx: &SessionContext, turn: &mut Turn, outcome: &Result<TurnOutcome, AgentError>) {
    let editor = &ctx.editor;
    if turn.started {
        if editor.follows_turns() {
            let outcome = outcome.clone();
            editor.turn_state(&ctx.id, TurnState::Ended { outcome });
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
        let cursor = crate::domain::Cursor::before_prompt(&message_id);
        editor.turn_state(&ctx.id, TurnState::Joined { message_id, prompt });
        if turn.by_claude && editor.supports_cursors() {
            ctx.tell_editor(SessionUpdate::Cursor(cursor));
        }
    }
}

/// Sends `outcome` once the answer `before` it is queued to the editor (at once without one).
fn send_after(
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

/// The session's title, told to the editor once after its first turn here: what claude stored
/// for the conversation (a name given to it, claude's own summary), else the first prompt's
/// first line. Never a model request of ours. Sent before the first turn's answer, so the editor
/// has the title when the turn ends.
fn announce_title_then_reply(
    ctx: &SessionContext,
    blocks: &[PromptBlock],
    reply: Reply<TurnOutcome>,
    outcome: Result<TurnOutcome, AgentError>,
    before: Option<AnswersWritten>,
) {
    let from_prompt = blocks.iter().find_map(|b| match b {
        PromptBlock::Text(text) => history::prompt_title(text),
        _ => None,
    });
    let (editor, id) = (ctx.editor.clone(), ctx.id.clone());
    let config_dir = ctx.config.claude_config_dir.clone();
    // Reading the transcript is file I/O: off the session's loop.
    tokio::spawn(async move {
        let stored = match config_dir {
            Some(dir) => {
                let id = id.clone();
                tokio::task::spawn_blocking(move || history::stored_title(&dir, &id))
                    .await
                    .ok()
                    .flatten()
            }
            None => None,
        };
        if let Some(title) = stored.or(from_prompt) {
            editor.session_update(
                &id,
                SessionUpdate::SessionInfo {
                    title: Some(title),
                    updated_at: Some(crate::time::now_rfc3339()),
                },
            );
        }
        send_after(before, reply, outcome);
    });
}

/// claude's error text -> the editor's error; "not logged in" is ACP's auth_required, so the
/// editor can offer its login flow.
fn turn_error(message: String) -> AgentError {
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
