//! claude-acp's record of the files it wrote through the editor (the editor-served Write and Edit
//! of the "Review in editor" mode), so `/undo` and `/rewind` can put them back: claude's own file
//! checkpoints never saw those writes.
//!
//! For each turn, the record keeps each file's text as it was before claude-acp's first write to it
//! in that turn (or that it did not exist), with the time of that write. A turn's writes come after
//! claude stored its prompt, and before the next prompt was sent, so the writes to undo when going
//! back to before a prompt are those at or after that prompt's `timestamp` in claude's transcript;
//! for each file the earliest one holds the text to put back.
//!
//! It lives beside claude's transcript, `<session id>/claude-acp-editor-edits.json` (owner-only,
//! removed with the session's folder by `session/delete`), so it survives a restart of claude or of
//! claude-acp. It is bounded: a file's text over [`MAX_FILE_BYTES`] is not kept (that file cannot
//! be put back, and the confirm says so), and past [`MAX_KEPT_BYTES`] of kept text in all the oldest
//! entries are forgotten (the confirm then says earlier editor edits may be missing). A record that
//! cannot be read is ignored with a warning and replaced by the next write.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::HistoryError;
use super::rewind::transcript_of;

const RECORD_NAME: &str = "claude-acp-editor-edits.json";

/// A file's text larger than this is not kept: that file cannot be put back.
pub(crate) const MAX_FILE_BYTES: usize = 2 * 1024 * 1024;
/// The kept texts of one session together stay under this; the oldest entries go first.
pub(crate) const MAX_KEPT_BYTES: usize = 8 * 1024 * 1024;

/// The record of one session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct EditorEdits {
    pub(crate) edits: Vec<EditorEdit>,
    /// The time of the newest entry forgotten to stay within [`MAX_KEPT_BYTES`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) forgotten_until: Option<String>,
}

/// A file's first write through the editor in one turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct EditorEdit {
    /// When the turn's prompt was sent: the writes of one turn share it.
    pub(crate) turn: String,
    /// When claude-acp wrote the file (RFC 3339, UTC, milliseconds, as claude's `timestamp`).
    pub(crate) at: String,
    pub(crate) path: PathBuf,
    pub(crate) before: Before,
}

/// What a file held before the write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Before {
    Text {
        text: String,
    },
    /// It did not exist.
    Missing,
    /// Its text was over [`MAX_FILE_BYTES`] and was not kept.
    TooLarge {
        bytes: u64,
    },
}

impl Before {
    fn kept_bytes(&self) -> usize {
        match self {
            Before::Text { text } => text.len(),
            Before::Missing | Before::TooLarge { .. } => 0,
        }
    }
}

impl EditorEdits {
    /// Notes that `path`, holding `before` (`None`: it did not exist), is written at `at` in the
    /// turn `turn`. Only a file's first write in a turn is kept; false when this one is not new.
    pub(crate) fn note(&mut self, turn: &str, at: &str, path: &Path, before: Option<&str>) -> bool {
        if self.edits.iter().any(|e| e.turn == turn && e.path == path) {
            return false;
        }
        let before = match before {
            None => Before::Missing,
            Some(text) if text.len() > MAX_FILE_BYTES => Before::TooLarge {
                bytes: text.len() as u64,
            },
            Some(text) => Before::Text {
                text: text.to_owned(),
            },
        };
        self.edits.push(EditorEdit {
            turn: turn.to_owned(),
            at: at.to_owned(),
            path: path.to_path_buf(),
            before,
        });
        let mut kept: usize = self.edits.iter().map(|e| e.before.kept_bytes()).sum();
        while kept > MAX_KEPT_BYTES && !self.edits.is_empty() {
            let oldest = self.edits.remove(0);
            kept -= oldest.before.kept_bytes();
            self.forgotten_until = Some(oldest.at);
        }
        true
    }

    /// What going back to before a prompt stored at `from` puts back: for each file written at or
    /// after it, its earliest entry, in the order the files were first written.
    pub(crate) fn since(&self, from: &str) -> Vec<EditorEdit> {
        let mut found: Vec<EditorEdit> = Vec::new();
        for edit in self.edits.iter().filter(|e| e.at.as_str() >= from) {
            if !found.iter().any(|f| f.path == edit.path) {
                found.push(edit.clone());
            }
        }
        found
    }

    /// Whether entries at or after `from` were forgotten to stay within bounds.
    pub(crate) fn forgot_since(&self, from: &str) -> bool {
        self.forgotten_until
            .as_deref()
            .is_some_and(|until| until >= from)
    }

    /// Drops the entries at or after `from`: their files were put back.
    pub(crate) fn forget_since(&mut self, from: &str) {
        self.edits.retain(|e| e.at.as_str() < from);
    }
}

/// Where the record of `session_id` lives: the folder beside its transcript.
pub(crate) fn editor_edits_path(
    config_dir: &Path,
    session_id: &str,
) -> Result<PathBuf, HistoryError> {
    Ok(transcript_of(config_dir, session_id)?
        .with_extension("")
        .join(RECORD_NAME))
}

/// The record at `path`: empty when there is none, or (with a warning) when it cannot be read.
pub(crate) fn load_editor_edits(path: &Path) -> EditorEdits {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return EditorEdits::default(),
        Err(e) => {
            tracing::info!(
                "ignoring the unreadable editor edits record {}: {e}",
                path.display()
            );
            return EditorEdits::default();
        }
    };
    serde_json::from_str(&text).unwrap_or_else(|e| {
        tracing::info!(
            "ignoring the broken editor edits record {}: {e}",
            path.display()
        );
        EditorEdits::default()
    })
}

/// Writes the record at `path` whole (owner-only, replacing the old one at once).
pub(crate) fn save_editor_edits(path: &Path, edits: &EditorEdits) -> Result<(), HistoryError> {
    let io = |source| HistoryError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let text = serde_json::to_vec(edits).expect("the record serializes");
    crate::platform::files::replace_private(path, &text).map_err(io)
}
