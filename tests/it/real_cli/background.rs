//! claude's background jobs with the real pinned claude on the mock API: a command run in the
//! background keeps its card `in_progress` after the turn and completes when the job ends, and
//! `_session/async_task/stop` stops one without a turn.

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

#[tokio::test]
async fn a_background_job_is_stopped_on_request_without_a_turn() {
    let s = RealSession::start(vec![
        Rule::on_prompt("start the job", background_bash("sleep 30")),
        Rule::on_tool_result(Reply::text("Started it.")),
        Rule::always(Reply::text("Noted.")),
    ])
    .await;
    s.client.allow_permissions();
    let stop = s.prompt("start the job").await;
    assert_eq!(stop["stopReason"], "end_turn");
    let card = bash_card(&s);
    eprintln!("card: {card}");
    let task = card["rawOutput"]["backgroundTaskId"]
        .as_str()
        .or_else(|| card["_meta"]["claudeCode"]["asyncTaskId"].as_str())
        .unwrap_or_else(|| panic!("no task id on the card: {card}"))
        .to_owned();
    let c = &s.client;
    let unknown = c
        .request(
            "_session/async_task/stop",
            json!({"sessionId": s.id, "asyncTaskId": "no-such-job"}),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", c.diagnostics()));
    assert_eq!(unknown, json!({"stopped": false}));
    let stopped = c
        .request(
            "_session/async_task/stop",
            json!({"sessionId": s.id, "asyncTaskId": task}),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", c.diagnostics()));
    assert_eq!(stopped, json!({"stopped": true}));
    tokio::time::sleep(Duration::from_secs(2)).await;
    eprintln!("after: {}", bash_card(&s));
    for u in c.updates(&s.id).iter().rev().take(6) {
        eprintln!("update: {u}");
    }
    c.quit(WAIT).await;
}
