//! The editor's part of `/undo` and `/rewind`: the files claude-acp wrote through the editor (the
//! "Review in editor" mode, which claude's own file checkpoints never see) go back to their text
//! from the session's record ([`EditLog`]), through `fs/write_text_file`.
//!
//! A file that did not exist before is written empty: ACP has no way to delete a file, so the
//! user is told to delete it. A file whose text was too large to keep is left as it is, and said so.

use std::path::{Path, PathBuf};

use crate::claude::wire::RewindFilesResult;
use crate::domain::EditorClient;
use crate::editor_tools::answer_bound;
use crate::editor_tools::fs::EditLog;
use crate::history::{Before, MAX_FILE_BYTES, StoredPrompt};

use super::asks;

/// What going back to before a prompt does to the files written through the editor.
#[derive(Debug, Default)]
pub(crate) struct EditorPlan {
    files: Vec<Planned>,
    /// Some writes after the prompt were forgotten to keep the record small.
    forgotten: bool,
}

#[derive(Debug)]
struct Planned {
    path: PathBuf,
    /// The text written back; `None` when it was too large to keep.
    put_back: Option<String>,
    /// It did not exist before: it is emptied.
    created: bool,
    back_in: u64,
    out: u64,
}

/// Why putting the files back stopped.
#[derive(Debug)]
pub(crate) struct RestoreFailed {
    pub(crate) message: String,
}

/// The dry run: for each file the dropped turns wrote through the editor, what it held before and
/// the lines that come back in and go out against the editor's text now.
pub(crate) async fn plan(
    log: &EditLog,
    editor: &dyn EditorClient,
    session_id: &str,
    target: &StoredPrompt,
) -> EditorPlan {
    let Some(from) = target.timestamp.clone() else {
        return EditorPlan::default();
    };
    let restore = log.since(from).await;
    let mut files = Vec::new();
    for edit in restore.files {
        let now = current_text(editor, session_id, &edit.path).await;
        let (put_back, created) = match edit.before {
            Before::Text { text } => (Some(text), false),
            Before::Missing => (Some(String::new()), true),
            Before::TooLarge { .. } => (None, false),
        };
        let (back_in, out) = put_back
            .as_deref()
            .map_or((0, 0), |before| line_changes(before, &now));
        files.push(Planned {
            path: edit.path,
            put_back,
            created,
            back_in,
            out,
        });
    }
    EditorPlan {
        files,
        forgotten: restore.forgotten,
    }
}

/// The file's text as the editor has it now (the disk's, or nothing, if the editor cannot say).
async fn current_text(editor: &dyn EditorClient, session_id: &str, path: &Path) -> String {
    let read = editor.read_text_file(session_id, path);
    match answer_bound::answer(answer_bound::from_env(), read).await {
        Ok(Ok(text)) => text,
        _ => std::fs::read_to_string(path).unwrap_or_default(),
    }
}

impl EditorPlan {
    /// The files it writes, for the confirm's locations.
    pub(crate) fn paths(&self) -> Vec<String> {
        self.files
            .iter()
            .map(|f| f.path.display().to_string())
            .collect()
    }

    /// What it does, in words; `None` when the editor wrote nothing to put back.
    pub(crate) fn describe(&self, cwd: &Path) -> Option<String> {
        if self.files.is_empty() && !self.forgotten {
            return None;
        }
        let names = |pick: &dyn Fn(&Planned) -> bool| -> Vec<String> {
            self.files
                .iter()
                .filter(|f| pick(f))
                .map(|f| asks::shown(cwd, &f.path.display().to_string()))
                .collect()
        };
        let mut lines = Vec::new();
        let restored = names(&|f| f.put_back.is_some());
        if !restored.is_empty() {
            let (back_in, out) = self
                .files
                .iter()
                .fold((0, 0), |(i, o), f| (i + f.back_in, o + f.out));
            lines.push(format!(
                "Files put back through the editor: {} ({back_in} line{} back in, {out} out).",
                restored.join(", "),
                if back_in == 1 { "" } else { "s" },
            ));
        }
        let created = names(&|f| f.created);
        if !created.is_empty() {
            lines.push(format!(
                "Written empty, as they did not exist before and an editor cannot delete a file (delete them yourself): {}.",
                created.join(", ")
            ));
        }
        let too_large = names(&|f| f.put_back.is_none());
        if !too_large.is_empty() {
            lines.push(format!(
                "Left as they are, too large (over {} MiB) for claude-acp to have kept their text: {}.",
                MAX_FILE_BYTES / (1024 * 1024),
                too_large.join(", ")
            ));
        }
        if self.forgotten {
            lines.push(
                "Some older edits made through the editor were no longer kept, so files may not go back all the way."
                    .to_owned(),
            );
        }
        Some(lines.join("\n"))
    }

    /// Writes each file's earlier text through the editor, in order; stops at the first the editor
    /// refuses, saying which files were put back before it.
    pub(crate) async fn restore(
        &self,
        editor: &dyn EditorClient,
        session_id: &str,
        cwd: &Path,
    ) -> Result<(), RestoreFailed> {
        let mut done: Vec<String> = Vec::new();
        for file in &self.files {
            let Some(text) = &file.put_back else { continue };
            let shown = asks::shown(cwd, &file.path.display().to_string());
            let write = editor.write_text_file(session_id, &file.path, text.clone());
            let error = match answer_bound::answer(answer_bound::from_env(), write).await {
                Ok(Ok(())) => {
                    done.push(shown);
                    continue;
                }
                Ok(Err(e)) => e.to_string(),
                Err(bound) => format!("no answer within {}", answer_bound::describe(bound)),
            };
            let before = match done.is_empty() {
                true => "No file was put back through the editor before it.".to_owned(),
                false => format!(
                    "Put back through the editor before it: {}.",
                    done.join(", ")
                ),
            };
            return Err(RestoreFailed {
                message: format!("the editor could not write {shown} ({error}). {before}"),
            });
        }
        Ok(())
    }
}

