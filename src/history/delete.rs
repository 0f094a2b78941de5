//! `session/delete`: removes claude's stored conversation of one session, and nothing else.
//!
//! What goes: `<project folder>/<id>.jsonl` (the transcript) and `<project folder>/<id>/` (the
//! subagent transcripts and tool results claude keeps beside it), in whichever project folder holds
//! the id. Nothing outside the project folders is touched: the id is checked to be a plain file
//! name first, so it cannot name a path elsewhere.

use std::fs;
use std::path::Path;

use super::HistoryError;
use super::paths::{all_project_dirs, check_session_id, transcript_name};

/// Removes the stored conversation `session_id`. `Ok(false)` when claude stored nothing under it.
pub(crate) fn delete(config_dir: &Path, session_id: &str) -> Result<bool, HistoryError> {
    check_session_id(session_id)?;
    let name = transcript_name(session_id);
    let mut removed = false;
    for project in all_project_dirs(config_dir) {
        let transcript = project.join(&name);
        if transcript.is_file() {
            fs::remove_file(&transcript).map_err(|source| HistoryError::Io {
                path: transcript.clone(),
                source,
            })?;
            removed = true;
        }
        let beside = project.join(session_id);
        // A symlink here is not claude's: never follow it out of the project folder.
        let is_real_dir = fs::symlink_metadata(&beside).is_ok_and(|m| m.file_type().is_dir());
        if is_real_dir {
            fs::remove_dir_all(&beside).map_err(|source| HistoryError::Io {
                path: beside.clone(),
                source,
            })?;
            removed = true;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_the_transcript_and_its_folder_and_nothing_else() {
        let config = tempfile::tempdir().unwrap();
        let project = config.path().join("projects/-work");
        fs::create_dir_all(project.join("abc/subagents")).unwrap();
        fs::write(project.join("abc.jsonl"), "{}\n").unwrap();
        fs::write(project.join("abc/subagents/agent-1.jsonl"), "{}\n").unwrap();
        fs::write(project.join("other.jsonl"), "{}\n").unwrap();
        fs::write(config.path().join("abc.jsonl"), "{}\n").unwrap();

        assert!(delete(config.path(), "abc").unwrap());
        assert!(!project.join("abc.jsonl").exists());
        assert!(!project.join("abc").exists());
        assert!(project.join("other.jsonl").exists());
        assert!(config.path().join("abc.jsonl").exists());
        assert!(
            !delete(config.path(), "abc").unwrap(),
            "nothing left to delete"
        );
    }

    #[test]
    fn an_id_that_is_a_path_is_refused() {
        let config = tempfile::tempdir().unwrap();
        fs::create_dir_all(config.path().join("projects/-work")).unwrap();
        for id in ["../x", "a/b", "", ".."] {
            assert!(matches!(
                delete(config.path(), id),
                Err(HistoryError::InvalidSessionId(_))
            ));
        }
    }
}
