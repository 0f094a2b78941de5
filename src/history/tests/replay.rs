//! Replaying stored threads for `session/load`.

use std::fs;

use serde_json::{Value, json};

use super::*;
use crate::domain::{ContentChunk, SessionUpdate, ToolContent, ToolKind, ToolStatus};
use crate::history::{HistoryError, replay, replay_file};

/// One line per update, short enough to read as the thread an editor shows.
fn outline(updates: &[SessionUpdate]) -> Vec<String> {
    updates
        .iter()
        .map(|u| match u {
            SessionUpdate::UserMessageChunk { content, .. } => format!("user: {}", chunk(content)),
            SessionUpdate::AgentMessageChunk { content, .. } => {
                format!("agent: {}", chunk(content))
            }
            SessionUpdate::AgentThoughtChunk { content, .. } => {
                format!("thought: {}", chunk(content))
            }
            SessionUpdate::ToolCall(call) => {
                format!("tool {:?} {:?}: {}", call.kind, call.status, call.title)
            }
            SessionUpdate::ToolCallUpdate(update) => format!("update {:?}", update.status),
            other => format!("{other:?}"),
        })
        .collect()
}

fn chunk(content: &ContentChunk) -> String {
    match content {
        ContentChunk::Text { text } => text.clone(),
        ContentChunk::Image { mime_type, .. } => format!("[image {mime_type}]"),
    }
}

fn fixture_replay(id: &str) -> Vec<SessionUpdate> {
    replay(&fixture_config_dir(), &fixture_cwd(), id).expect("fixture replays")
}

#[test]
fn the_fixture_thread_replays_every_block_kind_in_order() {
    let updates = fixture_replay(&fixture_session());
    assert_eq!(
        outline(&updates),
        [
            "user: Create notes.txt with two lines, then show it.",
            "thought: The user wants a notes file; I will write it, then show it.",
            "agent: I'll create notes.txt for you.",
            "tool Edit Pending: Write notes.txt",
            "update Some(Completed)",
            "tool Execute Pending: Run `cat notes.txt`",
            "update Some(Completed)",
            "agent: notes.txt now holds two lines.",
            "user: Change the second line to \"2nd line\".",
            "tool Edit Pending: Edit notes.txt",
            "update Some(Completed)",
            "tool Execute Pending: Run `rm -f notes.txt`",
            "update Some(Failed)",
            "thought: The deletion was refused, so I stop here.",
            "agent: Edited the line; I did not delete the file since you declined.",
            // A later claude process resumed the session: its turn is in the same file.
            "user: Anything else to do?",
            "agent: Nothing else: notes.txt is done.",
        ]
    );
    insta::assert_json_snapshot!("fixture_thread", updates);
}

#[test]
fn tool_results_carry_their_output_and_the_denial_reason() {
    let updates = fixture_replay(&fixture_session());
    let tool_updates: Vec<_> = updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::ToolCallUpdate(update) => Some(update),
            _ => None,
        })
        .collect();
    let bash_output = &tool_updates[1];
    let shown = serde_json::to_string(&bash_output.content).unwrap();
    assert!(
        shown.contains("first line") && shown.contains("second line"),
        "{shown}"
    );
    assert!(
        bash_output.raw_output.is_some(),
        "raw_output is always an object"
    );
    let denied = &tool_updates[3];
    assert_eq!(denied.status, Some(ToolStatus::Failed));
    let shown = serde_json::to_string(&denied.content).unwrap();
    assert!(
        shown.contains("The user declined to delete the file."),
        "{shown}"
    );
    // The Write call shows its diff from the tool use itself.
    let write = updates
        .iter()
        .find_map(|u| match u {
            SessionUpdate::ToolCall(call) if call.kind == ToolKind::Edit => Some(call),
            _ => None,
        })
        .unwrap();
    assert!(
        write
            .content
            .iter()
            .any(|c| matches!(c, ToolContent::Diff { new_text, .. }
            if new_text == "first line\nsecond line\n")),
        "{:?}",
        write.content
    );
}

