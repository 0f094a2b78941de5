//! claude-acp driving the real pinned Claude Code CLI, offline against the scripted mock API: what an
//! editor shows for each kind of turn, and what reached the model. Every test has its own mock, its
//! own environment and its own adapter, so they run in parallel.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::acp_client::AcpClient;
use support::mock_api::{Block, MockApi, Reply, Rule};
use support::procs;
use support::real_cli::ClaudeEnv;

/// One adapter with one session, on its own mock and environment.
struct RealSession {
    mock: MockApi,
    env: ClaudeEnv,
    client: AcpClient,
    id: String,
    started: Instant,
}

impl RealSession {
    /// Starts the adapter in a fresh environment and opens one session in its work dir. Rules that
    /// need the work dir are pushed afterwards with `mock.push_rule`.
    async fn start(rules: Vec<Rule>) -> RealSession {
        Self::start_with_env(rules, &[]).await
    }

    async fn start_with_env(rules: Vec<Rule>, vars: &[(&str, &str)]) -> RealSession {
        let started = Instant::now();
        let mock = MockApi::start(rules);
        let mut env = ClaudeEnv::new(&mock).with_env("RUST_LOG", "claude_acp=debug,info");
        for (key, value) in vars {
            env = env.with_env(*key, *value);
        }
        let client = AcpClient::from_command(env.command(env!("CARGO_BIN_EXE_claude-acp")));
        client.initialize().await;
        let id = client.new_session(env.work_dir()).await;
        RealSession {
            mock,
            env,
            client,
            id,
            started,
        }
    }

    async fn prompt(&self, text: &str) -> Value {
        self.client
            .prompt(&self.id, text)
            .await
            .unwrap_or_else(|e| {
                panic!("prompt {text:?} failed: {e}\n{}", self.client.diagnostics())
            })
    }

    /// A tool call as the editor shows it at the end of the turn.
    fn tool_call(&self, call: &Value) -> Value {
        let id = call["toolCallId"].as_str().expect("toolCallId");
        self.client
            .tool_call_state(&self.id, id)
            .expect("announced tool call")
    }

    /// The one tool call of this turn announced for `tool`, as the editor shows it now.
    fn only_tool_call(&self, kind: &str) -> Value {
        let calls: Vec<Value> = self
            .client
            .tool_calls(&self.id)
            .iter()
            .map(|call| self.tool_call(call))
            .filter(|call| call["kind"] == kind)
            .collect();
        assert_eq!(calls.len(), 1, "one {kind} tool call: {calls:#?}");
        calls.into_iter().next().unwrap()
    }

    /// How many responses the adapter sent to this session's `session/prompt` requests.
    fn prompt_responses(&self) -> usize {
        let ids: Vec<Value> = self
            .client
            .sent()
            .iter()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|m| m["method"] == "session/prompt")
            .map(|m| m["id"].clone())
            .collect();
        self.client
            .transcript()
            .iter()
            .filter(|m| m.get("method").is_none() && ids.contains(&m["id"]))
            .count()
    }

    /// Fails when the scenario took longer than it should (a hang that happened to resolve).
    fn assert_quick(&self) {
        let took = self.started.elapsed();
        eprintln!("scenario took {took:?}");
        assert!(took < Duration::from_secs(15), "scenario took {took:?}");
    }
}

/// Text of the content of a tool call (its output as the editor renders it).
fn content_text(call: &Value) -> String {
    serde_json::to_string(&call["content"]).unwrap_or_default()
}

#[tokio::test]
async fn a_text_answer_streams_in_several_chunks() {
    let answer = "Hello from the real CLI, streamed through the adapter in pieces.";
    let s = RealSession::start(vec![Rule::on_prompt(
        "say hello",
        Reply::text(answer).chunk_chars(6),
    )])
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
        support::acp_client::choose_permission("reject_once"),
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
async fn cancel_mid_stream_returns_cancelled_once_and_the_next_prompt_works() {
    let s = RealSession::start(vec![
        Rule::on_prompt(
            "long story",
            Reply::text("Once upon a time there was a mock that never finished its story.")
                .chunk_chars(4)
                .stall_after(6),
        ),
        Rule::on_prompt("hello again", Reply::text("Back after the cancel.")),
    ])
    .await;

    let (stop, ()) = tokio::join!(s.client.prompt(&s.id, "tell me a long story"), async {
        s.client
            .wait_for_update(
                |u| u["update"]["sessionUpdate"] == "agent_message_chunk",
                Duration::from_secs(20),
            )
            .await;
        s.client.cancel(&s.id).await;
    });
    let stop = stop.unwrap_or_else(|e| panic!("{e}\n{}", s.client.diagnostics()));
    assert_eq!(stop["stopReason"], "cancelled");
    let shown_before = s.client.agent_text(&s.id);
    assert!(shown_before.starts_with("Once"), "{shown_before}");

    let stop = s.prompt("hello again").await;
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        s.client
            .agent_text(&s.id)
            .ends_with("Back after the cancel."),
        "{}",
        s.client.agent_text(&s.id)
    );
    // A late second answer to either prompt would show up here.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(s.prompt_responses(), 2, "exactly one answer per prompt");
    assert_eq!(s.mock.requests().len(), 2);
    s.assert_quick();
}

/// The claude process the adapter runs for its session (not its helpers, not the adapter).
fn claude_pid(adapter: u32) -> Option<u32> {
    procs::children_of(adapter).into_iter().find(|&pid| {
        procs::cmdline(pid).is_some_and(|line| line.contains("--input-format stream-json"))
    })
}

fn kill_claude(adapter: u32) -> u32 {
    let pid = claude_pid(adapter).expect("claude runs under the adapter");
    // SAFETY: kill(2) on a pid we just found as our adapter's child.
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    pid
}

