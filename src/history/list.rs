//! `session/list`: claude's stored sessions, newest first, one page at a time.
//!
//! Order: file modification time (newest first), then session id. The cursor names the last
//! session a page examined, so a session that is written to between two pages may move ahead of
//! the cursor and not show again on later pages; one that is new appears on the first page. Only
//! the files of one page are read, so listing a large history stays cheap.

use std::fs;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::lines::{self, UserLine};
use super::paths::{all_project_dirs, cwd_variants, project_dirs_for};
use super::{HistoryError, time};
use crate::domain::{SessionPage, SessionSummary};

/// Sessions per page when the caller passes 0.
pub(crate) const DEFAULT_PAGE_SIZE: usize = 50;

/// Lines a scan still reads whole once it has the first prompt: `custom-title`, `ai-title` and
/// `summary` lines are far shorter.
const TITLE_LINE_BYTES: usize = 64 * 1024;

/// Longest title, in characters, before it is cut with an ellipsis.
const TITLE_MAX_CHARS: usize = 80;

/// Lists stored sessions: those of `cwd` (any project when `None`), newest first, `page_size` per
/// page (0: [`DEFAULT_PAGE_SIZE`]), after `cursor` (the `next_cursor` of the previous page).
/// Sessions in which nothing was said yet are left out. A missing config dir is an empty list.
pub(crate) fn list(
    config_dir: &Path,
    cwd: Option<&Path>,
    cursor: Option<&str>,
    page_size: usize,
) -> Result<SessionPage, HistoryError> {
    let page_size = if page_size == 0 {
        DEFAULT_PAGE_SIZE
    } else {
        page_size
    };
    let after = cursor.map(Position::decode).transpose()?;
    let dirs = match cwd {
        Some(cwd) => project_dirs_for(config_dir, cwd),
        None => all_project_dirs(config_dir),
    };
    let wanted_cwds = cwd.map(cwd_variants);
    let mut candidates: Vec<Candidate> = dirs.iter().flat_map(|d| transcripts_in(d)).collect();
    candidates.sort_by(|a, b| a.position.cmp(&b.position));
    let mut sessions = Vec::new();
    let mut last_examined = None;
    let mut more = false;
    for candidate in candidates
        .into_iter()
        .filter(|c| after.as_ref().is_none_or(|after| c.position > *after))
    {
        if sessions.len() == page_size {
            more = true;
            break;
        }
        last_examined = Some(candidate.position.clone());
        let Some(scan) = scan(&candidate.file) else {
            continue;
        };
        let session_cwd = match (scan.cwd, cwd) {
            (Some(recorded), _) => recorded,
            (None, Some(asked)) => asked.to_path_buf(),
            (None, None) => continue,
        };
        // Different cwds can share a slug (`/a/b-c` and `/a/b/c`): the recorded cwd decides.
        if let Some(wanted) = &wanted_cwds
            && !wanted.contains(&session_cwd)
        {
            continue;
        }
        sessions.push(SessionSummary {
            session_id: candidate.position.session_id.clone(),
            cwd: session_cwd,
            additional_directories: Vec::new(),
            title: scan.title,
            updated_at: Some(time::rfc3339(candidate.modified)),
        });
    }
    Ok(SessionPage {
        sessions,
        next_cursor: if more {
            last_examined.map(|p| p.encode())
        } else {
            None
        },
    })
}

/// Whether [`list`] for `cwd` shows session `session_id`: claude stored it, something was said in
/// it, and a listing of every cwd (`None`) needs a prompt line to know its cwd.
pub(crate) fn is_listed(config_dir: &Path, cwd: Option<&Path>, session_id: &str) -> bool {
    super::find(config_dir, session_id)
        .and_then(|(file, _)| scan(&file))
        .is_some_and(|scan| scan.cwd.is_some() || cwd.is_some())
}

/// A session's place in the listing order: newest first, then by id.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Position {
    /// Nanoseconds since the epoch of the last write.
    modified_nanos: u128,
    session_id: String,
}

impl Ord for Position {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .modified_nanos
            .cmp(&self.modified_nanos)
            .then_with(|| self.session_id.cmp(&other.session_id))
    }
}

impl PartialOrd for Position {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

const CURSOR_PREFIX: &str = "claude-acp-list-v1:";

impl Position {
    fn encode(&self) -> String {
        format!("{CURSOR_PREFIX}{}:{}", self.modified_nanos, self.session_id)
    }

