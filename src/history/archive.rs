//! Archived sessions (`session/archive`): claude has no archive of its own, so claude-acp marks one
//! with an empty owner-only file beside its transcript, `<session id>/claude-acp-archived`, which
//! every claude-acp process reads and `session/delete` removes with the session's folder.

use std::path::{Path, PathBuf};

use super::{HistoryError, check_session_id, find, project_slug};

const MARK_NAME: &str = "claude-acp-archived";

/// The mark of the session stored in `transcript`.
fn mark_of(transcript: &Path) -> PathBuf {
    transcript.with_extension("").join(MARK_NAME)
}

/// Archives (or unarchives) `session_id`; `false` when claude stored no conversation under it.
pub(crate) fn set_archived(
    config_dir: &Path,
    session_id: &str,
    archived: bool,
) -> Result<bool, HistoryError> {
    check_session_id(session_id)?;
    let Some((transcript, _)) = find(config_dir, session_id) else {
        return Ok(false);
    };
    let mark = mark_of(&transcript);
    let io = |source| HistoryError::Io {
        path: mark.clone(),
        source,
    };
    match archived {
        true => {
            let dir = mark.parent().expect("the mark is in the session's folder");
            std::fs::create_dir_all(dir).map_err(io)?;
            match crate::platform::files::create_private(&mark) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(io(e)),
                _ => {}
            }
        }
        false => match std::fs::remove_file(&mark) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(e)),
            _ => {}
        },
    }
    Ok(true)
}

/// Whether the session of `cwd` stored under `session_id` is archived (one file's metadata).
pub(crate) fn is_archived(config_dir: &Path, cwd: &Path, session_id: &str) -> bool {
    let transcript = config_dir
        .join("projects")
        .join(project_slug(cwd))
        .join(format!("{session_id}.jsonl"));
    mark_of(&transcript).is_file()
}