#[test]
fn images_slash_commands_and_their_output_replay_but_claudes_injections_do_not() {
    let updates = fixture_replay(&fixture_extras_session());
    let outline = outline(&updates);
    assert_eq!(
        outline[..4],
        [
            "user: Describe this image",
            "user: [image image/png]",
            "agent: A single red pixel.",
            // `/cost` is an alias: claude records the command it ran.
            "user: /usage",
        ]
    );
    assert!(
        outline[4].starts_with("agent: Estimated cost:"),
        "{outline:#?}"
    );
    assert_eq!(outline[5..], ["user: /compact", "agent: Compacted"]);
    let all = outline.join("\n");
    assert!(
        !all.contains("[Image: source:"),
        "the meta line about the pasted image is hidden"
    );
    assert!(
        !all.contains("continued from a previous conversation"),
        "the compaction summary is hidden"
    );
    assert!(
        !all.contains("local-command"),
        "no wrapper tags reach the editor"
    );
}

fn temp_copy_of_fixture() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture_config_dir()
        .join("projects")
        .join(crate::history::project_slug(&fixture_cwd()))
        .join(format!("{}.jsonl", fixture_session()));
    let copy = dir.path().join("copy.jsonl");
    fs::copy(source, &copy).unwrap();
    (dir, copy)
}

#[test]
fn a_truncated_last_line_and_unknown_line_types_are_skipped() {
    let (_dir, copy) = temp_copy_of_fixture();
    let whole = replay_file(&copy, &fixture_cwd()).unwrap();
    let mut text = fs::read_to_string(&copy).unwrap();
    text.push_str("{\"type\":\"a-line-type-from-the-future\",\"uuid\":\"x\"}\n");
    text.push_str(
        "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"cut o",
    );
    fs::write(&copy, text).unwrap();
    assert_eq!(replay_file(&copy, &fixture_cwd()).unwrap(), whole);
}

#[test]
fn a_branch_abandoned_by_a_rewind_is_not_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("work");
    let file = write_session(
        dir.path(),
        &cwd,
        "rewound",
        &[
            user_line("u1", None, &cwd, "first question"),
            assistant_line("a1", "u1", "first answer"),
            user_line("u2", Some("a1"), &cwd, "abandoned question"),
            assistant_line("a2", "u2", "abandoned answer"),
            // The person rewound to after a1 and asked again.
            user_line("u3", Some("a1"), &cwd, "second question"),
            assistant_line("a3", "u3", "second answer"),
        ],
        0,
    );
    assert_eq!(
        outline(&replay_file(&file, &cwd).unwrap()),
        [
            "user: first question",
            "agent: first answer",
            "user: second question",
            "agent: second answer",
        ]
    );
}

#[test]
fn a_tool_call_that_never_got_a_result_ends_failed() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("work");
    let tool_use: Value = json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1",
        "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "sleep 100"}}]}});
    let file = write_session(
        dir.path(),
        &cwd,
        "stopped",
        &[user_line("u1", None, &cwd, "wait a while"), tool_use],
        0,
    );
    let updates = replay_file(&file, &cwd).unwrap();
    assert_eq!(
        outline(&updates),
        [
            "user: wait a while",
            "tool Execute Pending: Run `sleep 100`",
            "update Some(Failed)",
        ]
    );
}

#[test]
fn interrupt_markers_and_meta_lines_are_not_shown_as_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("work");
    let mut meta = user_line("m1", Some("u1"), &cwd, "injected context");
    meta["isMeta"] = json!(true);
    let file = write_session(
        dir.path(),
        &cwd,
        "interrupted",
        &[
            user_line("u1", None, &cwd, "do something long"),
            meta,
            json!({"type": "user", "uuid": "i1", "parentUuid": "m1", "message": {"role": "user",
               "content": [{"type": "text", "text": "[Request interrupted by user]"}]}}),
            user_line("u2", Some("i1"), &cwd, "never mind"),
        ],
        0,
    );
    assert_eq!(
        outline(&replay_file(&file, &cwd).unwrap()),
        ["user: do something long", "user: never mind",]
    );
}

