//! Listing stored sessions for `session/list`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::*;
use crate::domain::SessionSummary;
use crate::history::{HistoryError, Listings, list, project_slug};

fn titles(sessions: &[SessionSummary]) -> Vec<Option<String>> {
    sessions.iter().map(|s| s.title.clone()).collect()
}

#[test]
fn the_fixture_sessions_are_listed_with_their_first_prompt_as_title() {
    let page = list(&fixture_config_dir(), Some(&fixture_cwd()), None, 0).unwrap();
    let mut found: Vec<(String, Option<String>)> = page
        .sessions
        .iter()
        .map(|s| (s.session_id.clone(), s.title.clone()))
        .collect();
    found.sort();
    let mut expected = vec![
        (
            fixture_session(),
            Some("Create notes.txt with two lines, then show it.".to_owned()),
        ),
        (
            fixture_extras_session(),
            Some("Describe this image".to_owned()),
        ),
    ];
    expected.sort();
    assert_eq!(found, expected);
    assert!(page.sessions.iter().all(|s| s.cwd == fixture_cwd()));
    assert!(page.sessions.iter().all(|s| s.updated_at.is_some()));
    assert_eq!(page.next_cursor, None);
}

/// 25 sessions: 15 in `a`, 10 in `b`, session `n` modified `n` seconds after a fixed instant.
fn many_sessions(config: &Path) -> (PathBuf, PathBuf) {
    let (a, b) = (PathBuf::from("/projects/a"), PathBuf::from("/projects/b"));
    for n in 0..25u64 {
        let cwd = if n % 5 < 3 { &a } else { &b };
        let id = format!("session-{n:02}");
        write_session(
            config,
            cwd,
            &id,
            &[user_line("u", None, cwd, &format!("prompt {n}"))],
            n,
        );
    }
    (a, b)
}

#[test]
fn pages_cover_every_session_once_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    many_sessions(dir.path());
    let mut seen = Vec::new();
    let mut cursor = None;
    let mut pages = Vec::new();
    loop {
        let page = list(dir.path(), None, cursor.as_deref(), 10).unwrap();
        pages.push(page.sessions.len());
        seen.extend(page.sessions.into_iter().map(|s| s.session_id));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
        assert!(pages.len() < 10, "paging does not end");
    }
    assert_eq!(pages, [10, 10, 5]);
    let expected: Vec<String> = (0..25).rev().map(|n| format!("session-{n:02}")).collect();
    assert_eq!(seen, expected);
}

#[test]
fn a_cwd_lists_only_its_own_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _b) = many_sessions(dir.path());
    let page = list(dir.path(), Some(&a), None, 100).unwrap();
    assert_eq!(page.sessions.len(), 15);
    assert!(page.sessions.iter().all(|s| s.cwd == a));
    assert_eq!(page.sessions[0].title.as_deref(), Some("prompt 22"));
    // RFC 3339 from the file's mtime: 1_800_000_022 s after the epoch.
    assert_eq!(
        page.sessions[0].updated_at.as_deref(),
        Some("2027-01-15T08:00:22.000Z")
    );
    let second = list(dir.path(), Some(&a), None, 7).unwrap();
    let rest = list(dir.path(), Some(&a), second.next_cursor.as_deref(), 100).unwrap();
    let ids: HashSet<_> = second
        .sessions
        .iter()
        .chain(&rest.sessions)
        .map(|s| &s.session_id)
        .collect();
    assert_eq!(
        (second.sessions.len(), rest.sessions.len(), ids.len()),
        (7, 8, 15)
    );
    assert_eq!(rest.next_cursor, None);
}

/// Every page of one listing, `between(page number)` run after each page but the last; the ids
/// in the order given.
fn every_page(
    listings: &Listings,
    config: &Path,
    page_size: usize,
    mut between: impl FnMut(usize, &str),
) -> Vec<String> {
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for page_number in 1.. {
        let page = listings
            .page(config, None, cursor.as_deref(), page_size)
            .unwrap();
        seen.extend(page.sessions.into_iter().map(|s| s.session_id));
        match page.next_cursor {
            Some(next) => {
                between(page_number, &next);
                cursor = Some(next);
            }
            None => break,
        }
        assert!(page_number < 20, "paging does not end");
    }
    seen
}

