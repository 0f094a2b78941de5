//! `session/list`: claude's stored sessions, newest first, one page at a time.
//!
//! Order: file modification time (newest first), then session id, as the store stood when the
//! listing's first page was asked for. That order is kept for the listing's later pages
//! ([`Listings`] holds it in memory), so the whole listing reads the store's folder once and each
//! transcript once: a session written to between two pages keeps its place (it is neither given
//! twice nor skipped), a deleted one is left out, and one created since is on the next first page.
//!
//! The cursor is opaque to the editor; it names the listing, the place in it, and the position
//! (modification time and id) of the last session examined, so that another process (claude-acp
//! restarted between two pages) can go on: it reads the folder again and gives what comes after
//! that position, plus the sessions written since the listing began (their old place is not known
//! any more, so such a session may be given a second time, never skipped).

use std::collections::VecDeque;
use std::fs;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use memchr::memmem;
use serde_json::Value;

use super::HistoryError;
use super::lines::{self, UserLine};
use super::paths::{all_project_dirs, cwd_variants, project_dirs_for};
use crate::domain::{SessionPage, SessionSummary};

/// Sessions per page when the caller passes 0.
pub(crate) const DEFAULT_PAGE_SIZE: usize = 50;

/// Lines a scan still reads whole once it has the first prompt: `custom-title`, `ai-title` and
/// `summary` lines are far shorter.
const TITLE_LINE_BYTES: usize = 64 * 1024;

/// Longest title, in characters, before it is cut with an ellipsis.
const TITLE_MAX_CHARS: usize = 80;

/// Listings whose later pages may still be asked for; past this the oldest is forgotten (its
/// cursor then goes on as from another process).
const KEPT_LISTINGS: usize = 8;

/// The listings under way in this process: the order each one's first page saw.
#[derive(Default)]
pub(crate) struct Listings {
    kept: Mutex<VecDeque<Arc<Snapshot>>>,
}

/// One listing's order, fixed at its first page.
struct Snapshot {
    /// Names this listing in its cursors; random, so another process never takes it for its own.
    id: u64,
    cwd: Option<PathBuf>,
    /// The newest modification time the first page saw: a session whose time is later was written
    /// (or created) after the listing began.
    newest: u128,
    entries: Vec<Candidate>,
}

impl Listings {
    /// Lists stored sessions: those of `cwd` (any project when `None`), newest first, `page_size`
    /// per page (0: [`DEFAULT_PAGE_SIZE`]), after `cursor` (the `next_cursor` of the previous
    /// page). Sessions in which nothing was said yet are left out. A missing config dir is an empty
    /// list.
    pub(crate) fn page(
        &self,
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
        let (snapshot, from) = match cursor.map(Cursor::decode).transpose()? {
            None => (Arc::new(Snapshot::take(config_dir, cwd)), 0),
            Some(cursor) => match self.kept(cursor.listing, cwd) {
                Some(snapshot) if cursor.index <= snapshot.entries.len() => {
                    (snapshot, cursor.index)
                }
                _ => (Arc::new(Snapshot::resume(config_dir, cwd, &cursor)), 0),
            },
        };
        let (page, next) = snapshot.serve(cwd, from, page_size);
        let mut kept = self.kept.lock().expect("listings lock");
        kept.retain(|s| s.id != snapshot.id);
        if next.is_some() {
            kept.push_back(snapshot);
            while kept.len() > KEPT_LISTINGS {
                kept.pop_front();
            }
        }
        Ok(page)
    }

    fn kept(&self, id: u64, cwd: Option<&Path>) -> Option<Arc<Snapshot>> {
        let kept = self.kept.lock().expect("listings lock");
        kept.iter()
            .find(|s| s.id == id && s.cwd.as_deref() == cwd)
            .cloned()
    }
}

/// [`Listings::page`] as a new process would answer it (nothing kept).
#[cfg(test)]
pub(crate) fn list(
    config_dir: &Path,
    cwd: Option<&Path>,
    cursor: Option<&str>,
    page_size: usize,
) -> Result<SessionPage, HistoryError> {
    Listings::default().page(config_dir, cwd, cursor, page_size)
}

impl Snapshot {
    /// The store as it is now, in listing order.
    fn take(config_dir: &Path, cwd: Option<&Path>) -> Snapshot {
        let mut entries = candidates(config_dir, cwd);
        entries.sort_by(|a, b| a.position.cmp(&b.position));
        let newest = entries
            .iter()
            .map(|c| c.position.modified_nanos)
            .max()
            .unwrap_or(0);
        Snapshot {
            id: uuid::Uuid::new_v4().as_u64_pair().0,
            cwd: cwd.map(Path::to_path_buf),
            newest,
            entries,
        }
    }

    /// The rest of a listing this process does not hold: the sessions written since it began
    /// first (each may have been given already: its old place is gone), then every session after
    /// the cursor's position.
    fn resume(config_dir: &Path, cwd: Option<&Path>, cursor: &Cursor) -> Snapshot {
        let mut written_since = Vec::new();
        let mut after = Vec::new();
        for mut candidate in candidates(config_dir, cwd) {
            if candidate.position.modified_nanos > cursor.newest {
                // Its cursor goes on from the same place as this one, wherever it is read.
                candidate.position = cursor.last.clone();
                written_since.push(candidate);
            } else if candidate.position > cursor.last {
                after.push(candidate);
            }
        }
        written_since.sort_by(|a, b| a.id.cmp(&b.id));
        after.sort_by(|a, b| a.position.cmp(&b.position));
        written_since.append(&mut after);
        Snapshot {
            id: uuid::Uuid::new_v4().as_u64_pair().0,
            cwd: cwd.map(Path::to_path_buf),
            newest: cursor.newest,
            entries: written_since,
        }
    }

