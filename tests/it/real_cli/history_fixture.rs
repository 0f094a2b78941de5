//! Regenerates `fixtures/history/`: a real claude transcript (`<HOME>/.claude/projects/<slug>/<id>.jsonl`)
//! written by the pinned CLI against the mock API, with text, thinking, an allowed Write, an allowed Bash,
//! an allowed Edit and a denied Bash, then resumed by a second claude process for one more turn; and a second
//! session with an image prompt, `/cost` and `/compact`. Ignored: run it by hand when the pinned CLI changes
//! (`CLAUDE_ACP_REGENERATE_HISTORY=1 cargo test --test it regenerate_history_fixture -- --ignored`), then review the diff of the fixture.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::mock_api::{Block, MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use crate::support::stream_json::StreamJsonProcess;
use serde_json::{Value, json};

const STEP: Duration = Duration::from_secs(60);

/// The session id the fixture is stored under (fixed so the fixture's path is stable).
const SESSION_ID: &str = "5b0c7f4e-2a55-4c1e-9d4b-6f1e0a9c3d21";
/// A second session: image prompt, `/cost`, `/compact`.
const EXTRAS_SESSION_ID: &str = "9e3d2c1b-7a6f-4e5d-8c4b-3a2f1e0d9c8b";
/// A 1x1 red PNG.
const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

fn is_result(message: &Value) -> bool {
    message["type"] == "result"
}

fn is_permission_ask(message: &Value) -> bool {
    message["type"] == "control_request" && message["request"]["subtype"] == "can_use_tool"
}

/// Reads to the end of the turn, answering every permission ask with `answer(tool_name)`.
async fn run_turn(claude: &mut StreamJsonProcess, prompt: &str, answer: impl Fn(&str) -> Value) {
    claude.send_user_text(prompt).await;
    loop {
        let message = claude
            .read_until("permission ask or result", STEP, |m| {
                is_result(m) || is_permission_ask(m)
            })
            .await;
        if is_result(&message) {
            return;
        }
        let tool = message["request"]["tool_name"].as_str().unwrap_or_default();
        let id = message["request_id"]
            .as_str()
            .expect("request_id")
            .to_string();
        claude.answer_control(&id, answer(tool)).await;
    }
}