#[test]
fn a_session_is_found_by_id_when_the_cwd_does_not_match() {
    let elsewhere = std::path::Path::new("/somewhere/else");
    let updates = replay(&fixture_config_dir(), elsewhere, &fixture_session()).unwrap();
    assert_eq!(updates.len(), 17);
    let (file, cwd) = crate::history::find(&fixture_config_dir(), &fixture_session()).unwrap();
    assert_eq!(cwd, fixture_cwd());
    assert!(file.ends_with(format!("{}.jsonl", fixture_session())));
}

#[test]
fn unknown_and_malformed_ids_are_errors() {
    let config = fixture_config_dir();
    let cwd = fixture_cwd();
    assert!(matches!(
        replay(&config, &cwd, "00000000-0000-0000-0000-000000000000"),
        Err(HistoryError::NotFound(_))
    ));
    for bad in ["../paths", "a/b", "", "x.jsonl"] {
        assert!(
            matches!(
                replay(&config, &cwd, bad),
                Err(HistoryError::InvalidSessionId(_))
            ),
            "{bad:?}"
        );
        assert!(crate::history::find(&config, bad).is_none());
    }
}

#[test]
fn a_tool_output_of_hundreds_of_kib_replays_whole_and_unchanged() {
    let (_dir, copy) = temp_copy_of_fixture();
    let small = replay_file(&copy, &fixture_cwd()).unwrap();
    // 400 KB of command output with every kind of escape a transcript line holds.
    let big: String = (0..8_000)
        .map(|n| format!("{n:05} \"quoted\" back\\slash\ttab \u{1} é 😀 ``ticks``\n"))
        .collect::<String>()
        + "the end";
    let text = fs::read_to_string(&copy).unwrap();
    let mut bash_id = None;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let mut value: Value = serde_json::from_str(line).unwrap();
            if value["toolUseResult"]["stdout"] == "first line\nsecond line" {
                value["message"]["content"][0]["content"] = json!(big);
                value["toolUseResult"]["stdout"] = json!(big);
                bash_id = value["message"]["content"][0]["tool_use_id"]
                    .as_str()
                    .map(str::to_owned);
                return value.to_string();
            }
            line.to_owned()
        })
        .collect();
    let bash_id = bash_id.expect("the fixture's Bash result");
    fs::write(&copy, lines.join("\n") + "\n").unwrap();

    let expected: Vec<SessionUpdate> = small
        .into_iter()
        .map(|update| match update {
            SessionUpdate::ToolCallUpdate(mut update) if update.id == bash_id => {
                update.content = Some(vec![ToolContent::Text {
                    text: format!("```\n{big}\n```"),
                }]);
                let raw = update.raw_output.as_mut().unwrap();
                raw.insert("stdout".into(), json!(big));
                SessionUpdate::ToolCallUpdate(update)
            }
            other => other,
        })
        .collect();
    let replayed = replay_file(&copy, &fixture_cwd()).unwrap();
    let held_once = |update: &SessionUpdate| matches!(update, SessionUpdate::ToolCallUpdate(u) if u.shown_output().is_some());
    assert_eq!(
        replayed.iter().filter(|u| held_once(u)).count(),
        1,
        "the big output is held once, in the card's text"
    );
    // What the editor is sent: `rawOutput` whole.
    let replayed: Vec<SessionUpdate> = replayed
        .into_iter()
        .map(|update| match update {
            SessionUpdate::ToolCallUpdate(mut update) => {
                update.copy_shown_output();
                SessionUpdate::ToolCallUpdate(update)
            }
            other => other,
        })
        .collect();
    assert_eq!(replayed, expected);
}
