//! The prompts of a stored thread and the rewind record: a rewind holds until a new prompt branches
//! off, a thread rewound before its first prompt is empty, and a broken record is ignored; a fork
//! at a session cursor starts only at a point of the thread claude would resume.

use serde_json::Value;

use super::{assistant_line, user_line, write_session};
use crate::history::{RewindPoint, StoredPrompt, pending_rewind, prompts, record_rewind, replay};

const ID: &str = "4b3a2c1d-0000-4000-8000-000000000001";

fn two_turns(cwd: &std::path::Path) -> Vec<Value> {
    vec![
        user_line("p1", None, cwd, "first"),
        assistant_line("a1", "p1", "one"),
        user_line("p2", Some("a1"), cwd, "second"),
        assistant_line("a2", "p2", "two"),
    ]
}

fn texts(config: &std::path::Path, cwd: &std::path::Path) -> Vec<String> {
    let mut texts: Vec<String> = prompts(config, ID)
        .unwrap()
        .into_iter()
        .map(|p| p.text)
        .collect();
    texts.push(format!(
        "replayed {}",
        replay(config, cwd, ID).unwrap().len()
    ));
    texts
}

#[test]
fn prompts_name_their_uuid_and_the_entry_before_them() {
    let (config, cwd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_session(config.path(), cwd.path(), ID, &two_turns(cwd.path()), 0);
    let found = prompts(config.path(), ID).unwrap();
    let second = StoredPrompt {
        uuid: "p2".into(),
        parent: Some("a1".into()),
        text: "second".into(),
        timestamp: None,
    };
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].parent, None);
    assert_eq!(found[1], second);
}

#[test]
fn a_rewind_holds_until_a_new_prompt_branches_off() {
    let (config, cwd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut lines = two_turns(cwd.path());
    let file = write_session(config.path(), cwd.path(), ID, &lines, 0);
    let point = RewindPoint {
        dropped_prompt: "p2".into(),
        resume_at: Some("a1".into()),
    };
    record_rewind(config.path(), ID, &point).unwrap();
    assert_eq!(pending_rewind(config.path(), ID), Some(point));
    assert_eq!(texts(config.path(), cwd.path()), ["first", "replayed 2"]);

    // claude resumed at a1 and stored a new prompt there: the transcript alone says it all now.
    lines.push(user_line("p3", Some("a1"), cwd.path(), "third"));
    lines.push(assistant_line("a3", "p3", "three"));
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, text).unwrap();
    assert_eq!(pending_rewind(config.path(), ID), None);
    assert_eq!(
        texts(config.path(), cwd.path()),
        ["first", "third", "replayed 4"]
    );
}

#[test]
fn a_thread_rewound_before_its_first_prompt_is_empty_and_a_broken_record_is_ignored() {
    let (config, cwd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let file = write_session(config.path(), cwd.path(), ID, &two_turns(cwd.path()), 0);
    let point = RewindPoint {
        dropped_prompt: "p1".into(),
        resume_at: None,
    };
    record_rewind(config.path(), ID, &point).unwrap();
    assert_eq!(texts(config.path(), cwd.path()), ["replayed 0"]);

    std::fs::write(
        file.with_extension("").join("claude-acp-rewind.json"),
        "{not json",
    )
    .unwrap();
    assert_eq!(pending_rewind(config.path(), ID), None);
    assert_eq!(
        texts(config.path(), cwd.path()),
        ["first", "second", "replayed 4"]
    );
}

#[test]
fn a_fork_starts_at_a_point_of_the_thread_claude_would_resume_and_at_no_other() {
    use crate::domain::ForkPoint::{AfterEntry, BeforePrompt};
    use crate::history::{ForkStart, fork_start};
    let (config, cwd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_session(config.path(), cwd.path(), ID, &two_turns(cwd.path()), 0);
    let at = |point| fork_start(config.path(), ID, &point).unwrap();
    assert_eq!(at(BeforePrompt("p1".into())), Some(ForkStart::Empty));
    assert_eq!(
        at(BeforePrompt("p2".into())),
        Some(ForkStart::At("a1".into()))
    );
    assert_eq!(
        at(AfterEntry("a2".into())),
        Some(ForkStart::At("a2".into()))
    );
    // Not a prompt, not in the transcript.
    assert_eq!(at(BeforePrompt("a1".into())), None);
    assert_eq!(at(AfterEntry("elsewhere".into())), None);

    // `/undo` dropped the second turn: its points are gone from the thread.
    let point = RewindPoint {
        dropped_prompt: "p2".into(),
        resume_at: Some("a1".into()),
    };
    record_rewind(config.path(), ID, &point).unwrap();
    assert_eq!(at(AfterEntry("a2".into())), None);
    assert_eq!(at(BeforePrompt("p2".into())), None);
    assert_eq!(
        at(AfterEntry("a1".into())),
        Some(ForkStart::At("a1".into()))
    );
}
