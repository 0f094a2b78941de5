//! `_session/steering` with the real pinned claude on the mock API: a steer mid-stream reaches the
//! model in its next request, and the steered prompt ends once; a steer while a permission ask
//! waits leaves the ask to the editor.

use std::time::Duration;

use serde_json::json;

use crate::support::mock_api::{Block, Reply, Rule};
use crate::support::real_session::RealSession;

const WAIT: Duration = Duration::from_secs(30);

#[tokio::test]
async fn a_steer_mid_stream_reaches_the_models_next_request_and_the_prompt_ends_once() {
    let s = RealSession::start(vec![
        Rule::on_prompt(
            "tell me a story",
            Reply::text(
                "Once upon a time there was a very long story about nothing in particular.",
            )
            .chunk_chars(3)
            .chunk_delay(Duration::from_millis(40)),
        ),
        Rule::on_prompt("make it about a cat", Reply::text("A cat sat on a mat.")),
    ])
    .await;
    let c = &s.client;
    let story = c.send_prompt(&s.id, "tell me a story").await;
    c.wait_for_update(
        |u| u["update"]["sessionUpdate"] == "agent_message_chunk",
        WAIT,
    )
    .await;
    let steered = c
        .request(
            "_session/steering",
            json!({"sessionId": s.id, "prompt": [{"type": "text", "text": "make it about a cat"}]}),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", c.diagnostics()));
    assert_eq!(steered, json!({"outcome": "injected"}));
    let stop = story
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", c.diagnostics()));
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        c.agent_text(&s.id).ends_with("A cat sat on a mat."),
        "{}",
        c.agent_text(&s.id)
    );
    let requests = s.mock.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(
        requests[1].latest_prompt_text().as_deref(),
        Some("make it about a cat")
    );
    c.quit(WAIT).await;
    assert_eq!(s.prompt_responses(), 1, "one answer, one end_turn");
}

#[tokio::test]
async fn a_steer_while_a_permission_ask_waits_leaves_the_ask_and_reaches_the_model_after_it() {
    let s = RealSession::start(Vec::new()).await;
    let file = s.env.work_dir().join("notes.txt");
    s.mock.push_rule(Rule::on_prompt(
        "create notes.txt",
        Reply::blocks(vec![Block::ToolUse {
            name: "Write".into(),
            input: json!({"file_path": file, "content": "remember the milk\n"}),
        }]),
    ));
    s.mock.push_rule(Rule::when(
        "the steer",
        |r| r.contains("and then say hi"),
        Reply::text("Created it. Hi!"),
    ));
    s.mock
        .push_rule(Rule::on_tool_result(Reply::text("Created it.")));
    let c = &s.client;
    c.hold_requests("session/request_permission");
    let write = c.send_prompt(&s.id, "please create notes.txt").await;
    let ask = c.next_request("session/request_permission").await;
    let steered = c
        .request(
            "_session/steering",
            json!({"sessionId": s.id, "prompt": [{"type": "text", "text": "and then say hi"}]}),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", c.diagnostics()));
    assert_eq!(steered, json!({"outcome": "injected"}));
    // claude keeps the ask: the editor's request is not withdrawn.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !c.transcript()
            .iter()
            .any(|m| m["method"] == "$/cancel_request"),
        "the ask was withdrawn\n{}",
        c.diagnostics()
    );
    c.respond(
        &ask.id,
        json!({"outcome": {"outcome": "selected", "optionId": ask.params["options"][0]["optionId"]}}),
    )
    .await;
    let stop = write
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", c.diagnostics()));
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "remember the milk\n"
    );
    for (n, r) in s.mock.requests().iter().enumerate() {
        eprintln!("request {n}: {:?}", r.latest_prompt_text());
    }
    assert!(
        s.mock.any_request_contains("and then say hi"),
        "the steer reached the model"
    );
    c.quit(WAIT).await;
    assert_eq!(s.prompt_responses(), 1);
}
