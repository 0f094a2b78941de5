//! claude-acp driving the real pinned Claude Code CLI, offline against the scripted mock API: what an
//! editor shows for each kind of turn (text, thinking, tool calls, plan, usage), and what reached the
//! model. Every test has its own mock, environment and adapter, so they run in parallel.

use crate::on_each_claude;
use crate::support::mock_api::{Block, Reply, Rule};
use crate::support::real_session::{RealSession, content_text};
use serde_json::{Value, json};
use std::time::Duration;

on_each_claude! {
    a_text_answer_streams_in_several_chunks => a_text_answer_streams;
}

async fn a_text_answer_streams(version: &str) {
    let answer = "Hello from the real CLI, streamed through the adapter in pieces.";
    let s = RealSession::start_on(
        version,
        vec![Rule::on_prompt(
            "say hello",
            Reply::text(answer).chunk_chars(6),
        )],
    )
    .await;

    let stop = s.prompt("please say hello").await;

    assert_eq!(stop["stopReason"], "end_turn");
    assert_eq!(s.client.agent_text(&s.id), answer);
    let chunks = s.client.updates_of_kind(&s.id, "agent_message_chunk");
    assert!(chunks.len() > 1, "streamed in {} chunk(s)", chunks.len());
    let requests = s.mock.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].prompt_text().as_deref(),
        Some("please say hello")
    );
    s.assert_quick();
    s.client.close_stdin().await;
    s.client.wait_exit(std::time::Duration::from_secs(5)).await;
    let log = s.client.stderr_text();
    assert!(
        log.lines()
            .any(|l| l.contains("claude's version") && l.trim_end().ends_with(version)),
        "ran claude {version}: {log}"
    );
    assert!(
        !log.contains("too old"),
        "claude {version} is not older than the tested range: {log}"
    );
}

#[tokio::test]
async fn thinking_is_shown_as_thought_chunks() {
    let s = RealSession::start(vec![Rule::on_prompt(
        "think first",
        Reply::blocks(vec![
            Block::Thinking("The user wants me to think before answering.".into()),
            Block::Text("Done thinking.".into()),
        ])
        .chunk_chars(7),
    )])
    .await;

    let stop = s.prompt("think first, then answer").await;

    assert_eq!(stop["stopReason"], "end_turn");
    assert_eq!(
        s.client.thought_text(&s.id),
        "The user wants me to think before answering."
    );
    assert_eq!(s.client.agent_text(&s.id), "Done thinking.");
    s.assert_quick();
}

fn write_rules(s: &RealSession, file: &std::path::Path) {
    s.mock.push_rule(Rule::on_prompt(
        "create notes.txt",
        Reply::blocks(vec![
            Block::Text("I'll create the file.".into()),
            Block::ToolUse {
                name: "Write".into(),
                input: json!({"file_path": file, "content": "remember the milk\n"}),
            },
        ]),
    ));
    s.mock
        .push_rule(Rule::on_tool_result(Reply::text("Finished with the file.")));
}

#[tokio::test]
async fn an_allowed_write_puts_the_file_on_disk() {
    let s = RealSession::start(Vec::new()).await;
    let file = s.env.work_dir().join("notes.txt");
    write_rules(&s, &file);
    s.client.allow_permissions();

    let stop = s.prompt("please create notes.txt").await;

    assert_eq!(stop["stopReason"], "end_turn");
    assert_eq!(
        std::fs::read_to_string(&file).expect("notes.txt written"),
        "remember the milk\n"
    );
    let asks: Vec<_> = s
        .client
        .requests()
        .into_iter()
        .filter(|r| r.method == "session/request_permission")
        .collect();
    assert_eq!(asks.len(), 1, "the user was asked once: {asks:#?}");
    let write = s.only_tool_call("edit");
    assert_eq!(write["status"], "completed", "{write:#}");
    let tool_result = s.mock.last_tool_result_text().expect("a tool_result");
    assert!(
        tool_result.contains("File created successfully"),
        "{tool_result}"
    );
    assert!(
        s.client
            .agent_text(&s.id)
            .ends_with("Finished with the file.")
    );
    s.assert_quick();
}

