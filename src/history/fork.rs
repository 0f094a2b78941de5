//! Where a fork at a session cursor starts (`session/fork` with a `cursorId`): the cursor's point
//! found on the thread claude would resume, as the entry claude's `--resume-session-at` keeps the
//! thread up to. A point that is not on that thread (a cursor of another session, of turns a
//! rewind dropped, or made up) is no fork at all.

use std::path::Path;

use super::HistoryError;
use super::rewind::{prompts, thread_chain, transcript_of};
use super::thread::{last_leaf, on_chain, read_messages, uuid_of};
use crate::domain::ForkPoint;

/// What a fork at a cursor holds of its source's thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ForkStart {
    /// Nothing: the cursor is before the first prompt.
    Empty,
    /// The thread up to this entry, it included.
    At(String),
}

/// Where a fork of `session_id` at `point` starts; `None` when the point is not on its thread.
pub(crate) fn fork_start(
    config_dir: &Path,
    session_id: &str,
    point: &ForkPoint,
) -> Result<Option<ForkStart>, HistoryError> {
    match point {
        ForkPoint::BeforePrompt(uuid) => Ok(prompts(config_dir, session_id)?
            .into_iter()
            .find(|prompt| prompt.uuid == *uuid)
            .map(|prompt| prompt.parent.map_or(ForkStart::Empty, ForkStart::At))),
        ForkPoint::AfterEntry(uuid) => {
            let file = transcript_of(config_dir, session_id)?;
            let (messages, parents) = read_messages(&file).map_err(|source| HistoryError::Io {
                path: file.clone(),
                source,
            })?;
            let leaf = last_leaf(&messages).and_then(|leaf| parents.find(leaf));
            let chain = thread_chain(&file, leaf, &parents);
            let on_thread = messages
                .iter()
                .any(|m| uuid_of(m) == Some(uuid.as_str()) && on_chain(m, &chain));
            Ok(on_thread.then(|| ForkStart::At(uuid.clone())))
        }
    }
}
