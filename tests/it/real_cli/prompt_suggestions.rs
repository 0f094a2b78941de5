//! Prompt suggestions with the real CLI through claude-acp, offline on the mock API: claude is
//! asked for them only for an editor that declared `session.promptSuggestions` (each costs a model
//! request after a turn, from the second turn on), and its suggestion reaches that editor as
//! schema 1.20's `prompt_suggestions_update`; an editor that declared none costs no request.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{ApiRequest, MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use crate::support::v2_schema::{v2_violations, violations_1_20_v1};

const STEP: Duration = Duration::from_secs(60);
/// The start of the prompt claude asks its suggestion with.
const SUGGESTION_MODE: &str = "[SUGGESTION MODE";
const SUGGESTED: &str = "Run the test suite next";

/// The mock API: the suggestion for claude's suggestion request, a short answer for the rest;
/// every answer read from a warm prompt cache (claude suggests nothing on a cold one).
fn mock() -> MockApi {
    MockApi::start(vec![
        Rule::on_prompt(SUGGESTION_MODE, Reply::text(SUGGESTED).cached()),
        Rule::always(Reply::text("Done.").cached()),
    ])
}

fn adapter(env: &ClaudeEnv) -> AcpClient {
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(STEP);
    c
}

fn suggestion_requests(mock: &MockApi) -> usize {
    let asks = |r: &&ApiRequest| r.contains(SUGGESTION_MODE);
    mock.requests().iter().filter(asks).count()
}

fn is_suggestions(params: &Value) -> bool {
    params["update"]["sessionUpdate"] == "prompt_suggestions_update"
}

#[tokio::test]
async fn an_editor_that_takes_suggestions_gets_claudes_after_a_turn() {
    let mock = mock();
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    c.initialize_with_capabilities(json!({"session": {"promptSuggestions": {}}}))
        .await;
    let id = c.new_session(env.work_dir()).await;
    for text in ["first thing", "second thing"] {
        let answer = c.prompt(&id, text).await.unwrap();
        assert_eq!(answer["stopReason"], "end_turn", "{}", c.diagnostics());
    }
    let note = c.wait_for_update(is_suggestions, STEP).await;
    assert_eq!(
        note["update"]["suggestions"],
        json!([{"prompt": [{"type": "text", "text": SUGGESTED}]}]),
        "{note}"
    );
    let faults = violations_1_20_v1("SessionNotification", &note);
    assert!(faults.is_empty(), "{faults:#?}\n{note}");
    // One request per turn, and one for the suggestion after the second (claude suggests
    // nothing after a conversation's first answer).
    assert_eq!(suggestion_requests(&mock), 1, "{}", c.diagnostics());
    assert_eq!(mock.requests().len(), 3);
}

#[tokio::test]
async fn an_editor_that_declared_no_suggestions_costs_no_request_for_them() {
    let mock = mock();
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    c.initialize_with_capabilities(json!({"session": {}})).await;
    let id = c.new_session(env.work_dir()).await;
    for text in ["first thing", "second thing", "third thing"] {
        let answer = c.prompt(&id, text).await.unwrap();
        assert_eq!(answer["stopReason"], "end_turn", "{}", c.diagnostics());
    }
    assert_eq!(suggestion_requests(&mock), 0, "{}", c.diagnostics());
    assert_eq!(mock.requests().len(), 3, "one request per turn");
    assert!(
        c.updates_of_kind(&id, "prompt_suggestions_update")
            .is_empty()
    );
}

#[tokio::test]
async fn a_v2_editor_that_takes_suggestions_gets_them_in_v2s_form() {
    let mock = mock();
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    let init = json!({"protocolVersion": 2, "info": {"name": "v2-editor", "version": "1"},
        "capabilities": {"session": {"promptSuggestions": {}}}});
    c.request("initialize", init).await.unwrap();
    let opened = c
        .request("session/new", json!({"cwd": env.work_dir()}))
        .await
        .unwrap();
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    for text in ["first thing", "second thing"] {
        let from = c.update_count();
        let prompt = json!({"sessionId": id, "prompt": [{"type": "text", "text": text}]});
        c.request("session/prompt", prompt).await.unwrap();
        let idle = |params: &Value| {
            params["update"]["sessionUpdate"] == "state_update"
                && params["update"]["state"] == "idle"
        };
        c.wait_for_update_from(from, idle, STEP).await;
    }
    let note = c.wait_for_update(is_suggestions, STEP).await;
    assert_eq!(
        note["update"]["suggestions"][0]["prompt"][0]["text"],
        SUGGESTED
    );
    let faults = v2_violations(&c, &id, &[]);
    assert!(faults.is_empty(), "{faults:#?}");
    assert_eq!(suggestion_requests(&mock), 1, "{}", c.diagnostics());
}