#[tokio::test]
async fn a_rejected_write_leaves_no_file_and_the_model_hears_the_rejection() {
    let s = RealSession::start(Vec::new()).await;
    let file = s.env.work_dir().join("notes.txt");
    write_rules(&s, &file);
    s.client.on_request(
        "session/request_permission",
        crate::support::acp_client::choose_permission("reject_once"),
    );

    let stop = s.prompt("please create notes.txt").await;

    assert_eq!(stop["stopReason"], "end_turn");
    assert!(!file.exists(), "a rejected Write must not create the file");
    let requests = s.mock.requests();
    assert_eq!(requests.len(), 2, "the rejection went back to the model");
    let results = requests[1].tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].is_error, "{results:?}");
    assert!(
        results[0].text.contains("rejected"),
        "the model is told the user said no: {:?}",
        results[0].text
    );
    let write = s.only_tool_call("edit");
    assert_eq!(write["status"], "failed", "{write:#}");
    assert!(
        content_text(&write).contains("rejected"),
        "the card says why: {write:#}"
    );
    s.assert_quick();
}

#[tokio::test]
async fn read_then_edit_shows_a_diff_and_changes_the_file() {
    let s = RealSession::start(Vec::new()).await;
    let file = s.env.work_dir().join("main.rs");
    std::fs::write(&file, "fn main() {\n    println!(\"hello\");\n}\n").unwrap();
    s.mock.push_rule(Rule::on_prompt(
        "fix main",
        Reply::tool_use("Read", json!({"file_path": file})),
    ));
    s.mock.push_rule(Rule::on_tool_result_containing(
        "println!(\"hello\")",
        Reply::tool_use(
            "Edit",
            json!({"file_path": file, "old_string": "println!(\"hello\");",
                   "new_string": "println!(\"hello, world\");"}),
        ),
    ));
    s.mock
        .push_rule(Rule::on_tool_result(Reply::text("Fixed the greeting.")));
    s.client.allow_permissions();

    let stop = s.prompt("please fix main").await;

    assert_eq!(stop["stopReason"], "end_turn");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "fn main() {\n    println!(\"hello, world\");\n}\n"
    );
    let read = s.only_tool_call("read");
    assert_eq!(read["status"], "completed", "{read:#}");
    let edit = s.only_tool_call("edit");
    assert_eq!(edit["status"], "completed", "{edit:#}");
    let diff = edit["content"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "diff")
        .unwrap_or_else(|| panic!("the Edit card has a diff: {edit:#}"));
    assert_eq!(diff["oldText"], "println!(\"hello\");");
    assert_eq!(diff["newText"], "println!(\"hello, world\");");
    assert!(
        diff["path"].as_str().unwrap().ends_with("main.rs"),
        "{diff}"
    );
    assert_eq!(s.mock.requests().len(), 3);
    s.assert_quick();
}

#[tokio::test]
async fn bash_output_is_shown_and_a_failing_command_is_failed() {
    let s = RealSession::start(Vec::new()).await;
    s.mock.push_rule(Rule::on_prompt(
        "run the commands",
        Reply::tool_use(
            "Bash",
            json!({"command": "echo built-ok-42", "description": "Print a marker"}),
        ),
    ));
    s.mock.push_rule(Rule::on_tool_result_containing(
        "built-ok-42",
        Reply::tool_use(
            "Bash",
            json!({"command": "echo broken-77 >&2; exit 3", "description": "Fail on purpose"}),
        ),
    ));
    s.mock
        .push_rule(Rule::on_tool_result(Reply::text("One worked, one failed.")));
    s.client.allow_permissions();

    let stop = s.prompt("please run the commands").await;

    assert_eq!(stop["stopReason"], "end_turn");
    let calls: Vec<Value> = s
        .client
        .tool_calls(&s.id)
        .iter()
        .map(|c| s.tool_call(c))
        .collect();
    assert_eq!(calls.len(), 2, "{calls:#?}");
    assert_eq!(calls[0]["kind"], "execute");
    assert_eq!(calls[0]["status"], "completed", "{:#}", calls[0]);
    assert!(
        content_text(&calls[0]).contains("built-ok-42"),
        "{:#}",
        calls[0]
    );
    assert_eq!(calls[1]["kind"], "execute");
    assert_eq!(calls[1]["status"], "failed", "{:#}", calls[1]);
    assert!(
        content_text(&calls[1]).contains("broken-77"),
        "{:#}",
        calls[1]
    );
    let failed = s.mock.last_tool_result_text().unwrap();
    assert!(failed.contains("broken-77"), "{failed}");
    s.assert_quick();
}

