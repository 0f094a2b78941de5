//! `session/load`: a stored transcript -> the whole thread as session updates, in order.
//!
//! - Only the conversation claude would resume is replayed: the chain of lines from the last message
//!   back through `parentUuid` (across a `/compact` through `logicalParentUuid`), so a branch
//!   abandoned by a rewind is not shown; after `/undo` or `/rewind` and before the next prompt, the
//!   chain ends where the rewind left it (see [`super::rewind`]). Lines without a `uuid` are bookkeeping and never shown.
//! - What the person typed becomes `user_message_chunk` (text and images); a slash command shows as
//!   typed (`/name args`) and its local output as an agent message. claude's injections (`isMeta`,
//!   the post-`/compact` summary, "[Request interrupted by user]") are not shown.
//! - Assistant text, thinking and tool uses, and the tool results, go through the live translator
//!   ([`TurnTranslator`]), so a loaded thread looks like one watched live: same titles, diffs, plans.
//! - A tool call that never got a result (claude was stopped mid-tool) ends as failed rather than
//!   spinning forever in the editor.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashSet;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::HistoryError;
use super::lines::{self, UserLine};
use super::paths::{check_session_id, find, project_dirs_for, transcript_name};
use super::thread::{self, Id, Parents};
use crate::claude::big_line;
use crate::claude::wire::ClaudeMessage;
use crate::domain::{ContentChunk, Cursor, SessionUpdate, ToolCallUpdate, ToolStatus};
use crate::translate::TurnTranslator;

/// The transcript of `session_id` (looked for under `cwd`'s project, then in every project).
pub(crate) fn transcript(
    config_dir: &Path,
    cwd: &Path,
    session_id: &str,
) -> Result<PathBuf, HistoryError> {
    check_session_id(session_id)?;
    let name = transcript_name(session_id);
    project_dirs_for(config_dir, cwd)
        .into_iter()
        .map(|dir| dir.join(&name))
        .find(|file| file.is_file())
        .or_else(|| find(config_dir, session_id).map(|(file, _)| file))
        .ok_or_else(|| HistoryError::NotFound(session_id.to_owned()))
}

/// The stored thread of `session_id`, whole.
#[cfg(test)]
pub(crate) fn replay(
    config_dir: &Path,
    cwd: &Path,
    session_id: &str,
) -> Result<Vec<SessionUpdate>, HistoryError> {
    replay_file(&transcript(config_dir, cwd, session_id)?, cwd)
}

/// The thread stored in one transcript file, whole; tool paths are shown relative to `cwd`.
#[cfg(test)]
pub(crate) fn replay_file(file: &Path, cwd: &Path) -> Result<Vec<SessionUpdate>, HistoryError> {
    let mut updates = Vec::new();
    stream(file, cwd, false, &mut |update| {
        updates.push(update);
        ControlFlow::Continue(())
    })?;
    Ok(updates)
}

