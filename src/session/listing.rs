//! What `session/list` shows of the sessions open in this process: each one from its first prompt
//! on, before claude has stored it (claude writes its transcript on its own schedule; older
//! versions later than newer ones), and never twice once it has.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::domain::{PromptBlock, SessionPage, SessionSummary};

/// One open session as the listing sees it; `title` and `updated` are set by its prompts.
#[derive(Debug, Clone)]
pub(super) struct OpenSession {
    pub(crate) session_id: String,
    pub(crate) cwd: PathBuf,
    /// The first prompt's text; `None` until the first prompt (nothing was said yet).
    pub(crate) title: Option<String>,
    pub(crate) updated: SystemTime,
}

impl OpenSession {
    pub(crate) fn new(session_id: String, cwd: PathBuf) -> OpenSession {
        OpenSession {
            session_id,
            cwd,
            title: None,
            updated: SystemTime::now(),
        }
    }

    /// A prompt was sent: the first one names the session, each one makes it the newest.
    pub(crate) fn prompted(&mut self, blocks: &[PromptBlock]) {
        if self.title.is_none() {
            let text: Vec<&str> = blocks
                .iter()
                .filter_map(|b| match b {
                    PromptBlock::Text(text) => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            self.title = Some(crate::history::prompt_title(&text.join("\n")).unwrap_or_default());
        }
        self.updated = SystemTime::now();
    }

    /// The user named it (`session/set_title`): no prompt renames it.
    pub(crate) fn named(&mut self, title: &str) {
        self.title = Some(title.to_owned());
    }

    /// Whether it belongs in a listing for `cwd` (every cwd when `None`).
    fn in_cwd(&self, cwd: Option<&Path>) -> bool {
        let Some(cwd) = cwd else { return true };
        let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        self.cwd == cwd || real(&self.cwd) == real(cwd)
    }
}

/// The first page of claude's stored sessions (`page`) with the open sessions of `cwd` that were
/// prompted and that `is_stored` says claude has not stored yet (a stored one is on some page of
/// its own) put first, newest first. Blocking: `is_stored` reads claude's transcripts.
pub(super) fn with_open_sessions(
    mut page: SessionPage,
    open: Vec<OpenSession>,
    cwd: Option<&Path>,
    is_stored: impl Fn(&str) -> bool,
) -> SessionPage {
    let mut unstored: Vec<OpenSession> = open
        .into_iter()
        .filter(|s| s.title.is_some() && s.in_cwd(cwd))
        .filter(|s| !is_stored(&s.session_id))
        .collect();
    unstored.sort_by_key(|s| std::cmp::Reverse(s.updated));
    let mut sessions: Vec<SessionSummary> = unstored
        .into_iter()
        .map(|s| SessionSummary {
            session_id: s.session_id,
            cwd: s.cwd,
            additional_directories: Vec::new(),
            title: s.title,
            updated_at: Some(crate::time::rfc3339(s.updated)),
            archived: false,
        })
        .collect();
    sessions.append(&mut page.sessions);
    page.sessions = sessions;
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(id: &str, cwd: &str, prompt: Option<&str>) -> OpenSession {
        let mut s = OpenSession::new(id.into(), cwd.into());
        if let Some(p) = prompt {
            s.prompted(&[PromptBlock::Text(p.into())]);
        }
        s
    }

    fn stored(id: &str) -> SessionSummary {
        SessionSummary {
            session_id: id.into(),
            cwd: "/w".into(),
            additional_directories: Vec::new(),
            title: Some("stored".into()),
            updated_at: None,
            archived: false,
        }
    }

    fn ids(page: &SessionPage) -> Vec<&str> {
        page.sessions
            .iter()
            .map(|s| s.session_id.as_str())
            .collect()
    }

    #[test]
    fn a_prompted_unstored_session_is_listed_first_once_and_a_stored_one_from_disk() {
        let page = SessionPage {
            sessions: vec![stored("on-page")],
            next_cursor: None,
        };
        let open = vec![
            open("on-page", "/w", Some("hi")),
            open("later-page", "/w", Some("hi")),
            open("new", "/w", Some("  Fix   the\nbuild ")),
            open("silent", "/w", None),
            open("elsewhere", "/other", Some("hi")),
        ];
        let page = with_open_sessions(page, open, Some(Path::new("/w")), |id| {
            id == "later-page" || id == "on-page"
        });
        assert_eq!(ids(&page), ["new", "on-page"]);
        assert_eq!(page.sessions[0].title.as_deref(), Some("Fix the"));
        assert_eq!(page.sessions[0].cwd, Path::new("/w"));
        assert!(page.sessions[0].updated_at.is_some());
        assert_eq!(page.sessions[1].title.as_deref(), Some("stored"));
    }

    #[test]
    fn without_a_cwd_every_prompted_open_session_is_listed_newest_first() {
        let older = open("older", "/a", Some("one"));
        let newer = open("newer", "/b", Some("two"));
        let empty = SessionPage {
            sessions: Vec::new(),
            next_cursor: None,
        };
        let page = with_open_sessions(empty, vec![older, newer], None, |_| false);
        assert_eq!(ids(&page), ["newer", "older"]);
    }
}