fn newest_first(range: std::ops::Range<u64>) -> Vec<String> {
    range.rev().map(|n| format!("session-{n:02}")).collect()
}

/// Appends a line to a stored session and makes it the newest.
fn write_to(config: &Path, cwd: &Path, id: &str, at_secs: u64) {
    let file = config
        .join("projects")
        .join(project_slug(cwd))
        .join(format!("{id}.jsonl"));
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str(&format!("{}\n", assistant_line("later", "u", "more")));
    std::fs::write(&file, text).unwrap();
    set_modified(
        &file,
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_800_000_000 + at_secs),
    );
}

#[test]
fn a_session_written_to_between_pages_keeps_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = many_sessions(dir.path());
    let listings = Listings::default();
    // After the first page (24..15): one session already given and one still to come are
    // written to, which makes each the newest in the store.
    let seen = every_page(&listings, dir.path(), 10, |page, _| {
        if page == 1 {
            write_to(dir.path(), &a, "session-20", 100);
            write_to(dir.path(), &b, "session-08", 101);
        }
    });
    assert_eq!(
        seen,
        newest_first(0..25),
        "each once, in the first page's order"
    );
    let fresh = list(dir.path(), None, None, 2).unwrap();
    let ids: Vec<_> = fresh
        .sessions
        .iter()
        .map(|s| s.session_id.as_str())
        .collect();
    assert_eq!(
        ids,
        ["session-08", "session-20"],
        "a new listing sees the writes"
    );
}

#[test]
fn a_session_added_or_deleted_between_pages_neither_repeats_nor_skips_another() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = many_sessions(dir.path());
    let listings = Listings::default();
    let delete = |id: &str| {
        let (file, _) = crate::history::find(dir.path(), id).unwrap();
        std::fs::remove_file(file).unwrap();
    };
    let seen = every_page(&listings, dir.path(), 10, |page, _| match page {
        1 => {
            write_session(
                dir.path(),
                &a,
                "brand-new",
                &[user_line("u", None, &a, "new")],
                100,
            );
            // One given already, one still to come.
            delete("session-22");
            delete("session-10");
        }
        2 => {
            // The session the cursor names (given last), and one still to come.
            delete("session-04");
            delete("session-02");
        }
        _ => {}
    });
    let expected: Vec<String> = newest_first(0..25)
        .into_iter()
        .filter(|id| id != "session-10" && id != "session-02")
        .collect();
    assert_eq!(seen, expected);
    let fresh = list(dir.path(), None, None, 1).unwrap();
    assert_eq!(fresh.sessions[0].session_id, "brand-new");
}

#[test]
fn another_process_goes_on_from_a_cursor_and_skips_nothing_written_since() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = many_sessions(dir.path());
    // Unchanged store: a new process's pages are the same pages.
    let mut seen = Vec::new();
    let first = Listings::default()
        .page(dir.path(), None, None, 10)
        .unwrap();
    seen.extend(first.sessions.iter().map(|s| s.session_id.clone()));
    let cursor = first.next_cursor.unwrap();
    assert!(cursor.starts_with("claude-acp-list-v2:"), "{cursor}");
    let second = list(dir.path(), None, Some(&cursor), 10).unwrap();
    seen.extend(second.sessions.iter().map(|s| s.session_id.clone()));
    let rest = list(dir.path(), None, second.next_cursor.as_deref(), 10).unwrap();
    seen.extend(rest.sessions.iter().map(|s| s.session_id.clone()));
    assert_eq!((seen, rest.next_cursor), (newest_first(0..25), None));

    // Written to after the first page, then read by a process that did not serve it: the
    // session still to come is given (first: its old place is gone), the one given already may
    // be given again; nothing is skipped.
    write_to(dir.path(), &b, "session-08", 100);
    write_to(dir.path(), &a, "session-20", 101);
    let mut later = Vec::new();
    let listings = Listings::default();
    let mut next = Some(cursor);
    while let Some(cursor) = next {
        let page = listings.page(dir.path(), None, Some(&cursor), 10).unwrap();
        later.extend(page.sessions.into_iter().map(|s| s.session_id));
        next = page.next_cursor;
    }
    let mut expected: Vec<String> = vec!["session-08".into(), "session-20".into()];
    expected.extend(
        newest_first(0..15)
            .into_iter()
            .filter(|id| id != "session-08"),
    );
    assert_eq!(later, expected);
}