/// The thread stored in `file`, each update handed to `send` as soon as it is made (a break stops
/// the replay: nobody is listening); with `cursors`, the session cursors of its points too (before
/// each prompt, after each turn's last agent message), each right after the message it is next to. Two reads of the file: the first keeps only each line's ids
/// (to find the thread claude would resume), the second parses and translates the thread's
/// messages one at a time, so a transcript of any length is never in memory, only its longest
/// line and what `send` holds.
pub(crate) fn stream(
    file: &Path,
    cwd: &Path,
    cursors: bool,
    send: &mut dyn FnMut(SessionUpdate) -> ControlFlow<()>,
) -> Result<(), HistoryError> {
    let io_error = |source| HistoryError::Io {
        path: file.to_path_buf(),
        source,
    };
    let outline = Outline::read(file).map_err(io_error)?;
    let chain = super::rewind::thread_chain(file, outline.leaf(), &outline.parents);
    let mut shown = outline
        .messages
        .iter()
        .filter(|m| match (&chain, m.uuid) {
            (Some(chain), Some(uuid)) => chain.has(uuid),
            (None, _) => true,
            (Some(_), None) => false,
        })
        .map(|m| m.line)
        .collect::<Vec<usize>>()
        .into_iter()
        .peekable();
    // Only the line numbers are kept through the second read.
    drop(chain);
    drop(outline);
    // The outline's ids (a few hundred KiB for a long thread) go back before the second read,
    // whose biggest lines are the load's peak.
    crate::platform::memory::give_back_free();
    let mut thread = Thread::new(cwd, send);
    thread.cursors = cursors.then(TurnCursor::default);
    let line = Cell::new(0usize);
    let wanted = |_: &[u8]| {
        let index = line.get();
        line.set(index + 1);
        while shown.next_if(|&at| at < index).is_some() {}
        shown.next_if_eq(&index).is_some()
    };
    lines::for_each_wanted_buffer(
        file,
        || usize::MAX,
        wanted,
        |line| {
            if let Some(value) = parse_line(line) {
                thread.add(value);
            }
            if thread.stopped {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    )
    .map_err(io_error)?;
    thread.finish();
    Ok(())
}

/// Lines at least this long have their big strings (a tool's output, stored twice) made in place,
/// in the line's own buffer, instead of copied out of it ([`big_line::parse_value`]).
const BIG_LINE_BYTES: usize = 256 * 1024;

/// One line of the thread as JSON, `None` for one that is not a JSON object. A big line is taken
/// from `line`, and its biggest string is that buffer.
fn parse_line(line: &mut Vec<u8>) -> Option<Value> {
    if line.len() >= BIG_LINE_BYTES {
        match big_line::parse_value(std::mem::take(line), big_line::BIG_LITERAL_BYTES) {
            Ok(Ok(value)) => return Some(value),
            Ok(Err(e)) => {
                tracing::debug!("skipping a transcript line that is not JSON: {e}");
                return None;
            }
            // A line the in-place path does not read exactly as the normal one: the normal one.
            Err(untouched) => *line = untouched,
        }
    }
    lines::parse(&crate::utf8::lossy(line))
}

/// The outline's read keeps a line's strings up to this long (escaped): ids, types. Longer ones
/// (a tool's output) are left out as they are read, so no line is ever held whole there.
const LONGEST_ID_FIELD: usize = 1024;

/// What the first read keeps of a transcript: each line's parent and where the messages are.
struct Outline {
    parents: Parents,
    messages: Vec<MessageAt>,
}

/// A `user`, `assistant` or `system` line: its number in the file (counting every line) and id.
struct MessageAt {
    line: usize,
    uuid: Option<Id>,
    sidechain: bool,
}

/// The fields of a line the outline reads; the rest of the line is skipped unparsed.
#[derive(Deserialize)]
struct LineIds<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uuid: Option<Cow<'a, str>>,
    #[serde(rename = "parentUuid", borrow, default)]
    parent: Option<Cow<'a, str>>,
    #[serde(rename = "logicalParentUuid", borrow, default)]
    logical_parent: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain", default)]
    sidechain: Option<bool>,
}

impl Outline {
    fn read(file: &Path) -> std::io::Result<Outline> {
        let mut outline = Outline {
            parents: Parents::default(),
            messages: Vec::new(),
        };
        let mut line = 0usize;
        lines::for_each_line_without_big_strings(file, LONGEST_ID_FIELD, |bytes| {
            let index = line;
            line += 1;
            match serde_json::from_slice::<LineIds>(bytes) {
                Ok(ids) => outline.note(index, ids),
                // Not JSON, not an object, or not UTF-8: the second read parses it as text.
                Err(_) => {
                    if let Ok(ids) = serde_json::from_str::<LineIds>(&crate::utf8::lossy(bytes)) {
                        outline.note(index, ids);
                    }
                }
            }
        })?;
        Ok(outline)
    }

    /// Notes one line.
    fn note(&mut self, line: usize, ids: LineIds) {
        let parent = ids.parent.as_deref().or(ids.logical_parent.as_deref());
        let uuid = ids
            .uuid
            .as_deref()
            .map(|uuid| self.parents.note(uuid, parent));
        if matches!(ids.kind.as_deref(), Some("user" | "assistant" | "system")) {
            self.messages.push(MessageAt {
                line,
                uuid,
                sidechain: ids.sidechain == Some(true),
            });
        }
    }

    /// The last main-thread message with an id.
    fn leaf(&self) -> Option<Id> {
        self.messages
            .iter()
            .rev()
            .filter(|m| !m.sidechain)
            .find_map(|m| m.uuid)
    }
}

/// The thread being rebuilt, each update sent on as it is made.
struct Thread<'a> {
    translator: TurnTranslator,
    send: &'a mut dyn FnMut(SessionUpdate) -> ControlFlow<()>,
    /// The tool calls shown that have no result yet, in the order they were shown (a long
    /// thread shows thousands: only the open ones are kept).
    open: Vec<String>,
    still_open: HashSet<String>,
    /// `send` said nobody is listening.
    stopped: bool,
    /// Where the turn being replayed may be forked, when cursors are told.
    cursors: Option<TurnCursor>,
}

/// The turn being replayed, for its cursor: the line being translated, and the last agent
/// message told with the line that ends it.
#[derive(Default)]
struct TurnCursor {
    line: Option<String>,
    last_message: Option<(String, String)>,
}

impl<'a> Thread<'a> {
    fn new(cwd: &Path, send: &'a mut dyn FnMut(SessionUpdate) -> ControlFlow<()>) -> Self {
        Thread {
            translator: TurnTranslator::new(cwd.to_path_buf()),
            send,
            open: Vec::new(),
            still_open: HashSet::new(),
            stopped: false,
            cursors: None,
        }
    }