    fn decode(cursor: &str) -> Result<Position, HistoryError> {
        let invalid = || HistoryError::InvalidCursor(cursor.to_owned());
        let (nanos, id) = cursor
            .strip_prefix(CURSOR_PREFIX)
            .and_then(|rest| rest.split_once(':'))
            .ok_or_else(invalid)?;
        Ok(Position {
            modified_nanos: nanos.parse().map_err(|_| invalid())?,
            session_id: id.to_owned(),
        })
    }
}

struct Candidate {
    position: Position,
    modified: SystemTime,
    file: PathBuf,
}

/// The `<id>.jsonl` files directly in a project folder (subfolders hold subagent transcripts).
fn transcripts_in(dir: &Path) -> Vec<Candidate> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let file = entry.path();
            if file.extension().is_none_or(|e| e != "jsonl") {
                return None;
            }
            let metadata = entry.metadata().ok().filter(fs::Metadata::is_file)?;
            let modified = metadata.modified().unwrap_or(UNIX_EPOCH);
            let session_id = file.file_stem()?.to_str()?.to_owned();
            Some(Candidate {
                position: Position {
                    modified_nanos: modified
                        .duration_since(UNIX_EPOCH)
                        .unwrap_or_default()
                        .as_nanos(),
                    session_id,
                },
                modified,
                file,
            })
        })
        .collect()
}

/// What the listing shows of one transcript.
struct Scan {
    cwd: Option<PathBuf>,
    title: Option<String>,
}

/// Reads a transcript for its cwd and title; `None` when nothing was said in it.
///
/// Title: the name the person gave the session (`custom-title`), else claude's generated one
/// (`ai-title`), else a `summary` line, else the first prompt's first line (or, failing that, the
/// first slash command). Only lines that can matter are parsed.
fn scan(file: &Path) -> Option<Scan> {
    let mut cwd = None;
    let (mut custom, mut ai, mut summary, mut prompt, mut command) = (None, None, None, None, None);
    let mut said_something = false;
    // Once the first prompt (and the cwd with it) is known, only title lines matter, and they
    // are short: longer lines (tool inputs and results, up to tens of MiB) are read past.
    let found = std::cell::Cell::new(false);
    let longest = || {
        if found.get() {
            TITLE_LINE_BYTES
        } else {
            usize::MAX
        }
    };
    let read = lines::for_each_line_up_to(file, longest, |line| {
        let interesting = ["\"user\"", "\"assistant\"", "-title\"", "\"summary\""]
            .iter()
            .any(|marker| line.contains(marker));
        if !interesting {
            return ControlFlow::Continue(());
        }
        let Some(value) = lines::parse(line) else {
            return ControlFlow::Continue(());
        };
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        match lines::line_type(&value) {
            "custom-title" => custom = text("customTitle").or(custom.take()),
            "ai-title" => ai = text("aiTitle").or(ai.take()),
            "summary" => summary = text("summary").or(summary.take()),
            "assistant" => said_something = true,
            "user" => {
                if cwd.is_none() {
                    cwd = text("cwd").map(PathBuf::from);
                }
                match lines::classify_user(&value) {
                    UserLine::Prompt(chunks) if prompt.is_none() => {
                        said_something = true;
                        prompt = prompt_title(&lines::prompt_text(&chunks));
                        found.set(cwd.is_some());
                    }
                    UserLine::Command(typed) if command.is_none() => {
                        said_something = true;
                        command = Some(typed);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    });
    if let Err(e) = read {
        tracing::debug!("cannot read transcript {}: {e}", file.display());
        return None;
    }
    said_something.then(|| Scan {
        cwd,
        title: [custom, ai, summary, prompt, command]
            .into_iter()
            .flatten()
            .map(|t| short_title(&t))
            .find(|t| !t.is_empty()),
    })
}

/// The title claude stored for a session (a name given to it, claude's own summary), else its first
/// prompt's first line; `None` when claude stored nothing said in it.
pub(crate) fn stored_title(config_dir: &Path, session_id: &str) -> Option<String> {
    let (file, _) = super::paths::find(config_dir, session_id)?;
    scan(&file)?.title
}

/// The title a prompt gives its session: its first non-blank line, shortened.
pub(crate) fn prompt_title(prompt: &str) -> Option<String> {
    prompt
        .lines()
        .map(short_title)
        .find(|line| !line.is_empty())
}

/// One line of at most [`TITLE_MAX_CHARS`] characters, cut with `…`.
fn short_title(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= TITLE_MAX_CHARS {
        return line;
    }
    let cut: String = line.chars().take(TITLE_MAX_CHARS - 1).collect();
    format!("{}…", cut.trim_end())
}