#[test]
fn a_cursor_of_the_version_before_goes_on_from_its_position() {
    let dir = tempfile::tempdir().unwrap();
    many_sessions(dir.path());
    let nanos = (1_800_000_000u128 + 15) * 1_000_000_000;
    let old = format!("claude-acp-list-v1:{nanos}:session-15");
    let page = list(dir.path(), None, Some(&old), 100).unwrap();
    let ids: Vec<String> = page.sessions.into_iter().map(|s| s.session_id).collect();
    assert_eq!(ids, newest_first(0..15));
}

#[test]
fn titles_prefer_the_given_name_then_claudes_then_the_first_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = PathBuf::from("/titles");
    let prompt = user_line("u", None, &cwd, "  fix the\n  login bug  ");
    write_session(dir.path(), &cwd, "plain", std::slice::from_ref(&prompt), 1);
    write_session(
        dir.path(),
        &cwd,
        "ai",
        &[
            prompt.clone(),
            json!({"type": "ai-title", "aiTitle": "Fix login bug", "sessionId": "ai"}),
        ],
        2,
    );
    write_session(
        dir.path(),
        &cwd,
        "renamed",
        &[
            json!({"type": "custom-title", "customTitle": "first name", "sessionId": "renamed"}),
            prompt.clone(),
            json!({"type": "ai-title", "aiTitle": "Fix login bug", "sessionId": "renamed"}),
            json!({"type": "custom-title", "customTitle": "My login work", "sessionId": "renamed"}),
        ],
        3,
    );
    let long = "word ".repeat(40);
    write_session(
        dir.path(),
        &cwd,
        "long",
        &[user_line("u", None, &cwd, &long)],
        4,
    );
    let command = json!({"type": "user", "cwd": cwd, "message": {"role": "user", "content":
        "<command-name>/usage</command-name>\n<command-message>usage</command-message>\n<command-args></command-args>"}});
    write_session(dir.path(), &cwd, "command", &[command], 5);
    write_session(
        dir.path(),
        &cwd,
        "empty",
        &[json!({"type": "queue-operation", "operation": "enqueue", "sessionId": "empty"})],
        6,
    );

    let page = list(dir.path(), Some(&cwd), None, 0).unwrap();
    let ids: Vec<&str> = page
        .sessions
        .iter()
        .map(|s| s.session_id.as_str())
        .collect();
    assert_eq!(
        ids,
        ["command", "long", "renamed", "ai", "plain"],
        "empty sessions are left out"
    );
    let titles = titles(&page.sessions);
    assert_eq!(titles[0].as_deref(), Some("/usage"));
    let long_title = titles[1].clone().unwrap();
    assert_eq!(long_title.chars().count(), 80);
    assert!(
        long_title.starts_with("word word") && long_title.ends_with('…'),
        "{long_title}"
    );
    assert_eq!(titles[2].as_deref(), Some("My login work"));
    assert_eq!(titles[3].as_deref(), Some("Fix login bug"));
    assert_eq!(
        titles[4].as_deref(),
        Some("fix the"),
        "the first prompt's first line"
    );
}

#[test]
fn cwds_that_share_a_slug_are_told_apart_by_the_recorded_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let (dashed, nested) = (PathBuf::from("/a/b-c"), PathBuf::from("/a/b/c"));
    assert_eq!(project_slug(&dashed), project_slug(&nested));
    write_session(
        dir.path(),
        &dashed,
        "dashed",
        &[user_line("u", None, &dashed, "x")],
        1,
    );
    write_session(
        dir.path(),
        &nested,
        "nested",
        &[user_line("u", None, &nested, "y")],
        2,
    );
    let page = list(dir.path(), Some(&nested), None, 0).unwrap();
    let ids: Vec<&str> = page
        .sessions
        .iter()
        .map(|s| s.session_id.as_str())
        .collect();
    assert_eq!(ids, ["nested"]);
}

