//! ACP v2's `idempotencyKey` with the real claude behind the built adapter, offline on the mock
//! API: a prompt sent again under its key, in the same process and after the adapter restarted
//! (the session resumed in a new process), is answered with the first one's `messageId`, and the
//! model's conversation holds the prompt once.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use crate::support::real_session::wait_until_stored;

const STEP: Duration = Duration::from_secs(60);
const PROMPT: &str = "remember the word pelican";

fn adapter(env: &ClaudeEnv) -> AcpClient {
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(STEP);
    c
}

async fn v2_initialize(c: &AcpClient) {
    let init = c
        .request(
            "initialize",
            json!({"protocolVersion": 2, "info": {"name": "v2-editor", "version": "1"}}),
        )
        .await
        .unwrap();
    assert_eq!(init["protocolVersion"], 2, "{init}");
}

fn keyed(session: &str, text: &str, key: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}], "idempotencyKey": key})
}

async fn idle(c: &AcpClient, session: &str) {
    let session = session.to_owned();
    c.wait_for_update(
        move |u| {
            u["sessionId"] == session.as_str()
                && u["update"]["sessionUpdate"] == "state_update"
                && u["update"]["state"] == "idle"
        },
        STEP,
    )
    .await;
}

/// How many of the model's messages say `text`.
fn said(messages: &[Value], text: &str) -> usize {
    messages
        .iter()
        .filter(|m| m["role"] == "user" && m.to_string().contains(text))
        .count()
}

#[tokio::test]
async fn a_prompt_retried_under_its_key_after_a_restart_is_the_first_ones_and_claude_has_it_once() {
    let mock = MockApi::start(vec![
        Rule::on_prompt("pelican", Reply::text("I will remember the pelican.")),
        Rule::on_prompt("which bird", Reply::text("The pelican.")),
    ]);
    let env = ClaudeEnv::new(&mock);
    let first = adapter(&env);
    v2_initialize(&first).await;
    let opened = first
        .request("session/new", json!({"cwd": env.work_dir()}))
        .await
        .unwrap();
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    let answer = first
        .request("session/prompt", keyed(&id, PROMPT, "pelican-1"))
        .await
        .unwrap();
    idle(&first, &id).await;
    let again = first
        .request("session/prompt", keyed(&id, PROMPT, "pelican-1"))
        .await
        .unwrap();
    assert_eq!(again, answer, "the retry in the same process");
    wait_until_stored(&env, &id, "I will remember the pelican.").await;
    first.quit(Duration::from_secs(10)).await;

    let c = adapter(&env);
    v2_initialize(&c).await;
    c.request(
        "session/resume",
        json!({"sessionId": id, "cwd": env.work_dir()}),
    )
    .await
    .unwrap_or_else(|e| panic!("resume: {e}\n{}", c.diagnostics()));
    let retried = c
        .request("session/prompt", keyed(&id, PROMPT, "pelican-1"))
        .await
        .unwrap();
    assert_eq!(retried, answer, "the retry after the restart");
    let next = c
        .request("session/prompt", keyed(&id, "which bird was it?", "bird-1"))
        .await
        .unwrap();
    assert_ne!(next["messageId"], answer["messageId"]);
    idle(&c, &id).await;
    let inserted: Vec<Value> = c
        .updates_of_kind(&id, "user_message")
        .iter()
        .map(|u| u["messageId"].clone())
        .collect();
    assert_eq!(inserted, [next["messageId"].clone()], "only the new prompt");
    let last = mock.requests().last().cloned().expect("a model request");
    assert_eq!(
        last.latest_prompt_text().as_deref(),
        Some("which bird was it?")
    );
    assert_eq!(said(last.messages(), PROMPT), 1, "{:#?}", last.messages());
}