/// Rewrites the fixture only when asked (`CLAUDE_ACP_REGENERATE_HISTORY=1`): CI's
/// `--include-ignored` runs it too, and must leave `fixtures/` as committed.
#[tokio::test]
#[ignore = "regenerates fixtures/history from the real CLI; run by hand"]
async fn regenerate_history_fixture() {
    if std::env::var("CLAUDE_ACP_REGENERATE_HISTORY").as_deref() != Ok("1") {
        return;
    }
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    let work = env.work_dir();
    let notes = work.join("notes.txt");
    mock.push_rule(Rule::on_prompt(
        "Create notes.txt",
        Reply::blocks(vec![
            Block::Thinking("The user wants a notes file; I will write it, then show it.".into()),
            Block::Text("I'll create notes.txt for you.".into()),
            Block::ToolUse {
                name: "Write".into(),
                input: json!({"file_path": notes, "content": "first line\nsecond line\n"}),
            },
        ]),
    ));
    mock.push_rule(Rule::on_tool_result_containing(
        "File created successfully",
        Reply::blocks(vec![Block::ToolUse {
            name: "Bash".into(),
            input: json!({"command": "cat notes.txt", "description": "Show notes.txt"}),
        }]),
    ));
    mock.push_rule(Rule::on_tool_result_containing(
        "second line",
        Reply::text("notes.txt now holds two lines."),
    ));
    mock.push_rule(Rule::on_prompt(
        "Change the second line",
        Reply::blocks(vec![Block::ToolUse {
            name: "Edit".into(),
            input: json!({"file_path": notes, "old_string": "second line",
                          "new_string": "2nd line", "replace_all": false}),
        }]),
    ));
    mock.push_rule(Rule::on_tool_result_containing(
        "has been updated",
        Reply::blocks(vec![Block::ToolUse {
            name: "Bash".into(),
            input: json!({"command": "rm -f notes.txt", "description": "Delete notes.txt"}),
        }]),
    ));
    mock.push_rule(Rule::on_tool_result(Reply::blocks(vec![
        Block::Thinking("The deletion was refused, so I stop here.".into()),
        Block::Text("Edited the line; I did not delete the file since you declined.".into()),
    ])));

    let mut claude = StreamJsonProcess::spawn(env.claude_stream_json(["--session-id", SESSION_ID]));
    run_turn(
        &mut claude,
        "Create notes.txt with two lines, then show it.",
        |_| json!({"behavior": "allow"}),
    )
    .await;
    run_turn(
        &mut claude,
        "Change the second line to \"2nd line\".",
        |tool| match tool {
            "Bash" => {
                json!({"behavior": "deny", "message": "The user declined to delete the file."})
            }
            _ => json!({"behavior": "allow"}),
        },
    )
    .await;
    let status = claude.finish(STEP).await;
    assert!(status.success(), "claude exited with {status}");

    // The same session resumed by a new claude process: one more turn in the same transcript.
    mock.push_rule(Rule::on_prompt(
        "Anything else",
        Reply::text("Nothing else: notes.txt is done."),
    ));
    let mut claude = StreamJsonProcess::spawn(env.claude_stream_json(["--resume", SESSION_ID]));
    run_turn(
        &mut claude,
        "Anything else to do?",
        |_| json!({"behavior": "allow"}),
    )
    .await;
    let status = claude.finish(STEP).await;
    assert!(status.success(), "claude exited with {status}");

    // A second session in the same project: an image prompt, a local slash command, a compaction.
    mock.push_rule(Rule::on_prompt(
        "create a detailed summary of the conversation",
        Reply::text(
            "<analysis>Short.</analysis>\n<summary>The user asked what an image shows.</summary>",
        ),
    ));
    mock.push_rule(Rule::on_prompt(
        "Describe this image",
        Reply::text("A single red pixel."),
    ));
    let mut claude =
        StreamJsonProcess::spawn(env.claude_stream_json(["--session-id", EXTRAS_SESSION_ID]));
    claude
        .send(&json!({"type": "user", "parent_tool_use_id": null, "message": {"role": "user",
            "content": [
                {"type": "text", "text": "Describe this image"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": RED_PIXEL_PNG}}
            ]}}))
        .await;
    claude.read_until("result", STEP, is_result).await;
    for command in ["/cost", "/compact"] {
        claude.send_user_text(command).await;
        claude.read_until("result", STEP, is_result).await;
    }
    let status = claude.finish(STEP).await;
    assert!(status.success(), "claude exited with {status}");

    let transcript = find_transcript(&env.home_dir().join(".claude/projects"), SESSION_ID);
    let extras = transcript.with_file_name(format!("{EXTRAS_SESSION_ID}.jsonl"));
    let slug_dir = transcript.parent().expect("project dir");
    let slug = slug_dir
        .file_name()
        .expect("slug")
        .to_string_lossy()
        .into_owned();
    let fixture_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/history");
    let target = fixture_dir.join("projects").join(&slug);
    std::fs::create_dir_all(&target).expect("fixture dir");
    std::fs::copy(&transcript, target.join(format!("{SESSION_ID}.jsonl"))).expect("copy");
    std::fs::copy(&extras, target.join(format!("{EXTRAS_SESSION_ID}.jsonl"))).expect("copy");
    std::fs::write(
        fixture_dir.join("paths.json"),
        serde_json::to_string_pretty(&json!({
            "home": env.home_dir(),
            "cwd": work,
            "slug": slug,
            "session_id": SESSION_ID,
            "extras_session_id": EXTRAS_SESSION_ID,
        }))
        .unwrap()
            + "\n",
    )
    .expect("paths.json");
    eprintln!("fixture written from {}", transcript.display());
}

fn find_transcript(projects: &Path, session_id: &str) -> PathBuf {
    let mut found = Vec::new();
    for project in std::fs::read_dir(projects).expect("projects dir") {
        let project = project.expect("entry").path();
        for file in std::fs::read_dir(&project).expect("project dir") {
            let file = file.expect("entry").path();
            if file
                .file_name()
                .is_some_and(|n| *n == *format!("{session_id}.jsonl"))
            {
                found.push(file);
            }
        }
    }
    assert_eq!(found.len(), 1, "one transcript expected: {found:?}");
    found.remove(0)
}
