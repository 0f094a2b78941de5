//! Prompts sent while a turn runs, with the real pinned claude on the mock API: each answered once,
//! in order, with what claude did for it; a cancel ends the running one and those waiting.

use std::time::Duration;

use crate::support::acp_client::RpcError;
use crate::support::mock_api::{Reply, Rule};
use crate::support::real_session::RealSession;

const WAIT: Duration = Duration::from_secs(30);

/// "prompt one", then, once its first text has streamed, "prompt two" and "prompt three" sent
/// while it runs; their answers, still to come.
async fn two_queued_behind_one(s: &RealSession) -> [Answer<'_>; 3] {
    let c = &s.client;
    let first = c.send_prompt(&s.id, "prompt one").await;
    c.wait_for_update(
        |u| u["update"]["sessionUpdate"] == "agent_message_chunk",
        WAIT,
    )
    .await;
    let second = c.send_prompt(&s.id, "prompt two").await;
    let third = c.send_prompt(&s.id, "prompt three").await;
    [first, second, third]
}

type Answer<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<serde_json::Value, RpcError>> + 'a>>;

#[tokio::test]
async fn prompts_sent_during_a_turn_are_answered_in_order_after_claude_runs_them() {
    let s = RealSession::start(vec![
        Rule::on_prompt(
            "prompt one",
            Reply::text("Answer one, streamed slowly so the others arrive meanwhile.")
                .chunk_chars(3)
                .chunk_delay(Duration::from_millis(30)),
        ),
        Rule::on_prompt("prompt two", Reply::text("Answers two and three.")),
    ])
    .await;
    let c = &s.client;
    let [first, second, third] = two_queued_behind_one(&s).await;
    let (first, second, third) = tokio::join!(first, second, third);
    for answer in [first, second, third] {
        let answer = answer.unwrap_or_else(|e| panic!("{e}\n{}", c.diagnostics()));
        assert_eq!(answer["stopReason"], "end_turn");
    }
    assert_eq!(
        c.answers_and_text(),
        [
            "text Answer one, streamed slowly so the others arrive meanwhile.",
            "answer prompt one: end_turn",
            "text Answers two and three.",
            "answer prompt two: end_turn",
            "answer prompt three: end_turn",
        ]
    );
    // claude ran the two that queued up as one model request carrying both.
    let requests = s.mock.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert!(requests[1].contains("prompt two") && requests[1].contains("prompt three"));
    c.quit(WAIT).await;
    assert_eq!(s.prompt_responses(), 3, "exactly one answer per prompt");
}

#[tokio::test]
async fn a_cancel_with_two_prompts_waiting_answers_all_three_cancelled_and_claude_stays_idle() {
    let s = RealSession::start(vec![
        Rule::on_prompt(
            "prompt one",
            Reply::text("A story that never ends, told slowly.")
                .chunk_chars(3)
                .stall_after(6),
        ),
        Rule::on_prompt("prompt four", Reply::text("Back after the cancel.")),
        Rule::always(Reply::text("A queued prompt ran after the cancel.")),
    ])
    .await;
    let c = &s.client;
    let [first, second, third] = two_queued_behind_one(&s).await;
    // Both reach claude's queue before the cancel (claude reads them while it streams).
    tokio::time::sleep(Duration::from_millis(300)).await;
    c.cancel(&s.id).await;
    let (first, second, third) = tokio::join!(first, second, third);
    for answer in [first, second, third] {
        let answer = answer.unwrap_or_else(|e| panic!("{e}\n{}", c.diagnostics()));
        assert_eq!(answer["stopReason"], "cancelled");
    }
    let stop = s.prompt("prompt four").await;
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        c.agent_text(&s.id).ends_with("Back after the cancel."),
        "{}",
        c.agent_text(&s.id)
    );
    // The queued ones never reached the model: claude dropped them with the interrupt.
    let requests = s.mock.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert!(!s.mock.any_request_contains("prompt two"));
    c.quit(WAIT).await;
    assert_eq!(s.prompt_responses(), 4, "exactly one answer per prompt");
}