#[test]
fn the_slug_replaces_every_non_alphanumeric_utf16_unit() {
    assert_eq!(
        project_slug(Path::new("/home/me/my.app")),
        "-home-me-my-app"
    );
    assert_eq!(
        project_slug(Path::new("/tmp/claude-acp_x")),
        "-tmp-claude-acp-x"
    );
    // é is one UTF-16 unit, 🦀 two.
    assert_eq!(project_slug(Path::new("/café/🦀")), "-caf----");
}

#[test]
fn a_long_cwd_is_found_under_its_truncated_hashed_folder() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = PathBuf::from(format!("/deep/{}", "segment/".repeat(30)));
    let slug = project_slug(&cwd);
    assert!(slug.len() > 200);
    let folder = dir
        .path()
        .join("projects")
        .join(format!("{}-1abc2de", &slug[..200]));
    std::fs::create_dir_all(&folder).unwrap();
    let line = user_line("u", None, &cwd, "deep work");
    std::fs::write(folder.join("deep.jsonl"), format!("{line}\n")).unwrap();
    let page = list(dir.path(), Some(&cwd), None, 0).unwrap();
    assert_eq!(titles(&page.sessions), [Some("deep work".to_owned())]);
    let (file, found_cwd) = crate::history::find(dir.path(), "deep").unwrap();
    assert_eq!((file, found_cwd), (folder.join("deep.jsonl"), cwd));
}

#[test]
fn a_bad_cursor_is_an_error_and_a_missing_config_dir_an_empty_list() {
    let dir = tempfile::tempdir().unwrap();
    many_sessions(dir.path());
    for bad in [
        "",
        "garbage",
        "claude-acp-list-v1:notanumber:x",
        "claude-acp-list-v2:zz:1:2:3:x",
        "claude-acp-list-v2:ab:1:2",
    ] {
        assert!(
            matches!(
                list(dir.path(), None, Some(bad), 10),
                Err(HistoryError::InvalidCursor(_))
            ),
            "{bad:?}"
        );
    }
    let missing = dir.path().join("no-such-config");
    let page = list(&missing, None, None, 10).unwrap();
    assert!(page.sessions.is_empty() && page.next_cursor.is_none());
}

#[test]
fn is_listed_agrees_with_the_listing_for_a_cwd_and_for_every_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("work");
    let mut answer_only = assistant_line("a1", "u0", "Hi.");
    answer_only["cwd"] = json!(cwd);
    write_session(dir.path(), &cwd, "answer-only", &[answer_only], 1);
    write_session(
        dir.path(),
        &cwd,
        "whole",
        &[user_line("u1", None, &cwd, "hello")],
        2,
    );
    for (id, wanted) in [("answer-only", Some(cwd.as_path())), ("answer-only", None)]
        .into_iter()
        .chain([
            ("whole", Some(cwd.as_path())),
            ("whole", None),
            ("absent", None),
        ])
    {
        let page = list(dir.path(), wanted, None, 0).unwrap();
        let shown = page.sessions.iter().any(|s| s.session_id == id);
        assert_eq!(
            crate::history::is_listed(dir.path(), wanted, id),
            shown,
            "{id} for {wanted:?}"
        );
    }
    assert!(!crate::history::is_listed(dir.path(), None, "answer-only"));
}

/// A tool line of MiBs after the first prompt (a Write's file) is read past, not held: the title
/// stored after it is still found.
#[test]
fn a_title_after_a_huge_tool_line_is_found() {
    let config = tempfile::tempdir().unwrap();
    let cwd = PathBuf::from("/projects/big");
    let file = "x".repeat(3 * 1024 * 1024);
    write_session(
        config.path(),
        &cwd,
        "big",
        &[
            user_line("u1", None, &cwd, "Write the big file"),
            json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "message": {"role": "assistant",
                   "content": [{"type": "tool_use", "id": "t", "name": "Write", "input": {"content": file}}]}}),
            json!({"type": "custom-title", "customTitle": "The big file", "sessionId": "big"}),
        ],
        0,
    );
    assert_eq!(
        crate::history::list::stored_title(config.path(), "big").as_deref(),
        Some("The big file")
    );
}
