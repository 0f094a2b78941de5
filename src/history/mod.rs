//! claude's stored conversations: where they are, which ones exist, and what they said.
//!
//! claude keeps every session as one JSON-lines transcript,
//! `<config dir>/projects/<cwd slug>/<session id>.jsonl`, where the config dir is
//! `$CLAUDE_CONFIG_DIR` or `~/.claude` (see [`paths`] for the slug rule). This module reads them for
//! `session/list` ([`list`]), `session/load` ([`replay`]), `session/delete` ([`delete()`]) and locating a session by id alone
//! ([`find`]). Everything here is blocking file I/O: call it from `spawn_blocking`.
//!
//! Transcript lines seen with the pinned CLI (`fixtures/history/`): `user` (prompts, tool results,
//! slash-command wrappers, `isMeta` injections, the `isCompactSummary` after `/compact`), `assistant`
//! (one content block per line), `system` (`local_command` output, `compact_boundary`), `attachment`,
//! and bookkeeping lines (`queue-operation`, `last-prompt`, `api-request*`, `cost-state`,
//! `custom-title`, `ai-title`, ...). Unknown types are ignored; a line that is not JSON (a transcript
//! cut off mid-write) is skipped.

mod archive;
mod delete;
mod editor_edits;
mod fork;
mod lines;
mod list;
mod paths;
mod prompt_keys;
mod replay;
mod rewind;
mod thread;
mod title;

#[cfg(test)]
mod tests;

use std::path::PathBuf;

pub(crate) use archive::{is_archived, set_archived};
pub(crate) use delete::delete;
pub(crate) use editor_edits::{
    Before, EditorEdit, EditorEdits, MAX_FILE_BYTES, editor_edits_path, load_editor_edits,
    save_editor_edits,
};
pub(crate) use fork::{ForkStart, fork_start};
#[cfg(test)]
pub(crate) use list::list;
pub(crate) use list::{Listings, is_listed, prompt_title, stored_title};
pub use paths::project_slug;
pub(crate) use paths::{Stored, check_session_id, find, set_aside_no_conversation, stored};
pub(crate) use prompt_keys::{PromptKey, load_prompt_keys, prompt_keys_path, save_prompt_keys};
#[cfg(test)]
pub(crate) use replay::replay;
pub(crate) use replay::{stream as stream_replay, transcript};
pub(crate) use rewind::{
    RewindPoint, StoredPrompt, pending_rewind, prompts, record_rewind, set_aside,
};
pub(crate) use title::write_title;
#[cfg(test)]
pub(crate) use {editor_edits::MAX_KEPT_BYTES, replay::replay_file};

/// Why stored history could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HistoryError {
    #[error("no stored claude session {0}")]
    NotFound(String),
    /// An id that is not a plain file name (it could name a file outside the projects folder).
    #[error("{0:?} is not a claude session id")]
    InvalidSessionId(String),
    #[error("session id {0:?} must not start with '-': claude would read it as an option")]
    OptionLikeSessionId(String),
    #[error("the session/list cursor {0:?} was not issued by this agent")]
    InvalidCursor(String),
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}
