//! claude's background jobs with the real pinned claude on the mock API: a command or a subagent
//! run in the background keeps its card `in_progress` after the turn and completes when the job
//! ends, and `_session/async_task/stop` stops one without a turn.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::mock_api::{Reply, Rule};
use crate::support::real_session::RealSession;

const WAIT: Duration = Duration::from_secs(30);

fn background_bash(command: &str) -> Reply {
    Reply::tool_use(
        "Bash",
        json!({"command": command, "description": "A background job", "run_in_background": true}),
    )
}

/// The card of the session's one Bash call, as the editor shows it now.
fn bash_card(s: &RealSession) -> Value {
    s.only_tool_call("execute")
}

/// "start the job", allowed, answered `end_turn` while the job runs: its card, still in progress.
async fn job_started(s: &RealSession) -> Value {
    s.client.allow_permissions();
    let stop = s.prompt("start the job").await;
    assert_eq!(stop["stopReason"], "end_turn");
    let card = bash_card(s);
    assert_eq!(card["status"], "in_progress", "{card}");
    card
}

#[tokio::test]
async fn a_command_that_ends_after_its_turn_completes_its_card_with_its_output() {
    let s = RealSession::start(vec![
        Rule::on_prompt(
            "start the job",
            background_bash("sleep 3; echo the-job-is-done"),
        ),
        Rule::when(
            "claude's follow-up when the job ended",
            |r| r.contains("the-job-is-done") || r.contains("task-notification"),
            Reply::text("The job has finished."),
        ),
        Rule::on_tool_result(Reply::text("Started it.")),
    ])
    .await;
    let card = job_started(&s).await;
    let task = card["_meta"]["claudeCode"]["asyncTaskId"].as_str();
    assert!(task.is_some_and(|t| !t.is_empty()), "{card}");
    // About 3 s later the job ends: its card completes with the output, and claude's own
    // follow-up reaches the editor outside any prompt.
    let c = &s.client;
    c.wait_for_update(
        |u| {
            u["update"]["sessionUpdate"] == "tool_call_update"
                && u["update"]["status"] == "completed"
        },
        WAIT,
    )
    .await;
    let card = bash_card(&s);
    assert_eq!(card["status"], "completed", "{card}");
    let shown = card["content"].to_string();
    assert!(shown.contains("the-job-is-done"), "{card}");
    // claude's follow-up to the job's end (a turn of its own) is shown after the card ends.
    let after_the_end = || {
        let transcript = c.transcript();
        let ended = transcript.iter().position(|m| {
            m["params"]["update"]["status"] == "completed"
                && m["params"]["update"]["sessionUpdate"] == "tool_call_update"
        });
        ended.is_some_and(|at| {
            transcript[at..]
                .iter()
                .any(|m| m["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        })
    };
    let deadline = tokio::time::Instant::now() + WAIT;
    while !after_the_end() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no follow-up after the job ended: {}",
            c.agent_text(&s.id)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    c.quit(WAIT).await;
    assert_eq!(s.prompt_responses(), 1);
}

#[tokio::test]
async fn a_background_job_is_stopped_on_request_without_a_turn() {
    let s = RealSession::start(vec![
        Rule::on_prompt("start the job", background_bash("sleep 30")),
        Rule::on_tool_result(Reply::text("Started it.")),
        Rule::always(Reply::text("Noted.")),
    ])
    .await;
    let card = job_started(&s).await;
    let task = card["_meta"]["claudeCode"]["asyncTaskId"]
        .as_str()
        .unwrap_or_else(|| panic!("no job id on the card: {card}"))
        .to_owned();
    let c = &s.client;
    let stop_job = |id: &str| {
        c.request(
            "_session/async_task/stop",
            json!({"sessionId": s.id, "asyncTaskId": id}),
        )
    };
    let unknown = stop_job("no-such-job")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(unknown, json!({"stopped": false}));
    let stopped = stop_job(&task).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stopped, json!({"stopped": true}));
    // The job's card ends (stopped: not completed), and no turn ran for it.
    c.wait_for_update(
        |u| u["update"]["sessionUpdate"] == "tool_call_update" && u["update"]["status"] == "failed",
        WAIT,
    )
    .await;
    assert_eq!(bash_card(&s)["status"], "failed");
    c.quit(WAIT).await;
    assert_eq!(s.prompt_responses(), 1);
}

/// Whether this request is claude's turn of its own after a background job's notification.
fn answers_a_notification(r: &crate::support::mock_api::ApiRequest) -> bool {
    r.last_user_message()
        .is_some_and(|m| m.to_string().contains("task-notification"))
}

#[tokio::test]
async fn a_subagent_started_in_the_background_completes_its_card_with_its_report() {
    let report = "subagent-report: all fine";
    let s = RealSession::start(vec![
        // The subagent's own request; it answers slowly, so the main turn ends first.
        Rule::on_prompt(
            "SUBAGENT-PROMPT",
            Reply::text(report)
                .chunk_chars(3)
                .chunk_delay(Duration::from_millis(300)),
        ),
        Rule::when(
            "claude's follow-up when the subagent ended",
            answers_a_notification,
            Reply::text("The helper finished."),
        ),
        Rule::on_prompt(
            "start the helper",
            Reply::tool_use(
                "Agent",
                json!({"description": "Look around", "prompt": "SUBAGENT-PROMPT: look around",
                    "subagent_type": "general-purpose", "run_in_background": true}),
            ),
        ),
        Rule::on_tool_result(Reply::text("Started it.")),
    ])
    .await;
    s.client.allow_permissions();
    let stop = s.prompt("start the helper").await;
    assert_eq!(stop["stopReason"], "end_turn");
    let card = s.only_tool_call("think");
    assert_eq!(card["status"], "in_progress", "{card}");
    let task = card["_meta"]["claudeCode"]["asyncTaskId"].as_str();
    assert!(task.is_some_and(|t| !t.is_empty()), "{card}");
    assert!(
        !card["content"].to_string().contains("agentId"),
        "claude's launch note for the model is not shown: {card}"
    );
    let c = &s.client;
    c.wait_for_update(
        |u| {
            u["update"]["sessionUpdate"] == "tool_call_update"
                && u["update"]["status"] == "completed"
        },
        WAIT,
    )
    .await;
    let card = s.only_tool_call("think");
    assert_eq!(card["status"], "completed", "{card}");
    assert!(card["content"].to_string().contains(report), "{card}");
    c.quit(WAIT).await;
    assert_eq!(s.prompt_responses(), 1);
}

#[tokio::test]
async fn a_cancel_with_no_prompt_running_ends_the_ask_of_claudes_own_turn() {
    let s = RealSession::start(vec![
        Rule::on_prompt("start the job", background_bash("sleep 2")),
        // claude may put the next prompt in one user message with the cancelled call's result.
        Rule::when(
            "the next prompt",
            |r| {
                r.last_user_message()
                    .is_some_and(|m| m.to_string().contains("say-next-please"))
            },
            Reply::text("Next answer."),
        ),
    ])
    .await;
    let hello = s.env.work_dir().join("hello.txt");
    // claude's follow-up to the job's end wants to write a file: its ask waits on the editor.
    s.mock.push_rule(Rule::when(
        "claude's follow-up when the job ended",
        answers_a_notification,
        Reply::tool_use(
            "Write",
            json!({"file_path": hello.display().to_string(), "content": "Hello\n"}),
        ),
    ));
    s.mock
        .push_rule(Rule::on_tool_result(Reply::text("Started it.")));
    let c = &s.client;
    c.hold_requests("session/request_permission");
    // claude runs `sleep` unasked.
    let stop = s.prompt("start the job").await;
    assert_eq!(stop["stopReason"], "end_turn");
    // No prompt runs: the follow-up turn is claude's own.
    let ask = tokio::time::timeout(WAIT, c.next_request("session/request_permission"))
        .await
        .expect("claude's own turn asks to write");
    assert!(
        ask.params["toolCall"]["title"]
            .as_str()
            .is_some_and(|t| t.starts_with("Write")),
        "{}",
        ask.params
    );
    c.cancel(&s.id).await;
    // The editor's ask is withdrawn, and claude's turn ends without writing.
    c.wait_for_message(|m| m["method"] == "$/cancel_request", WAIT)
        .await;
    let next = s.prompt("say-next-please").await;
    assert_eq!(next["stopReason"], "end_turn");
    assert!(
        c.agent_text(&s.id).ends_with("Next answer."),
        "{}",
        c.agent_text(&s.id)
    );
    assert!(!hello.exists(), "the cancelled Write ran");
    let write = c
        .tool_calls(&s.id)
        .into_iter()
        .find(|call| call["kind"] == "edit")
        .unwrap();
    let write = s.tool_call(&write);
    assert_eq!(write["status"], "failed", "{write}");
    c.quit(WAIT).await;
    assert_eq!(s.prompt_responses(), 2);
}

/// A job running when its claude dies: its card fails then, and the claude that resumes the
/// session finds the job unfinished in the conversation and says so (`task_notification` with
/// `reason: "unfinished_at_resume"`): the card then says it never finished, with claude's words.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_job_its_claude_died_with_is_shown_unfinished_once_claude_resumes() {
    use crate::support::real_session::kill_claude;
    let s = RealSession::start(vec![
        Rule::on_prompt("start the job", background_bash("sleep 300")),
        Rule::on_tool_result(Reply::text("Started it.")),
        Rule::always(Reply::text("Noted.")),
    ])
    .await;
    job_started(&s).await;
    let c = &s.client;
    kill_claude(c.pid());
    c.wait_for_update(
        |u| u["update"]["sessionUpdate"] == "tool_call_update" && u["update"]["status"] == "failed",
        WAIT,
    )
    .await;
    let _ = s.prompt("are you back").await;
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let card = bash_card(&s);
        let shown = card["content"].to_string();
        if shown.contains("Unfinished: claude stopped while this ran") {
            assert!(
                ["failed", "cancelled"].contains(&card["status"].as_str().unwrap_or("")),
                "{card}"
            );
            assert!(
                shown.contains("didn't finish"),
                "claude's own words: {card}"
            );
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the card never said the job was unfinished: {card}\n{}",
            c.diagnostics()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    c.quit(WAIT).await;
}
