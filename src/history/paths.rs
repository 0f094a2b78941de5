//! Where claude stores a session: the config dir, the per-cwd project folder, and lookup by id.
//!
//! The folder name ("slug") rule, read from the pinned CLI (`e.replace(/[^a-zA-Z0-9]/g,"-")` on
//! the cwd string, the same code on every system): every UTF-16 code unit of the cwd that is not an
//! ASCII letter or digit becomes `-` (so `/home/me/my.app` is `-home-me-my-app`, the Windows
//! `C:\Users\me\proj` is `C--Users-me-proj` and `\\server\share\proj` is `--server-share-proj`); a slug
//! longer than 200 characters is cut to 200 and followed by `-` and a hash of the path. claude uses
//! the cwd after resolving symlinks. We do not recompute that hash: a long slug's folder is found by
//! its 200-character prefix, and every session's own recorded `cwd` decides whether it belongs.
//! (claude also honours `CLAUDE_CODE_PROJECT_DIR_NAME` when `CLAUDE_CONFIG_DIR` is set; such
//! sessions are still found by id and by listing all projects.)

use std::fs;
use std::path::{Path, PathBuf};

use super::HistoryError;
use super::lines;

/// Slugs longer than this are truncated and get a hash suffix.
const MAX_SLUG_LEN: usize = 200;

/// A path as Windows programs other than Rust's `canonicalize` write it: `\\?\C:\x` is `C:\x`
/// and `\\?\UNC\server\share` is `\\server\share` (claude, a Node program, records those).
pub(crate) fn without_verbatim_prefix(path: &str) -> std::borrow::Cow<'_, str> {
    if let Some(rest) = path.strip_prefix(r"\\?\UNC\") {
        return format!(r"\\{rest}").into();
    }
    match path.strip_prefix(r"\\?\") {
        Some(rest) if rest.as_bytes().get(1) == Some(&b':') => rest.into(),
        _ => path.into(),
    }
}

/// The folder name claude gives a cwd under `projects/`, before any long-path truncation.
pub fn project_slug(cwd: &Path) -> String {
    cwd.to_string_lossy()
        .chars()
        .flat_map(|c| {
            let dashes = if c.is_ascii_alphanumeric() {
                0
            } else {
                c.len_utf16()
            };
            std::iter::repeat_n('-', dashes).chain((dashes == 0).then_some(c))
        })
        .collect()
}

pub(super) fn projects_dir(config_dir: &Path) -> PathBuf {
    config_dir.join("projects")
}

/// The cwd as given and with symlinks resolved (claude records the latter), without duplicates.
pub(super) fn cwd_variants(cwd: &Path) -> Vec<PathBuf> {
    let mut variants = vec![cwd.to_path_buf()];
    if let Ok(real) = fs::canonicalize(cwd)
        && let real = PathBuf::from(without_verbatim_prefix(&real.to_string_lossy()).as_ref())
        && real != cwd
    {
        variants.push(real);
    }
    variants
}

/// The existing project folders that may hold sessions of `cwd`.
pub(super) fn project_dirs_for(config_dir: &Path, cwd: &Path) -> Vec<PathBuf> {
    let projects = projects_dir(config_dir);
    let mut dirs = Vec::new();
    for variant in cwd_variants(cwd) {
        let slug = project_slug(&variant);
        if slug.len() <= MAX_SLUG_LEN {
            let dir = projects.join(&slug);
            if dir.is_dir() && !dirs.contains(&dir) {
                dirs.push(dir);
            }
            continue;
        }
        let prefix = format!("{}-", &slug[..MAX_SLUG_LEN]);
        for dir in subdirs(&projects) {
            let matches = dir
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&prefix));
            if matches && !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
    dirs
}

/// Every project folder under the config dir (none when it does not exist).
pub(super) fn all_project_dirs(config_dir: &Path) -> Vec<PathBuf> {
    subdirs(&projects_dir(config_dir))
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect()
}