/// What happens to the files: claude's dry run, then the files written through the editor.
/// claude's "nothing to put back" is left out when the editor has files to put back.
pub(crate) fn files_text(
    cwd: &Path,
    claude: &Result<RewindFilesResult, String>,
    editor: &EditorPlan,
) -> String {
    let claude_line = asks::files_line(cwd, claude);
    let Some(editor_line) = editor.describe(cwd) else {
        return claude_line;
    };
    match claude {
        Ok(dry) if dry.files_changed.is_empty() => editor_line,
        _ => format!("{claude_line}\n{editor_line}"),
    }
}

/// The lines of `before` that come back in, and those of `now` that go out, when `now` is replaced
/// by `before` (a longest-common-subsequence count after the common start and end; a change too
/// large to compare counts every differing line).
pub(crate) fn line_changes(before: &str, now: &str) -> (u64, u64) {
    let (a, b): (Vec<&str>, Vec<&str>) = (before.lines().collect(), now.lines().collect());
    let start = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[start..], &b[start..]);
    let end = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - end], &b[..b.len() - end]);
    const MAX_CELLS: usize = 4_000_000;
    let common = if a.len().saturating_mul(b.len()) > MAX_CELLS {
        0
    } else {
        let mut row = vec![0usize; b.len() + 1];
        for x in a {
            let mut diagonal = 0;
            for (j, y) in b.iter().enumerate() {
                let above = row[j + 1];
                row[j + 1] = if x == y {
                    diagonal + 1
                } else {
                    above.max(row[j])
                };
                diagonal = above;
            }
        }
        row[b.len()]
    };
    ((a.len() - common) as u64, (b.len() - common) as u64)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::testing::TestEditor;

    fn prompt_at(timestamp: &str) -> StoredPrompt {
        StoredPrompt {
            uuid: "p".into(),
            parent: None,
            text: "change things".into(),
            timestamp: Some(timestamp.into()),
        }
    }

    /// A turn that edited a.txt and created b.txt through the editor.
    async fn one_turn(editor: &TestEditor) -> (EditLog, StoredPrompt) {
        let log = EditLog::new(None, "s".into());
        let prompt = prompt_at(&crate::time::now_rfc3339());
        log.start_turn();
        log.note_write(Path::new("/w/a.txt"), Some("one\nsecond\n"))
            .await;
        log.note_write(Path::new("/w/b.txt"), None).await;
        editor.set_buffer("/w/a.txt", "one\n2nd\n");
        editor.set_buffer("/w/b.txt", "bee\n");
        (log, prompt)
    }

    #[tokio::test]
    async fn the_dry_run_names_the_files_and_lines_and_the_restore_writes_them_back() {
        let editor = TestEditor::default().with_buffers();
        let (log, prompt) = one_turn(&editor).await;
        let plan = plan(&log, &editor, "s", &prompt).await;
        let said = plan.describe(Path::new("/w")).unwrap();
        assert!(
            said.contains(
                "Files put back through the editor: a.txt, b.txt (1 line back in, 2 out)."
            ) && said.contains("Written empty, as they did not exist before")
                && said.contains(": b.txt."),
            "{said}"
        );
        assert_eq!(plan.paths(), ["/w/a.txt", "/w/b.txt"]);
        plan.restore(&editor, "s", Path::new("/w")).await.unwrap();
        let buffer = |path: &str| editor.buffer(Path::new(path)).unwrap();
        assert_eq!(buffer("/w/a.txt"), "one\nsecond\n");
        assert_eq!(buffer("/w/b.txt"), "");
    }

    #[tokio::test]
    async fn a_refused_write_stops_the_restore_and_says_what_went_back() {
        let editor = TestEditor::default()
            .with_buffers()
            .with_read_only("/w/b.txt");
        let (log, prompt) = one_turn(&editor).await;
        let plan = plan(&log, &editor, "s", &prompt).await;
        let failed = plan
            .restore(&editor, "s", Path::new("/w"))
            .await
            .unwrap_err();
        assert_eq!(
            failed.message,
            "the editor could not write b.txt (the editor answered with an error: read-only buffer). \
             Put back through the editor before it: a.txt."
        );
    }

    #[tokio::test]
    async fn nothing_written_through_the_editor_since_the_prompt_adds_nothing() {
        let editor = TestEditor::default().with_buffers();
        let (log, _) = one_turn(&editor).await;
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let later = prompt_at(&crate::time::now_rfc3339());
        let plan = plan(&log, &editor, "s", &later).await;
        assert_eq!(plan.describe(Path::new("/w")), None);
        let no_time = StoredPrompt {
            timestamp: None,
            ..later
        };
        assert!(plan_is_empty(&log, &editor, &no_time).await);
    }

    async fn plan_is_empty(log: &EditLog, editor: &TestEditor, prompt: &StoredPrompt) -> bool {
        plan(log, editor, "s", prompt).await.paths().is_empty()
    }

    use super::line_changes;

    #[test]
    fn line_changes_count_what_comes_back_and_what_goes() {
        assert_eq!(line_changes("a\nb\n", "a\nb\n"), (0, 0));
        assert_eq!(line_changes("a\nsecond\n", "a\n2nd\n"), (1, 1));
        assert_eq!(line_changes("", "bee\nwax\n"), (0, 2));
        assert_eq!(line_changes("one\n", "one\ntwo\nthree\n"), (0, 2));
        assert_eq!(line_changes("x\na\nb\nc\ny\n", "x\nb\nq\ny\n"), (2, 1));
    }
}
