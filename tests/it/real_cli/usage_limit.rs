//! A prompt that waits out the usage limit, with the real claude on the mock API: the API
//! answers the prompt 429 with a Claude subscription's 5-hour window `rejected` and its reset a
//! few seconds ahead; claude reports the rejected limit and ends the turn in an error, and
//! claude-acp keeps the turn open and asks (a tool call of its own, kind `other`) whether to send
//! the prompt again at the reset. Waiting sends it then and the turn ends with claude's answer;
//! stopping ends the turn as claude ended it, with nothing sent again.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use crate::support::v2_schema::violations_1_20_v1;

const PROMPT: &str = "hello there";

/// How far ahead the limit resets: far enough that it is still to come when claude reads the
/// API's answer (claude reports no rejected limit whose reset is past) and when the user answers,
/// even on a busy machine.
const RESET_IN: u64 = 10;

/// A subscription session whose first request for [`PROMPT`] hits the limit, reset
/// [`RESET_IN`] from now (returned, in epoch seconds); the editor holds the permission asks for
/// the test to answer.
async fn limited_session() -> (MockApi, ClaudeEnv, AcpClient, String, u64) {
    let resets = now_secs() + RESET_IN;
    let mock = MockApi::start(vec![
        Rule::on_prompt(PROMPT, Reply::usage_limit_reached(resets)).once(),
        Rule::always(Reply::text("Hi, after the reset.")),
    ]);
    let env = ClaudeEnv::new(&mock)
        .without_env("ANTHROPIC_API_KEY")
        .with_env("CLAUDE_CODE_OAUTH_TOKEN", "sk-ant-oat01-mock");
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(Duration::from_secs(60));
    c.hold_requests("session/request_permission");
    c.initialize().await;
    let id = c.new_session(env.work_dir()).await;
    (mock, env, c, id, resets)
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Sleeps until a second past `resets` (epoch seconds).
async fn past(resets: u64) {
    let left = (resets + 1).saturating_sub(now_secs());
    tokio::time::sleep(Duration::from_secs(left)).await;
}

/// How many of the mock's requests were for the prompt (claude joins the prompt sent again to
/// the one the limit left unanswered in its conversation: the model reads both).
fn prompt_requests(mock: &MockApi) -> usize {
    mock.requests()
        .iter()
        .filter(|r| r.prompt_text().is_some_and(|t| t.contains(PROMPT)))
        .count()
}

/// The ask: it names the limit and its reset, on a tool call of kind `other`, with "send it
/// again" (allow_once) and "stop" (reject_once); it and every update are schema 1.20's. Returns
/// the option of `kind`.
fn check_ask(params: &Value, kind: &str) -> Value {
    assert_eq!(
        violations_1_20_v1("RequestPermissionRequest", params),
        Vec::<String>::new()
    );
    let call = &params["toolCall"];
    assert_eq!(call["kind"], "other", "{params}");
    let title = call["title"].as_str().unwrap_or_default();
    assert!(
        title.starts_with("You've hit your 5-hour limit · resets "),
        "{params}"
    );
    let kinds: Vec<&str> = params["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["allow_once", "reject_once"], "{params}");
    params["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == kind)
        .unwrap()["optionId"]
        .clone()
}

/// The statuses the ask's tool call was updated to after it was shown, each update
/// schema-valid.
fn ask_statuses(c: &AcpClient, id: &str, call_id: &Value) -> Vec<String> {
    let mut statuses = Vec::new();
    let shown = c
        .updates_of_kind(id, "tool_call")
        .iter()
        .any(|u| u["toolCallId"] == *call_id);
    assert!(shown, "{}", c.diagnostics());
    for update in c.updates(id) {
        let params = json!({"sessionId": id, "update": update});
        assert_eq!(
            violations_1_20_v1("SessionNotification", &params),
            Vec::<String>::new()
        );
        if update["sessionUpdate"] == "tool_call_update"
            && update["toolCallId"] == *call_id
            && let Some(status) = update["status"].as_str()
        {
            statuses.push(status.to_owned());
        }
    }
    statuses
}

#[tokio::test]
async fn a_prompt_at_the_usage_limit_waits_for_the_reset_then_goes_on() {
    let (mock, _env, c, id, _) = limited_session().await;
    let answer = c.send_prompt(&id, PROMPT).await;
    let ask = c.next_request("session/request_permission").await;
    let wait = check_ask(&ask.params, "allow_once");
    assert_eq!(prompt_requests(&mock), 1, "claude did not retry by itself");
    c.respond(
        &ask.id,
        json!({"outcome": {"outcome": "selected", "optionId": wait}}),
    )
    .await;
    let answer = answer
        .await
        .unwrap_or_else(|e| panic!("{e:?}\n{}", c.diagnostics()));
    assert_eq!(answer["stopReason"], "end_turn", "{}", c.diagnostics());
    assert!(
        c.agent_text(&id).contains("Hi, after the reset."),
        "{}",
        c.diagnostics()
    );
    assert_eq!(
        prompt_requests(&mock),
        2,
        "the prompt went again at the reset"
    );
    let statuses = ask_statuses(&c, &id, &ask.params["toolCall"]["toolCallId"]);
    assert_eq!(statuses, ["in_progress", "completed"]);
}

#[tokio::test]
async fn stopping_at_the_usage_limit_ends_the_turn_with_the_limit_s_message() {
    let (mock, _env, c, id, resets) = limited_session().await;
    let answer = c.send_prompt(&id, PROMPT).await;
    let ask = c.next_request("session/request_permission").await;
    let stop = check_ask(&ask.params, "reject_once");
    c.respond(
        &ask.id,
        json!({"outcome": {"outcome": "selected", "optionId": stop}}),
    )
    .await;
    let error = answer.await.expect_err("the turn ends in claude's error");
    assert!(error.message.contains("limit"), "{error:?}");
    let statuses = ask_statuses(&c, &id, &ask.params["toolCall"]["toolCallId"]);
    assert_eq!(statuses, ["failed"]);
    // Past the reset, nothing was sent again.
    past(resets).await;
    assert_eq!(prompt_requests(&mock), 1);
}

/// Waits for the reset, then the editor ends the wait: `session/cancel` or (with `close`)
/// `session/close`. The turn ends cancelled and nothing is sent past the reset.
async fn wait_then_end(close: bool) {
    let (mock, _env, c, id, resets) = limited_session().await;
    let answer = c.send_prompt(&id, PROMPT).await;
    let ask = c.next_request("session/request_permission").await;
    let wait = check_ask(&ask.params, "allow_once");
    c.respond(
        &ask.id,
        json!({"outcome": {"outcome": "selected", "optionId": wait}}),
    )
    .await;
    let call_id = &ask.params["toolCall"]["toolCallId"];
    while ask_statuses(&c, &id, call_id).is_empty() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    match close {
        true => {
            let closed = c.request("session/close", json!({"sessionId": id})).await;
            assert!(closed.is_ok(), "{closed:?}\n{}", c.diagnostics());
        }
        false => c.cancel(&id).await,
    }
    let answer = answer
        .await
        .unwrap_or_else(|e| panic!("{e:?}\n{}", c.diagnostics()));
    assert_eq!(answer["stopReason"], "cancelled", "{}", c.diagnostics());
    if !close {
        assert_eq!(ask_statuses(&c, &id, call_id), ["in_progress", "failed"]);
    }
    // Past the reset, nothing was sent again.
    past(resets).await;
    assert_eq!(prompt_requests(&mock), 1);
}

#[tokio::test]
async fn a_cancel_while_waiting_for_the_reset_sends_nothing() {
    wait_then_end(false).await;
}

#[tokio::test]
async fn closing_the_session_while_waiting_for_the_reset_sends_nothing() {
    wait_then_end(true).await;
}