    /// The page of at most `page_size` sessions from entry `from` on, and the cursor after it.
    fn serve(
        &self,
        cwd: Option<&Path>,
        from: usize,
        page_size: usize,
    ) -> (SessionPage, Option<String>) {
        let wanted_cwds = cwd.map(cwd_variants);
        let mut sessions = Vec::new();
        let mut next = None;
        for (index, candidate) in self.entries.iter().enumerate().skip(from) {
            if sessions.len() == page_size {
                next = Some(
                    Cursor {
                        listing: self.id,
                        index,
                        newest: self.newest,
                        last: self.entries[index - 1].position.clone(),
                    }
                    .encode(),
                );
                break;
            }
            // Read now: a session deleted since the first page is left out, one written to since
            // shows its new title and time.
            let Some(modified) = fs::metadata(&candidate.file)
                .ok()
                .filter(fs::Metadata::is_file)
                .map(|m| m.modified().unwrap_or(UNIX_EPOCH))
            else {
                continue;
            };
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
                session_id: candidate.id.clone(),
                cwd: session_cwd,
                additional_directories: Vec::new(),
                title: scan.title,
                updated_at: Some(crate::time::rfc3339(modified)),
                archived: false,
            });
        }
        let page = SessionPage {
            sessions,
            next_cursor: next.clone(),
        };
        (page, next)
    }
}

/// Every transcript that may belong to a listing of `cwd`, unordered.
fn candidates(config_dir: &Path, cwd: Option<&Path>) -> Vec<Candidate> {
    let dirs = match cwd {
        Some(cwd) => project_dirs_for(config_dir, cwd),
        None => all_project_dirs(config_dir),
    };
    dirs.iter().flat_map(|d| transcripts_in(d)).collect()
}

/// Whether [`Listings::page`] for `cwd` shows session `session_id`: claude stored it, something
/// was said in it, and a listing of every cwd (`None`) needs a prompt line to know its cwd.
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

const CURSOR_V1: &str = "claude-acp-list-v1:";
const CURSOR_V2: &str = "claude-acp-list-v2:";

/// What a `next_cursor` says: which listing, where in it, and enough to go on without it.
#[derive(Debug, Clone, PartialEq)]
struct Cursor {
    listing: u64,
    /// The next entry of the listing's order.
    index: usize,
    newest: u128,
    /// The position of the last session the previous page examined.
    last: Position,
}

impl Cursor {
    fn encode(&self) -> String {
        let Cursor {
            listing,
            index,
            newest,
            last,
        } = self;
        format!(
            "{CURSOR_V2}{listing:x}:{index}:{newest}:{}:{}",
            last.modified_nanos, last.session_id
        )
    }

    /// A cursor of this version, or of the one before (a position alone: nothing was written
    /// since, as far as it knows).
    fn decode(cursor: &str) -> Result<Cursor, HistoryError> {
        let invalid = || HistoryError::InvalidCursor(cursor.to_owned());
        if let Some(rest) = cursor.strip_prefix(CURSOR_V1) {
            let (nanos, id) = rest.split_once(':').ok_or_else(invalid)?;
            return Ok(Cursor {
                listing: 0,
                index: 0,
                newest: u128::MAX,
                last: Position {
                    modified_nanos: nanos.parse().map_err(|_| invalid())?,
                    session_id: id.to_owned(),
                },
            });
        }
        let rest = cursor.strip_prefix(CURSOR_V2).ok_or_else(invalid)?;
        let mut fields = rest.splitn(5, ':');
        let mut next = || fields.next().ok_or_else(invalid);
        let listing = u64::from_str_radix(next()?, 16).map_err(|_| invalid())?;
        let index = next()?.parse().map_err(|_| invalid())?;
        let newest = next()?.parse().map_err(|_| invalid())?;
        let modified_nanos = next()?.parse().map_err(|_| invalid())?;
        let session_id = next()?.to_owned();
        Ok(Cursor {
            listing,
            index,
            newest,
            last: Position {
                modified_nanos,
                session_id,
            },
        })
    }
}

struct Candidate {
    position: Position,
    /// The session id (the position's own, except where [`Snapshot::resume`] moved it).
    id: String,
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
            let id = file.file_stem()?.to_str()?.to_owned();
            Some(Candidate {
                position: Position {
                    modified_nanos: nanos(modified),
                    session_id: id.clone(),
                },
                id,
                file,
            })
        })
        .collect()
}

fn nanos(time: SystemTime) -> u128 {
    time.duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_nanos()
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
    // Which lines can matter: before the first prompt, messages and title lines; after it, title
    // lines alone (most of a transcript is messages, and parsing each one was most of a listing).
    let message_markers = [
        memmem::Finder::new("\"user\""),
        memmem::Finder::new("\"assistant\""),
    ];
    // A title line's type, as claude writes it (compact JSON): the bare words `"summary"` and
    // `-title"` are in big lines too (tool schemas, attachments), and parsing those was most of a
    // page of stored transcripts.
    let title_markers = [
        memmem::Finder::new("\"type\":\"custom-title\""),
        memmem::Finder::new("\"type\":\"ai-title\""),
        memmem::Finder::new("\"type\":\"summary\""),
    ];
    let wanted = |line: &[u8]| {
        let has = |markers: &[memmem::Finder]| markers.iter().any(|m| m.find(line).is_some());
        has(&title_markers) || (!found.get() && has(&message_markers))
    };
    let read = lines::for_each_wanted_line(file, longest, wanted, |line| {
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
