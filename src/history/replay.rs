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

use std::path::Path;

use serde_json::Value;

use super::HistoryError;
use super::lines::{self, UserLine};
use super::paths::{check_session_id, find, project_dirs_for, transcript_name};
use super::thread::{on_chain, read_messages};
use crate::claude::wire::ClaudeMessage;
use crate::domain::{ContentChunk, SessionUpdate, ToolCallUpdate, ToolStatus};
use crate::translate::TurnTranslator;

/// The stored thread of `session_id` (looked for under `cwd`'s project, then in every project).
pub(crate) fn replay(
    config_dir: &Path,
    cwd: &Path,
    session_id: &str,
) -> Result<Vec<SessionUpdate>, HistoryError> {
    check_session_id(session_id)?;
    let name = transcript_name(session_id);
    let file = project_dirs_for(config_dir, cwd)
        .into_iter()
        .map(|dir| dir.join(&name))
        .find(|file| file.is_file())
        .or_else(|| find(config_dir, session_id).map(|(file, _)| file))
        .ok_or_else(|| HistoryError::NotFound(session_id.to_owned()))?;
    replay_file(&file, cwd)
}

/// The thread stored in one transcript file; tool paths are shown relative to `cwd`.
pub(crate) fn replay_file(file: &Path, cwd: &Path) -> Result<Vec<SessionUpdate>, HistoryError> {
    let io_error = |source| HistoryError::Io {
        path: file.to_path_buf(),
        source,
    };
    let (messages, parents) = read_messages(file).map_err(io_error)?;
    let chain = super::rewind::thread_chain(file, &messages, &parents);
    let mut thread = Thread::new(cwd);
    for message in messages.iter().filter(|m| on_chain(m, &chain)) {
        thread.add(message);
    }
    Ok(thread.finish())
}

/// The thread being rebuilt.
struct Thread {
    translator: TurnTranslator,
    updates: Vec<SessionUpdate>,
}

impl Thread {
    fn new(cwd: &Path) -> Self {
        Thread {
            translator: TurnTranslator::new(cwd.to_path_buf()),
            updates: Vec::new(),
        }
    }

    fn add(&mut self, line: &Value) {
        if line.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            return;
        }
        match lines::line_type(line) {
            "user" => self.add_user(line),
            "assistant" => self.translate(line.clone()),
            "system" => self.add_system(line),
            _ => {}
        }
    }

    fn add_user(&mut self, line: &Value) {
        match lines::classify_user(line) {
            UserLine::Prompt(chunks) => {
                self.translator.start_turn();
                for content in chunks {
                    self.updates
                        .push(SessionUpdate::UserMessageChunk { content });
                }
            }
            UserLine::Command(typed) => {
                self.translator.start_turn();
                self.updates.push(SessionUpdate::UserMessageChunk {
                    content: ContentChunk::text(typed),
                });
            }
            UserLine::CommandOutput(output) => self.agent_text(output),
            UserLine::ToolResults => {
                // The transcript names the structured result `toolUseResult`; stdout says
                // `tool_use_result`.
                let mut echo = line.clone();
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
        self.updates.push(SessionUpdate::AgentMessageChunk {
            content: ContentChunk::text(text),
        });
    }

    fn translate(&mut self, line: Value) {
        match ClaudeMessage::from_value(line) {
            Ok(message) => {
                let translation = self.translator.on_message(message);
                self.updates.extend(translation.updates);
            }
            Err(e) => tracing::debug!("skipping a transcript message of an unexpected shape: {e}"),
        }
    }

    /// The updates, with tool calls that never got a result marked failed.
    fn finish(mut self) -> Vec<SessionUpdate> {
        let mut open: Vec<String> = Vec::new();
        for update in &self.updates {
            match update {
                SessionUpdate::ToolCall(call) if !open.contains(&call.id) => {
                    open.push(call.id.clone())
                }
                SessionUpdate::ToolCallUpdate(ToolCallUpdate {
                    id,
                    status: Some(ToolStatus::Completed | ToolStatus::Failed),
                    ..
                }) => open.retain(|open_id| open_id != id),
                _ => {}
            }
        }
        for id in open {
            self.updates
                .push(SessionUpdate::ToolCallUpdate(ToolCallUpdate {
                    id,
                    status: Some(ToolStatus::Failed),
                    ..ToolCallUpdate::default()
                }));
        }
        self.updates
    }
}