#[tokio::test]
async fn a_turn_reports_the_context_window_and_its_cost() {
    let s = RealSession::start(vec![Rule::on_prompt("hi", Reply::text("Hello."))]).await;

    s.prompt("hi").await;

    let usage = s.client.updates_of_kind(&s.id, "usage_update");
    let last = usage.last().expect("a usage_update after the turn");
    assert_eq!(last["size"], 1_000_000, "{last}");
    assert!(last["used"].as_u64().unwrap_or(0) > 0, "{last}");
    assert_eq!(last["cost"]["currency"], "USD", "{last}");
    assert!(
        last["cost"]["amount"].as_f64().unwrap_or(0.0) > 0.0,
        "{last}"
    );
    s.assert_quick();
}

/// claude 2.1.332 offers no plan tool by default (neither TodoWrite nor the Task tools);
/// `CLAUDE_CODE_ENABLE_TODO_TOOLS=1` turns on TaskCreate/TaskUpdate, which the editor sees as a plan.
#[tokio::test]
async fn task_tools_become_the_plan() {
    let s = RealSession::start_with_env(
        vec![
            Rule::on_prompt(
                "make a plan",
                Reply::blocks(vec![
                    Block::ToolUse {
                        name: "TaskCreate".into(),
                        input: json!({"subject": "Read the code", "description": "Read src/",
                                      "activeForm": "Reading the code"}),
                    },
                    Block::ToolUse {
                        name: "TaskCreate".into(),
                        input: json!({"subject": "Write the fix", "description": "Fix the bug",
                                      "activeForm": "Writing the fix"}),
                    },
                ]),
            ),
            Rule::on_tool_result_containing(
                "Task #2 created",
                Reply::tool_use(
                    "TaskUpdate",
                    json!({"taskId": "1", "status": "in_progress"}),
                ),
            ),
            Rule::on_tool_result(Reply::text("Plan recorded.")),
        ],
        &[("CLAUDE_CODE_ENABLE_TODO_TOOLS", "1")],
    )
    .await;

    let stop = s.prompt("make a plan").await;

    assert_eq!(stop["stopReason"], "end_turn");
    // With the todo tools on, TaskCreate/TaskUpdate are deferred: named in the request, not in `tools`.
    assert!(
        s.mock.requests()[0].contains("TaskCreate"),
        "the request offers TaskCreate: {:?}",
        s.mock.requests()[0].tool_names()
    );
    let plans = s.client.updates_of_kind(&s.id, "plan");
    let last = plans.last().unwrap_or_else(|| {
        panic!(
            "TaskCreate/TaskUpdate show a plan\n{}",
            s.client.diagnostics()
        )
    });
    let entries = last["entries"].as_array().unwrap();
    let status_of = |content: &str| {
        entries
            .iter()
            .find(|e| e["content"] == content)
            .map(|e| e["status"].clone())
    };
    assert_eq!(entries.len(), 2, "{last:#}");
    assert_eq!(status_of("Read the code"), Some(json!("in_progress")));
    assert_eq!(status_of("Write the fix"), Some(json!("pending")));
    s.assert_quick();
}

/// Editors that show the agent's stderr (agent-shell, in its Notices) show it to the user: at the
/// default level, a turn leaves nothing there that is not for them, no colour codes (stderr is a
/// pipe) and no warning about the messages claude sends that claude-acp does not read
/// (`command_lifecycle`, sent by claude since 2.1.332).
#[tokio::test]
async fn a_turn_leaves_the_editors_stderr_without_warnings_or_colour_codes() {
    let s = RealSession::start_with_env(
        vec![Rule::on_prompt("hello", Reply::text("Hello there."))],
        &[("RUST_LOG", "info")],
    )
    .await;
    assert_eq!(s.prompt("hello").await["stopReason"], "end_turn");
    assert_eq!(s.client.agent_text(&s.id), "Hello there.");
    s.client.quit(Duration::from_secs(10)).await;
    let stderr = s.client.stderr_text();
    assert!(stderr.contains("claude started"), "{stderr}");
    assert!(!stderr.contains('\u{1b}'), "colour codes: {stderr:?}");
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("WARN")).collect();
    assert!(warnings.is_empty(), "{warnings:#?}");
}
