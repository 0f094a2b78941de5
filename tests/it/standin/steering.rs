//! `_session/steering`: a message into the running turn (claude's `priority: "now"`, or `"later"`
//! while the editor shows an ask, which then stays), the steered turn answered once; with no turn
//! running, `promptRequired` or a turn of its own; bad requests answered invalid-params.

use std::time::Duration;

use crate::support::acp_client::{AcpClient, RpcError};
use crate::support::standin::Standin;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(10);

async fn steer(
    c: &AcpClient,
    id: &str,
    text: &str,
    meta: Option<Value>,
) -> Result<Value, RpcError> {
    let mut params = json!({"sessionId": id, "prompt": [{"type": "text", "text": text}]});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    c.request("_session/steering", params).await
}

fn users(s: &Standin) -> Vec<Value> {
    s.received()
        .into_iter()
        .filter(|l| l["type"] == "user")
        .collect()
}

async fn opened(s: &Standin) -> (AcpClient, String) {
    let c = s.adapter(&[]);
    let init = c.initialize().await;
    assert_eq!(init["_meta"]["steering"]["supported"], true, "{init}");
    let id = c.new_session(&s.work).await;
    (c, id)
}

#[tokio::test]
async fn a_steer_mid_stream_goes_into_the_turn_which_ends_once_after_the_steered_answer() {
    let s = Standin::new("steer_mid_stream");
    let (c, id) = opened(&s).await;
    let story = c.send_prompt(&id, "tell me a story").await;
    c.wait_for_update(
        |u| u["update"]["sessionUpdate"] == "agent_message_chunk",
        WAIT,
    )
    .await;
    let steered = steer(&c, &id, "make it about a cat", None).await.unwrap();
    assert_eq!(steered, json!({"outcome": "injected"}));
    let stop = story.await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert_eq!(
        c.answers_and_text(),
        [
            "text Once upon A cat sat on a mat.",
            "answer tell me a story: end_turn"
        ]
    );
    let steer_line = &users(&s)[1];
    assert_eq!(steer_line["priority"], "now", "{steer_line}");
    c.quit(WAIT).await;
    assert_eq!(
        c.answers_and_text()
            .iter()
            .filter(|e| e.starts_with("answer"))
            .count(),
        1,
        "the steered prompt is answered once"
    );
}

#[tokio::test]
async fn a_steer_while_an_ask_waits_keeps_the_ask_and_the_turn_ends_once_after_it_is_answered() {
    let s = Standin::new("steer_permission");
    let (c, id) = opened(&s).await;
    c.hold_requests("session/request_permission");
    let write = c.send_prompt(&id, "write hello.txt").await;
    let ask = c.next_request("session/request_permission").await;
    let steered = steer(&c, &id, "and say hi afterwards", None).await.unwrap();
    assert_eq!(steered, json!({"outcome": "injected"}));
    // claude has it, with priority "later": the ask is still the editor's to answer.
    let deadline = tokio::time::Instant::now() + WAIT;
    while users(&s).len() < 2 {
        assert!(tokio::time::Instant::now() < deadline, "{:?}", s.received());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(users(&s)[1]["priority"], "later");
    assert!(
        !c.transcript()
            .iter()
            .any(|m| m["method"] == "$/cancel_request"),
        "the ask was not withdrawn"
    );
    c.respond(
        &ask.id,
        json!({"outcome": {"outcome": "selected", "optionId": "allow_once"}}),
    )
    .await;
    let stop = write.await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(s.work.join("hello.txt").exists());
    assert!(c.agent_text(&id).ends_with("Hi!"), "{}", c.agent_text(&id));
}

#[tokio::test]
async fn steering_an_idle_session_starts_nothing_when_asked_to_and_else_a_turn_of_its_own() {
    let s = Standin::new("steer_idle");
    let (c, id) = opened(&s).await;
    c.prompt_to_end_turn(&id, "hello").await;

    let required = json!({"steering": {"idleBehavior": "promptRequired"}});
    let answer = steer(&c, &id, "not sent", Some(required)).await.unwrap();
    assert_eq!(
        answer,
        json!({"outcome": "promptRequired", "reason": "noRunningTurn"})
    );
    assert_eq!(
        users(&s).len(),
        1,
        "nothing reached claude: {:?}",
        s.received()
    );

    let answer = steer(&c, &id, "steered while idle", None).await.unwrap();
    assert_eq!(answer, json!({"outcome": "startedNewTurn"}));
    c.wait_for_update(
        |u| u["update"]["content"]["text"] == "Answer to the steer.",
        WAIT,
    )
    .await;
    // The session goes on: a prompt afterwards runs as usual (after the steer's turn ended).
    let stop = c.prompt(&id, "after").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        c.agent_text(&id).ends_with("Answer after."),
        "{}",
        c.agent_text(&id)
    );
}

#[tokio::test]
async fn steering_an_unknown_session_or_with_an_empty_prompt_is_invalid_params() {
    let s = Standin::new("text");
    let (c, id) = opened(&s).await;
    let unknown = steer(&c, "no-such-session", "hi", None).await.unwrap_err();
    assert_eq!(unknown.code, -32602, "{unknown:?}");
    let empty = c
        .request("_session/steering", json!({"sessionId": id, "prompt": []}))
        .await
        .unwrap_err();
    assert_eq!(empty.code, -32602, "{empty:?}");
    assert!(
        empty.message.contains("non-empty prompt"),
        "{}",
        empty.message
    );
    let blank = steer(&c, &id, "   ", None).await.unwrap_err();
    assert_eq!(blank.code, -32602, "{blank:?}");
    let odd = steer(
        &c,
        &id,
        "hi",
        Some(json!({"steering": {"idleBehavior": "queue"}})),
    )
    .await
    .unwrap_err();
    assert_eq!(odd.code, -32602, "{odd:?}");
    // None of it reached claude, and the session works.
    assert!(users(&s).is_empty(), "{:?}", s.received());
    c.prompt_to_end_turn(&id, "hello").await;
}
