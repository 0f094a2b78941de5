//! `session/cancel`: the prompt returns exactly once with `cancelled`, claude is interrupted, a
//! pending permission prompt is withdrawn, and the next prompt works.

use std::time::Duration;

use crate::support::standin::Standin;
use serde_json::Value;

fn responses_to(c: &crate::support::acp_client::AcpClient, method: &str) -> usize {
    let sent = c.sent();
    let ids: Vec<Value> = sent
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["method"] == method)
        .map(|m| m["id"].clone())
        .collect();
    c.transcript()
        .iter()
        .filter(|m| m.get("method").is_none() && ids.contains(&m["id"]))
        .count()
}

#[tokio::test]
async fn cancel_mid_stream_returns_cancelled_once_and_the_next_prompt_works() {
    let s = Standin::new("interrupt");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;

    let (stop, ()) = tokio::join!(c.prompt(&id, "tell me a long story"), async {
        c.wait_for_update(
            |u| u["update"]["sessionUpdate"] == "agent_message_chunk",
            Duration::from_secs(10),
        )
        .await;
        c.cancel(&id).await;
    });
    assert_eq!(stop.unwrap()["stopReason"], "cancelled");
    assert!(
        s.received()
            .iter()
            .any(|l| l["type"] == "control_request" && l["request"]["subtype"] == "interrupt"),
        "claude was sent an interrupt"
    );

    let stop = c.prompt(&id, "hello again").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        c.agent_text(&id).ends_with("Back after the interrupt."),
        "{}",
        c.agent_text(&id)
    );
    // A late second answer to either prompt would be recorded by the time the output ends.
    c.quit(Duration::from_secs(5)).await;
    assert_eq!(
        responses_to(&c, "session/prompt"),
        2,
        "exactly one answer per prompt"
    );
}

#[tokio::test]
async fn cancel_with_a_permission_pending_withdraws_it_and_returns_cancelled() {
    let s = Standin::new("interrupt_permission");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    c.hold_requests("session/request_permission");

    let (stop, ()) = tokio::join!(c.prompt(&id, "write hello.txt"), async {
        let ask = c.next_request("session/request_permission").await;
        assert_eq!(ask.params["toolCall"]["title"], "Write hello.txt");
        c.cancel(&id).await;
    });
    assert_eq!(stop.unwrap()["stopReason"], "cancelled");
    let reply = s
        .received()
        .into_iter()
        .find(|l| l["type"] == "control_response")
        .map(|l| l["response"]["response"].clone())
        .expect("claude got an answer to its pending ask");
    assert_eq!(reply["behavior"], "deny", "{reply}");
    assert_eq!(reply["interrupt"], true, "{reply}");
    assert!(!s.work.join("hello.txt").exists(), "nothing was written");
    // The editor's permission request is withdrawn.
    c.wait_for_message(
        |m| m["method"] == "$/cancel_request",
        Duration::from_secs(5),
    )
    .await;
    let stop = c.prompt(&id, "next").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(c.agent_text(&id).ends_with("Next answer."));
}

#[tokio::test]
async fn claude_withdrawing_its_ask_withdraws_the_editors_prompt_and_a_late_answer_is_dropped() {
    let s = Standin::new("control_cancel_request");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    c.hold_requests("session/request_permission");

    let (stop, ()) = tokio::join!(c.prompt(&id, "write hello.txt"), async {
        let ask = c.next_request("session/request_permission").await;
        // Wait for the withdrawal, then answer anyway, as a slow editor would.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while !c
            .transcript()
            .iter()
            .any(|m| m["method"] == "$/cancel_request")
        {
            assert!(
                tokio::time::Instant::now() < deadline,
                "no $/cancel_request for the withdrawn ask"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let cancel = c
            .transcript()
            .into_iter()
            .find(|m| m["method"] == "$/cancel_request")
            .unwrap();
        assert_eq!(cancel["params"]["requestId"], ask.id);
        c.respond(
            &ask.id,
            serde_json::json!({"outcome": {"outcome": "selected", "optionId": "allow_once"}}),
        )
        .await;
    });
    assert_eq!(stop.unwrap()["stopReason"], "end_turn");
    assert!(!s.work.join("hello.txt").exists());
    // claude never got an answer to the withdrawn request: the next turn runs as scripted.
    let stop = c.prompt(&id, "next").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        c.agent_text(&id).ends_with("Second answer."),
        "{}",
        c.agent_text(&id)
    );
    assert!(
        !s.received().iter().any(|l| l["type"] == "control_response"),
        "no answer reached claude"
    );
}

#[tokio::test]
async fn a_cancel_with_no_prompt_running_ends_the_ask_of_claudes_own_turn() {
    let s = Standin::new("own_turn_cancel");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    c.hold_requests("session/request_permission");
    let stop = c.prompt(&id, "start the job").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    // claude's follow-up to the job's end, a turn of its own, asks to write.
    let ask = c.next_request("session/request_permission").await;
    assert_eq!(ask.params["toolCall"]["title"], "Write hello.txt");
    c.cancel(&id).await;
    // The stand-in fails unless claude gets the deny and the interrupt; the editor's ask is
    // withdrawn and the call fails.
    c.wait_for_message(
        |m| m["method"] == "$/cancel_request",
        Duration::from_secs(5),
    )
    .await;
    let stop = c.prompt(&id, "next").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        c.agent_text(&id).ends_with("Next answer."),
        "{:?}",
        c.agent_text(&id)
    );
    let write = c
        .tool_call_state(&id, "toolu_mock_26f40a0d6af64c5885871078")
        .unwrap();
    assert_eq!(write["status"], "failed", "{write}");
    assert!(!s.work.join("hello.txt").exists());
    c.quit(Duration::from_secs(10)).await;
    assert!(s.problems().is_empty(), "{:?}", s.problems());
}
