//! How the next claude the session starts picks up the conversation: as the session was opened,
//! resumed once claude has stored it, or only up to where `/undo` or `/rewind` left it.

use std::path::PathBuf;

use crate::history::{RewindPoint, Stored};
use crate::session::spawn::Start;

/// What the session knows about its stored conversation, for its next claude.
pub(super) struct NextClaude {
    /// Whether claude holds a stored conversation for this id (so a respawn must resume it).
    pub(super) conversation_stored: bool,
    /// How the session was opened (new, resume, load, fork): the start while nothing is stored.
    pub(super) start: Start,
    /// Where `/undo` or `/rewind` left the thread, until a turn has run on from there: a claude
    /// started meanwhile resumes only up to it.
    pub(super) rewind: Option<RewindPoint>,
}

/// How the next claude starts.
#[derive(Debug, PartialEq)]
pub(super) struct NextStart {
    pub(super) start: Start,
    /// The thread went back before its first prompt: claude's transcript must be set aside first,
    /// or the new conversation (same id) would find the old one.
    pub(super) set_aside_transcript: bool,
    /// Transcripts under the session's id that hold no conversation (claude was killed before it
    /// wrote one): set aside first, as claude refuses `--session-id` while `<id>.jsonl` exists.
    pub(super) set_aside_no_conversation: Vec<PathBuf>,
}

impl NextClaude {
    pub(super) fn new(start: Start, rewind: Option<RewindPoint>) -> Self {
        NextClaude {
            conversation_stored: matches!(start, Start::Resume),
            start,
            rewind,
        }
    }

    /// `stored_by_claude` says what claude stored under the session's id (asked only when it
    /// matters: it reads the disk). As claude decides: a transcript with a conversation is
    /// resumed; one without is set aside, and the session starts as it was opened.
    pub(super) fn next_start(&self, stored_by_claude: impl FnOnce() -> Stored) -> NextStart {
        let fresh = |start| NextStart {
            start,
            set_aside_transcript: false,
            set_aside_no_conversation: Vec::new(),
        };
        match self.rewind.as_ref().map(|point| point.resume_at.clone()) {
            Some(Some(at)) => fresh(Start::ResumeAt { at }),
            Some(None) => NextStart {
                start: Start::New,
                set_aside_transcript: true,
                set_aside_no_conversation: Vec::new(),
            },
            None if self.conversation_stored => match stored_by_claude() {
                Stored::Conversation => fresh(Start::Resume),
                Stored::NoConversation(files) => NextStart {
                    set_aside_no_conversation: files,
                    ..fresh(self.start.clone())
                },
                // claude died before it stored anything: start as opened.
                Stored::Nothing => fresh(self.start.clone()),
            },
            None => fresh(self.start.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(resume_at: Option<&str>) -> RewindPoint {
        RewindPoint {
            dropped_prompt: "the dropped prompt".into(),
            resume_at: resume_at.map(str::to_owned),
        }
    }

    #[test]
    fn the_next_claude_resumes_what_claude_stored_and_no_further_than_a_rewind() {
        let fork = Start::Fork {
            from: "f".into(),
            at: None,
        };
        let cases = [
            // (opened as, a turn ran, rewind point, transcript on disk) -> start, set aside
            (Start::New, false, None, false, Start::New, false),
            (Start::New, true, None, true, Start::Resume, false),
            // A turn ran but claude stored nothing (it died first): start as opened.
            (Start::New, true, None, false, Start::New, false),
            (fork.clone(), false, None, false, fork.clone(), false),
            (fork.clone(), true, None, true, Start::Resume, false),
            (Start::Resume, false, None, true, Start::Resume, false),
            (
                Start::Resume,
                true,
                Some(point(Some("entry-7"))),
                true,
                Start::ResumeAt {
                    at: "entry-7".into(),
                },
                false,
            ),
            (
                Start::Resume,
                true,
                Some(point(None)),
                true,
                Start::New,
                true,
            ),
        ];
        for (opened, turn_ran, rewind, on_disk, start, set_aside) in cases {
            let mut next = NextClaude::new(opened.clone(), rewind);
            next.conversation_stored |= turn_ran;
            let got = next.next_start(|| match on_disk {
                true => Stored::Conversation,
                false => Stored::Nothing,
            });
            let expected = NextStart {
                start,
                set_aside_transcript: set_aside,
                set_aside_no_conversation: Vec::new(),
            };
            assert_eq!(got, expected, "opened {opened:?}, a turn ran: {turn_ran}");
        }
    }

    #[test]
    fn a_transcript_without_a_conversation_is_set_aside_and_the_session_starts_as_opened() {
        let files = vec![PathBuf::from("/c/projects/p/id.jsonl")];
        let mut next = NextClaude::new(Start::New, None);
        next.conversation_stored = true;
        let got = next.next_start(|| Stored::NoConversation(files.clone()));
        assert_eq!(
            got,
            NextStart {
                start: Start::New,
                set_aside_transcript: false,
                set_aside_no_conversation: files,
            }
        );
    }
}