/// Waits until claude has written `text` into its stored conversation `<HOME>/.claude/projects/*/<id>.jsonl`.
/// claude writes it a little after it sends the request to the API, not before.
async fn wait_until_stored(env: &ClaudeEnv, id: &str, text: &str) {
    let projects = env.home_dir().join(".claude/projects");
    let file_name = format!("{id}.jsonl");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let stored = std::fs::read_dir(&projects)
            .into_iter()
            .flatten()
            .flatten()
            .map(|project| project.path().join(&file_name))
            .any(|file| std::fs::read_to_string(file).is_ok_and(|t| t.contains(text)));
        if stored {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "claude never stored {text:?} in {}",
            projects.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn crash_rules() -> Vec<Rule> {
    vec![
        Rule::on_prompt(
            "remember the word pelican",
            Reply::text("Noted, I will remember the pelican for later.")
                .chunk_chars(4)
                .stall_after(6),
        ),
        Rule::on_prompt("which word", Reply::text("The word was pelican.")),
    ]
}

#[tokio::test]
async fn a_crash_mid_turn_is_an_error_and_the_next_prompt_resumes_with_history() {
    let s = RealSession::start(crash_rules()).await;

    let (result, killed) =
        tokio::join!(s.client.prompt(&s.id, "remember the word pelican"), async {
            s.mock.wait_for_requests(1, Duration::from_secs(20)).await;
            wait_until_stored(&s.env, &s.id, "remember the word pelican").await;
            kill_claude(s.client.pid())
        });
    let err = result.expect_err("a crashed claude ends the prompt with an error");
    assert!(
        err.message.contains("killed by signal 9"),
        "names the exit status: {}",
        err.message
    );
    assert!(procs::wait_until_gone(&[killed], Duration::from_secs(2)).await);

    let stop = s.prompt("which word did I ask you to remember?").await;
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        s.client
            .agent_text(&s.id)
            .ends_with("The word was pelican."),
        "{}",
        s.client.agent_text(&s.id)
    );
    let respawned = claude_pid(s.client.pid()).expect("a new claude runs");
    assert_ne!(respawned, killed);
    assert!(
        procs::cmdline(respawned)
            .unwrap()
            .contains(&format!("--resume {}", s.id)),
        "{:?}",
        procs::cmdline(respawned)
    );
    let requests = s.mock.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1].contains("remember the word pelican"),
        "the resumed conversation carries the earlier prompt: {:#}",
        requests[1].body["messages"]
    );
    s.assert_quick();
}

/// claude stores the conversation only a moment after its first API request, so a crash early in the
/// first turn leaves nothing to `--resume`; claude 2.1.332 then prints an error result "No conversation
/// found with session ID" and exits 1. The session must stay usable: the next prompt works (the lost
/// turn cannot be recovered). The stored file is removed after the kill so the test does not depend on
/// how fast claude writes it.
#[tokio::test]
#[ignore = "adapter bug: a respawn always uses --resume, even when claude never stored the conversation (fix belongs in src/session/actor.rs)"]
async fn a_crash_before_claude_stored_anything_does_not_break_the_session() {
    let s = RealSession::start(crash_rules()).await;

    let (result, killed) =
        tokio::join!(s.client.prompt(&s.id, "remember the word pelican"), async {
            s.mock.wait_for_requests(1, Duration::from_secs(20)).await;
            kill_claude(s.client.pid())
        });
    result.expect_err("a crashed claude ends the prompt with an error");
    assert!(procs::wait_until_gone(&[killed], Duration::from_secs(2)).await);
    forget_stored_conversation(&s.env, &s.id);

    let stop = s.prompt("which word did I ask you to remember?").await;
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        s.client
            .agent_text(&s.id)
            .ends_with("The word was pelican."),
        "{}",
        s.client.agent_text(&s.id)
    );
    s.assert_quick();
}

/// Removes `<HOME>/.claude/projects/*/<id>.jsonl`, as if claude had died before writing it.
fn forget_stored_conversation(env: &ClaudeEnv, id: &str) {
    let file_name = format!("{id}.jsonl");
    for project in std::fs::read_dir(env.home_dir().join(".claude/projects"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let _ = std::fs::remove_file(project.path().join(&file_name));
    }
}

#[tokio::test]
async fn two_sessions_prompted_at_once_each_get_their_own_answer() {
    let s = RealSession::start(vec![
        Rule::on_prompt(
            "apples",
            Reply::text("Apples are red or green.").chunk_delay(Duration::from_millis(20)),
        ),
        Rule::on_prompt(
            "bananas",
            Reply::text("Bananas are yellow.").chunk_delay(Duration::from_millis(20)),
        ),
    ])
    .await;
    let other = s.client.new_session(s.env.work_dir()).await;
    assert_ne!(other, s.id);

    let (a, b) = tokio::join!(
        s.client.prompt(&s.id, "tell me about apples"),
        s.client.prompt(&other, "tell me about bananas")
    );

    assert_eq!(a.unwrap()["stopReason"], "end_turn");
    assert_eq!(b.unwrap()["stopReason"], "end_turn");
    assert_eq!(s.client.agent_text(&s.id), "Apples are red or green.");
    assert_eq!(s.client.agent_text(&other), "Bananas are yellow.");
    let requests = s.mock.requests();
    assert_eq!(requests.len(), 2);
    let sessions: Vec<_> = requests
        .iter()
        .map(|r| r.header("x-claude-code-session-id").map(str::to_owned))
        .collect();
    assert!(sessions.contains(&Some(s.id.clone())), "{sessions:?}");
    assert!(sessions.contains(&Some(other.clone())), "{sessions:?}");
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