    fn push(&mut self, update: SessionUpdate) {
        match &update {
            SessionUpdate::ToolCall(call) if self.still_open.insert(call.id.clone()) => {
                self.open.push(call.id.clone());
            }
            SessionUpdate::ToolCallUpdate(ToolCallUpdate {
                id,
                status: Some(ToolStatus::Completed | ToolStatus::Failed | ToolStatus::Cancelled),
                ..
            }) => {
                if self.still_open.remove(id)
                    && let Some(at) = self.open.iter().rposition(|open| open == id)
                {
                    // Usually the last one shown.
                    self.open.remove(at);
                }
            }
            SessionUpdate::AgentMessageChunk {
                message_id: Some(id),
                ..
            } => {
                if let Some(turn) = self.cursors.as_mut()
                    && let Some(line) = &turn.line
                {
                    turn.last_message = Some((id.clone(), line.clone()));
                }
            }
            _ => {}
        }
        if !self.stopped && (self.send)(update).is_break() {
            self.stopped = true;
        }
    }

    /// One line of the thread, taken whole: its big strings (a tool's output) move into the
    /// updates instead of being copied.
    fn add(&mut self, line: Value) {
        if line.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            return;
        }
        if let Some(turn) = self.cursors.as_mut() {
            turn.line = thread::uuid_of(&line).map(str::to_owned);
        }
        match lines::line_type(&line) {
            "user" => self.add_user(line),
            "assistant" => self.translate(line),
            "system" => self.add_system(&line),
            _ => {}
        }
    }

    fn add_user(&mut self, line: Value) {
        match lines::classify_user(&line) {
            // The prompt's `uuid` is the one it was written to claude with: the live turn's id.
            UserLine::Prompt(chunks) => {
                self.turn_ends();
                self.translator.start_turn();
                let message_id = thread::uuid_of(&line).map(str::to_owned);
                for content in chunks {
                    let message_id = message_id.clone();
                    self.push(SessionUpdate::UserMessageChunk {
                        content,
                        message_id,
                    });
                }
                self.prompt_told(message_id);
            }
            UserLine::Command(typed) => {
                self.turn_ends();
                self.translator.start_turn();
                let message_id = thread::uuid_of(&line).map(str::to_owned);
                self.push(SessionUpdate::UserMessageChunk {
                    content: ContentChunk::text(typed),
                    message_id: message_id.clone(),
                });
                self.prompt_told(message_id);
            }
            UserLine::CommandOutput(output) => self.agent_text(output),
            UserLine::ToolResults => {
                // The transcript names the structured result `toolUseResult`; stdout says
                // `tool_use_result`.
                let mut echo = line;
                if let Some(object) = echo.as_object_mut()
                    && let Some(structured) = object.remove("toolUseResult")
                {
                    object.insert("tool_use_result".into(), structured);
                }
                self.translate(echo);
            }
            UserLine::Skip => {}
        }
    }

    fn add_system(&mut self, line: &Value) {
        if line.get("subtype").and_then(Value::as_str) != Some("local_command") {
            return;
        }
        let content = line.get("content").and_then(Value::as_str).unwrap_or("");
        if let UserLine::CommandOutput(output) = lines::classify_text(content) {
            self.agent_text(output);
        }
    }

    fn agent_text(&mut self, text: String) {
        self.push(SessionUpdate::agent_text(text));
    }

    fn translate(&mut self, line: Value) {
        match ClaudeMessage::from_value(line) {
            Ok(message) => {
                let translation = self.translator.on_message(message);
                for update in translation.updates {
                    self.push(update);
                }
            }
            Err(e) => tracing::debug!("skipping a transcript message of an unexpected shape: {e}"),
        }
    }

    /// A prompt's message was told: the cursor before it follows.
    fn prompt_told(&mut self, message_id: Option<String>) {
        if let (Some(_), Some(id)) = (&self.cursors, message_id) {
            self.push(SessionUpdate::Cursor(Cursor::before_prompt(&id)));
        }
    }

    /// The turn replayed so far is over (a prompt follows, or the thread ends): the cursor after
    /// its last agent message, if it had one.
    fn turn_ends(&mut self) {
        let last = self.cursors.as_mut().and_then(|t| t.last_message.take());
        if let Some((message_id, entry)) = last {
            self.push(SessionUpdate::Cursor(Cursor::after_agent_message(
                &message_id,
                &entry,
            )));
        }
    }

    /// Tool calls that never got a result are marked failed.
    fn finish(mut self) {
        self.turn_ends();
        let open = std::mem::take(&mut self.open);
        for id in open {
            self.push(SessionUpdate::ToolCallUpdate(ToolCallUpdate {
                id,
                status: Some(ToolStatus::Failed),
                ..ToolCallUpdate::default()
            }));
        }
    }
}