/// Rejects ids that are not a single plain file name (the id becomes part of a path) and ids that
/// start with `-` (the id follows `--resume` on claude's command line, where it would read as an
/// option).
pub(crate) fn check_session_id(session_id: &str) -> Result<(), HistoryError> {
    if session_id.starts_with('-') {
        return Err(HistoryError::OptionLikeSessionId(session_id.to_owned()));
    }
    let plain = !session_id.is_empty()
        && session_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if plain {
        Ok(())
    } else {
        Err(HistoryError::InvalidSessionId(session_id.to_owned()))
    }
}

pub(super) fn transcript_name(session_id: &str) -> String {
    format!("{session_id}.jsonl")
}

/// Finds a session by id in any project: its transcript and the cwd it ran in. When the transcript
/// records no cwd (nothing was said yet), `None`: claude could not resume it anyway.
pub(crate) fn find(config_dir: &Path, session_id: &str) -> Option<(PathBuf, PathBuf)> {
    check_session_id(session_id).ok()?;
    let name = transcript_name(session_id);
    let mut found: Vec<(std::time::SystemTime, PathBuf, PathBuf)> = all_project_dirs(config_dir)
        .into_iter()
        .map(|dir| dir.join(&name))
        .filter(|file| file.is_file())
        .filter_map(|file| {
            let cwd = lines::recorded_cwd(&file)?;
            let modified = fs::metadata(&file).and_then(|m| m.modified()).ok()?;
            Some((modified, file, cwd))
        })
        .collect();
    // The same id in two projects should not happen; prefer the one written last.
    found.sort_by_key(|entry| std::cmp::Reverse(entry.0));
    found.into_iter().next().map(|(_, file, cwd)| (file, cwd))
}

/// What claude has on disk under a session id, as claude itself decides between starting a
/// session (`--session-id`, refused whenever `<id>.jsonl` exists) and resuming it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stored {
    /// No `<id>.jsonl` in any project.
    Nothing,
    /// `<id>.jsonl` files that hold no conversation (no line records a cwd): what the pinned claude
    /// leaves when it is killed early in its first turn. Neither resumable nor startable afresh
    /// while they are there.
    NoConversation(Vec<PathBuf>),
    /// A conversation claude can `--resume`.
    Conversation,
}

/// What claude stored under `session_id` (see [`Stored`]).
pub(crate) fn stored(config_dir: &Path, session_id: &str) -> Stored {
    if check_session_id(session_id).is_err() {
        return Stored::Nothing;
    }
    if find(config_dir, session_id).is_some() {
        return Stored::Conversation;
    }
    let name = transcript_name(session_id);
    let files: Vec<PathBuf> = all_project_dirs(config_dir)
        .into_iter()
        .map(|dir| dir.join(&name))
        .filter(|file| file.is_file())
        .collect();
    match files.is_empty() {
        true => Stored::Nothing,
        false => Stored::NoConversation(files),
    }
}

/// Moves transcripts that hold no conversation to `<id>.jsonl.no-conversation` (replacing an
/// older one), so that claude can start the session afresh under its id.
pub(crate) fn set_aside_no_conversation(files: &[PathBuf]) -> std::io::Result<()> {
    for file in files {
        fs::rename(file, file.with_extension("jsonl.no-conversation"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_drive_and_unc_cwds_get_claudes_slug() {
        assert_eq!(
            project_slug(Path::new(r"C:\Users\me\proj")),
            "C--Users-me-proj"
        );
        assert_eq!(
            project_slug(Path::new(r"\\server\share\proj")),
            "--server-share-proj"
        );
        assert_eq!(project_slug(Path::new(r"D:\my.app")), "D--my-app");
    }

    #[test]
    fn canonical_windows_paths_lose_the_verbatim_prefix_claude_never_writes() {
        assert_eq!(without_verbatim_prefix(r"\\?\C:\Users\me"), r"C:\Users\me");
        assert_eq!(
            without_verbatim_prefix(r"\\?\UNC\srv\share\p"),
            r"\\srv\share\p"
        );
        assert_eq!(
            without_verbatim_prefix(r"\\?\Volume{x}\p"),
            r"\\?\Volume{x}\p"
        );
        assert_eq!(without_verbatim_prefix("/home/me"), "/home/me");
    }
}
