//! Taking a stored conversation back to an earlier prompt (`/undo`, `/rewind`): which prompts the
//! thread holds, and claude-acp's record of where a rewind left the thread.
//!
//! claude itself stores nothing when it is started with `--resume-session-at`: until the next
//! prompt writes a new branch, its transcript still ends in the abandoned turns. So claude-acp keeps
//! one small record beside the transcript, `<session id>/claude-acp-rewind.json` (removed with the
//! session by `session/delete`): the prompt dropped and the last entry kept. It applies while the
//! thread claude would resume still holds the dropped prompt; once a new prompt has branched off,
//! the transcript says it all and the record is ignored.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::HistoryError;
use super::lines::{self, UserLine};
use super::paths::{check_session_id, find};
use super::thread::{Chain, Id, Parents, last_leaf, on_chain, read_messages, uuid_of};

const RECORD_NAME: &str = "claude-acp-rewind.json";

/// Where a rewind left the thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RewindPoint {
    /// The prompt the thread went back to before: it and all that followed are gone.
    pub(crate) dropped_prompt: String,
    /// The last transcript entry kept (claude's `--resume-session-at`); `None` when the first
    /// prompt was dropped and nothing is kept.
    pub(crate) resume_at: Option<String>,
}

/// A prompt of the stored thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StoredPrompt {
    /// Its `uuid` in the transcript: what `rewind_files` takes.
    pub(crate) uuid: String,
    /// The entry before it, where the thread ends once it is dropped (`None` for the first).
    pub(crate) parent: Option<String>,
    /// What the person typed (text only), as shown in a list of prompts.
    pub(crate) text: String,
    /// When claude stored it (its `timestamp`, RFC 3339 in UTC with milliseconds): the editor
    /// writes claude-acp made after it belong to its turn or a later one.
    pub(crate) timestamp: Option<String>,
}

pub(super) fn transcript_of(config_dir: &Path, session_id: &str) -> Result<PathBuf, HistoryError> {
    check_session_id(session_id)?;
    find(config_dir, session_id)
        .map(|(file, _)| file)
        .ok_or_else(|| HistoryError::NotFound(session_id.to_owned()))
}

fn record_path(transcript: &Path) -> PathBuf {
    transcript.with_extension("").join(RECORD_NAME)
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> HistoryError + '_ {
    move |source| HistoryError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The prompts of the thread claude would resume, oldest first (after a rewind, only those kept).
pub(crate) fn prompts(
    config_dir: &Path,
    session_id: &str,
) -> Result<Vec<StoredPrompt>, HistoryError> {
    let file = transcript_of(config_dir, session_id)?;
    let (messages, parents) = read_messages(&file).map_err(io_error(&file))?;
    let leaf = last_leaf(&messages).and_then(|uuid| parents.find(uuid));
    let chain = thread_chain(&file, leaf, &parents);
    let prompts = messages
        .iter()
        .filter(|m| lines::line_type(m) == "user" && on_chain(m, &chain))
        .filter_map(|line| {
            let text = match lines::classify_user(line) {
                UserLine::Prompt(chunks) => lines::prompt_text(&chunks),
                UserLine::Command(typed) => typed,
                _ => return None,
            };
            Some(StoredPrompt {
                uuid: uuid_of(line)?.to_owned(),
                parent: line
                    .get("parentUuid")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                text,
                timestamp: line
                    .get("timestamp")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            })
        })
        .collect();
    Ok(prompts)
}

/// Records that the thread of `session_id` now ends at `point` (written whole, then renamed).
pub(crate) fn record_rewind(
    config_dir: &Path,
    session_id: &str,
    point: &RewindPoint,
) -> Result<(), HistoryError> {
    let file = transcript_of(config_dir, session_id)?;
    let path = record_path(&file);
    let dir = path
        .parent()
        .expect("the record is in the session's folder");
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let partial = path.with_extension("json.partial");
    let text = serde_json::to_string(point).expect("a rewind point serializes");
    std::fs::write(&partial, text).map_err(io_error(&partial))?;
    std::fs::rename(&partial, &path).map_err(io_error(&path))
}

/// Moves the transcript of `session_id` to `<id>.jsonl.rewound` (replacing an older one), for a
/// session rewound to before its first prompt: claude starts afresh only where nothing is stored.
pub(crate) fn set_aside(config_dir: &Path, session_id: &str) -> Result<(), HistoryError> {
    let file = match transcript_of(config_dir, session_id) {
        Ok(file) => file,
        Err(HistoryError::NotFound(_)) => return Ok(()),
        Err(e) => return Err(e),
    };
    let aside = file.with_extension("jsonl.rewound");
    std::fs::rename(&file, &aside).map_err(io_error(&file))
}

/// The rewind still in force for `session_id`: its record, while the thread claude would resume
/// from the transcript alone still holds the dropped prompt.
pub(crate) fn pending_rewind(config_dir: &Path, session_id: &str) -> Option<RewindPoint> {
    let file = transcript_of(config_dir, session_id).ok()?;
    let point = load_record(&file)?;
    let (messages, parents) = read_messages(&file).ok()?;
    applies(&point, &messages, &parents).then_some(point)
}

fn load_record(transcript: &Path) -> Option<RewindPoint> {
    let path = record_path(transcript);
    let text = std::fs::read_to_string(&path).ok()?;
    match serde_json::from_str(&text) {
        Ok(point) => Some(point),
        Err(e) => {
            tracing::info!(
                "ignoring the unreadable rewind record {}: {e}",
                path.display()
            );
            None
        }
    }
}

fn applies(point: &RewindPoint, messages: &[Value], parents: &Parents) -> bool {
    parents
        .chain_to_last(messages)
        .is_some_and(|chain| chain.contains(&point.dropped_prompt))
}

/// The ids of the thread to show and resume: the chain to the last message, or, while a rewind
/// applies, the chain to where it left the thread. `None`: no message has a uuid (keep them all).
pub(super) fn thread_chain<'a>(
    file: &Path,
    leaf: Option<Id>,
    parents: &'a Parents,
) -> Option<Chain<'a>> {
    let last = parents.chain_from(Some(leaf?));
    match load_record(file) {
        Some(point) if last.contains(&point.dropped_prompt) => {
            Some(parents.chain_from(point.resume_at.as_deref().and_then(|at| parents.find(at))))
        }
        _ => Some(last),
    }
}
