//! The pending map: answers routed by id, errors, unknown ids, withdrawal and the end of input.

use std::sync::Arc;

use serde_json::{Value, json};

use super::*;

fn pair() -> (Arc<PendingRequests>, Arc<Outbound>) {
    (Arc::default(), Arc::default())
}

/// Starts a request in a task and returns it with the line it queued for the editor.
async fn ask(
    pending: &Arc<PendingRequests>,
    outbound: &Arc<Outbound>,
    params: Value,
) -> (tokio::task::JoinHandle<Result<Value, Failure>>, Value) {
    let task = tokio::spawn({
        let (pending, outbound) = (pending.clone(), outbound.clone());
        async move {
            pending
                .request(&outbound, "session/request_permission", params, true)
                .await
        }
    });
    loop {
        let mut lines = outbound.take_queued_json();
        if let Some(line) = lines.pop() {
            assert!(lines.is_empty(), "one line per request: {lines:?}");
            return (task, line);
        }
        tokio::task::yield_now().await;
    }
}

fn answer(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

#[tokio::test]
async fn an_answer_reaches_the_request_with_its_id_and_other_lines_are_left_alone() {
    let (pending, outbound) = pair();
    let (first, sent_first) = ask(&pending, &outbound, json!({"n": 1})).await;
    let (second, sent_second) = ask(&pending, &outbound, json!({"n": 2})).await;
    assert_eq!(sent_first["jsonrpc"], "2.0");
    assert_eq!(sent_first["method"], "session/request_permission");
    assert_eq!(sent_first["params"], json!({"n": 1}));
    let id = sent_first["id"].as_str().unwrap();
    assert!(id.starts_with(ID_PREFIX), "{id}");
    assert_ne!(sent_first["id"], sent_second["id"]);

    // The editor's own request mentioning our id, and an answer to an SDK (UUID) id: the SDK's.
    let request = json!({"jsonrpc": "2.0", "id": 4, "method": "x", "params": {"id": id}});
    assert!(!pending.take_answer(&request.to_string()));
    let theirs = answer(&json!("0b7b6e2e-2e47-4a8b-9a53-8b7a6a0f2f10"), json!({}));
    assert!(!pending.take_answer(&theirs));

    assert!(pending.take_answer(&answer(&sent_second["id"], json!({"second": true}))));
    assert!(pending.take_answer(&answer(&sent_first["id"], json!({"first": true}))));
    assert_eq!(first.await.unwrap(), Ok(json!({"first": true})));
    assert_eq!(second.await.unwrap(), Ok(json!({"second": true})));
    assert_eq!(pending.waiting(), 0);
}

#[tokio::test]
async fn an_error_answer_is_the_requests_failure() {
    let (pending, outbound) = pair();
    let (task, sent) = ask(&pending, &outbound, json!({})).await;
    let line = json!({"jsonrpc": "2.0", "id": sent["id"],
        "error": {"code": -32603, "message": "the dialog crashed"}});
    assert!(pending.take_answer(&line.to_string()));
    assert_eq!(
        task.await.unwrap(),
        Err(Failure::Error {
            code: -32603,
            message: "the dialog crashed".into()
        })
    );
}

#[tokio::test]
async fn an_answer_to_an_id_never_sent_is_taken_and_ignored() {
    let (pending, outbound) = pair();
    let (task, sent) = ask(&pending, &outbound, json!({})).await;
    assert!(pending.take_answer(&answer(&json!(format!("{ID_PREFIX}999")), json!({}))));
    assert!(pending.take_answer(&answer(&json!(format!("{ID_PREFIX}x")), json!({}))));
    assert!(!task.is_finished(), "the real request still waits");
    assert_eq!(pending.waiting(), 1);
    assert!(pending.take_answer(&answer(&sent["id"], json!("mine"))));
    assert_eq!(task.await.unwrap(), Ok(json!("mine")));
}

#[tokio::test]
async fn dropping_a_request_withdraws_it_and_a_late_answer_is_dropped() {
    let (pending, outbound) = pair();
    let (task, sent) = ask(&pending, &outbound, json!({})).await;
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    let lines = outbound.take_queued_json();
    assert_eq!(
        lines,
        [json!({"jsonrpc": "2.0", "method": "$/cancel_request",
            "params": {"requestId": sent["id"]}})]
    );
    assert_eq!(pending.waiting(), 0);
    // The editor answers anyway: taken off the stream, nobody gets it.
    assert!(pending.take_answer(&answer(&sent["id"], json!({}))));
    assert!(outbound.take_queued_json().is_empty());
}

#[tokio::test]
async fn the_end_of_the_editors_input_fails_waiting_and_later_requests() {
    let (pending, outbound) = pair();
    let (task, _sent) = ask(&pending, &outbound, json!({})).await;
    pending.close();
    assert_eq!(task.await.unwrap(), Err(Failure::Closed));
    let late = pending
        .request(&outbound, "session/request_permission", json!({}), false)
        .await;
    assert_eq!(late, Err(Failure::Closed));
    assert!(outbound.take_queued_json().is_empty(), "nothing sent");
}

#[tokio::test]
async fn a_large_request_is_streamed_whole() {
    let (pending, outbound) = pair();
    let content = "x".repeat(super::super::outbound::STREAM_ABOVE + 10);
    let params = json!({"toolCall": {"rawInput": {"content": content}}});
    let (task, sent) = ask(&pending, &outbound, params.clone()).await;
    assert_eq!(sent["params"], params);
    assert!(pending.take_answer(&answer(&sent["id"], json!(1))));
    assert_eq!(task.await.unwrap(), Ok(json!(1)));
}
