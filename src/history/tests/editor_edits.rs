//! The record of editor writes: which text goes back for a prompt, what a turn keeps, its bounds, and
//! its file (beside the transcript, owner-only, a broken one ignored).

use std::path::Path;

use super::{user_line, write_session};
use crate::history::{
    Before, EditorEdits, MAX_FILE_BYTES, MAX_KEPT_BYTES, editor_edits_path, load_editor_edits,
    save_editor_edits,
};

const ID: &str = "4b3a2c1d-0000-4000-8000-0000000000ed";

fn t(second: u8) -> String {
    format!("2026-12-03T10:00:{second:02}.000Z")
}

fn text(t: &str) -> Before {
    Before::Text { text: t.into() }
}

/// Two turns: the first (prompt at 0 s) writes a.txt twice and creates b.txt; the second (prompt at
/// 10 s) writes a.txt again.
fn two_turns() -> EditorEdits {
    let mut edits = EditorEdits::default();
    let (a, b) = (Path::new("/w/a.txt"), Path::new("/w/b.txt"));
    assert!(edits.note(&t(0), &t(1), a, Some("one\n")));
    assert!(
        !edits.note(&t(0), &t(2), a, Some("one, changed\n")),
        "only a file's first write in a turn is kept"
    );
    assert!(edits.note(&t(0), &t(3), b, None));
    assert!(edits.note(&t(10), &t(11), a, Some("two\n")));
    edits
}

#[test]
fn going_back_puts_back_each_files_text_from_before_the_earliest_dropped_write() {
    let edits = two_turns();
    let before = |from: &str| -> Vec<(String, Before)> {
        edits
            .since(from)
            .into_iter()
            .map(|e| (e.path.display().to_string(), e.before))
            .collect()
    };
    // Undo of the second turn: a.txt as the first turn left it; b.txt is not the second's.
    assert_eq!(before(&t(10)), [("/w/a.txt".into(), text("two\n"))]);
    // Back to before the first: a.txt as it was, b.txt did not exist.
    assert_eq!(
        before(&t(0)),
        [
            ("/w/a.txt".into(), text("one\n")),
            ("/w/b.txt".into(), Before::Missing)
        ]
    );
    assert!(before(&t(20)).is_empty(), "a later prompt wrote nothing");
}

#[test]
fn forgetting_the_put_back_writes_keeps_the_earlier_ones() {
    let mut edits = two_turns();
    edits.forget_since(&t(10));
    assert_eq!(edits.edits.len(), 2);
    assert!(edits.since(&t(10)).is_empty());
    assert_eq!(edits.since(&t(0)).len(), 2);
}

#[test]
fn the_record_is_bounded() {
    let mut edits = EditorEdits::default();
    let big = "x".repeat(MAX_FILE_BYTES + 1);
    edits.note(&t(0), &t(1), Path::new("/w/big"), Some(&big));
    assert_eq!(
        edits.edits[0].before,
        Before::TooLarge {
            bytes: big.len() as u64
        },
        "a file over the per-file bound is not kept"
    );
    let chunk = "y".repeat(MAX_FILE_BYTES);
    for i in 0..(MAX_KEPT_BYTES / MAX_FILE_BYTES + 1) {
        let path = format!("/w/f{i}");
        edits.note(&t(2), &t(3 + i as u8), Path::new(&path), Some(&chunk));
    }
    let kept: usize = edits
        .edits
        .iter()
        .map(|e| match &e.before {
            Before::Text { text } => text.len(),
            _ => 0,
        })
        .sum();
    assert!(kept <= MAX_KEPT_BYTES, "{kept}");
    assert!(edits.edits.iter().all(|e| e.path != Path::new("/w/f0")));
    assert!(edits.forgot_since(&t(0)), "the confirm can say so");
    assert!(!edits.forgot_since(&t(30)));
}

#[test]
fn the_record_lives_beside_the_transcript_owner_only_and_a_broken_one_is_ignored() {
    let (config, cwd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    assert!(
        editor_edits_path(config.path(), ID).is_err(),
        "no transcript yet"
    );
    let transcript = write_session(
        config.path(),
        cwd.path(),
        ID,
        &[user_line("p1", None, cwd.path(), "first")],
        0,
    );
    let path = editor_edits_path(config.path(), ID).unwrap();
    assert_eq!(path.parent().unwrap(), transcript.with_extension(""));
    assert_eq!(load_editor_edits(&path), EditorEdits::default());

    let edits = two_turns();
    save_editor_edits(&path, &edits).unwrap();
    assert_eq!(load_editor_edits(&path), edits);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "owner-only: {mode:o}");
    }

    std::fs::write(&path, "{not json").unwrap();
    assert_eq!(load_editor_edits(&path), EditorEdits::default());
    assert!(crate::history::delete(config.path(), ID).unwrap());
    assert!(!path.exists(), "removed with the session");
}
