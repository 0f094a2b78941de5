//! The keys ACP v2 prompts were sent with (`idempotencyKey`), kept with the session so that a
//! prompt sent again after claude-acp restarted is still known: the file
//! `<session id>/claude-acp-prompt-keys.json` beside claude's transcript (owner-only, removed with
//! the session's folder by `session/delete`), each key with the id of the message its prompt
//! became, oldest first. A file that cannot be read is ignored with a warning and replaced by the
//! next write.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::paths::{cwd_variants, project_slug, projects_dir};
use super::{HistoryError, check_session_id, find};

const FILE_NAME: &str = "claude-acp-prompt-keys.json";

/// One prompt's key and the id of its message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PromptKey {
    pub(crate) key: String,
    pub(crate) message_id: String,
}

#[derive(Serialize, Deserialize)]
struct Kept {
    keys: Vec<PromptKey>,
}

/// Where the keys of `session_id` are kept: beside its transcript, or, before claude stored the
/// conversation, where claude will store it for `cwd` (the folder of the cwd with symlinks
/// resolved, as claude records it).
pub(crate) fn prompt_keys_path(
    config_dir: &Path,
    cwd: &Path,
    session_id: &str,
) -> Result<PathBuf, HistoryError> {
    check_session_id(session_id)?;
    let folder = match find(config_dir, session_id) {
        Some((transcript, _)) => transcript.with_extension(""),
        None => {
            let cwd = cwd_variants(cwd).pop().unwrap_or_else(|| cwd.to_path_buf());
            projects_dir(config_dir)
                .join(project_slug(&cwd))
                .join(session_id)
        }
    };
    Ok(folder.join(FILE_NAME))
}

/// The keys kept for `session_id`, oldest first: none when claude stored no conversation under
/// it or nothing was kept, or (with a warning) when the file cannot be read.
pub(crate) fn load_prompt_keys(config_dir: &Path, session_id: &str) -> Vec<PromptKey> {
    let Some((transcript, _)) = find(config_dir, session_id) else {
        return Vec::new();
    };
    let path = transcript.with_extension("").join(FILE_NAME);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            tracing::warn!(
                "ignoring the unreadable prompt keys {}: {e}",
                path.display()
            );
            return Vec::new();
        }
    };
    match serde_json::from_str::<Kept>(&text) {
        Ok(kept) => kept.keys,
        Err(e) => {
            tracing::warn!("ignoring the broken prompt keys {}: {e}", path.display());
            Vec::new()
        }
    }
}

/// Replaces the keys kept at `path` with `keys`.
pub(crate) fn save_prompt_keys(path: &Path, keys: Vec<PromptKey>) -> Result<(), HistoryError> {
    let io = |source| HistoryError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let text = serde_json::to_vec(&Kept { keys }).expect("the keys serialize");
    crate::platform::files::replace_private(path, &text).map_err(io)
}
