//! Prompts sent while a turn runs: each written to claude at once, each answered once, in the
//! order they were sent, with the text claude gave it; `session/cancel` ends them all.

use std::time::Duration;

use crate::support::acp_client::AcpClient;
use crate::support::standin::Standin;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(10);

async fn session_with_first_prompt_streaming(s: &Standin) -> (AcpClient, String) {
    let c = s.adapter(&[]);
    let init = c.initialize().await;
    assert_eq!(
        init["agentCapabilities"]["_meta"]["claudeCode"]["promptQueueing"], true,
        "{init}"
    );
    let id = c.new_session(&s.work).await;
    (c, id)
}

async fn wait_for_text(c: &AcpClient) {
    c.wait_for_update(
        |u| u["update"]["sessionUpdate"] == "agent_message_chunk",
        WAIT,
    )
    .await;
}

#[tokio::test]
async fn two_prompts_sent_during_a_turn_are_answered_in_order_with_their_own_text() {
    let s = Standin::new("queued_two");
    let (c, id) = session_with_first_prompt_streaming(&s).await;
    let first = c.send_prompt(&id, "prompt one").await;
    wait_for_text(&c).await;
    let second = c.send_prompt(&id, "prompt two").await;
    let third = c.send_prompt(&id, "prompt three").await;
    let (first, second, third) = tokio::join!(first, second, third);
    for answer in [first, second, third] {
        assert_eq!(answer.unwrap()["stopReason"], "end_turn");
    }
    assert_eq!(
        c.answers_and_text(),
        [
            "text Answer one.",
            "answer prompt one: end_turn",
            "text Answer two.",
            "answer prompt two: end_turn",
            "text Answer three.",
            "answer prompt three: end_turn",
        ]
    );
    // Each was written to claude as its own message, named for its answer, while the first ran.
    let users: Vec<Value> = s
        .received()
        .into_iter()
        .filter(|l| l["type"] == "user")
        .collect();
    assert_eq!(users.len(), 3, "{users:?}");
    let uuids: std::collections::HashSet<&str> =
        users.iter().filter_map(|u| u["uuid"].as_str()).collect();
    assert_eq!(uuids.len(), 3, "each message has its own uuid: {users:?}");
}

#[tokio::test]
async fn five_queued_prompts_are_each_answered_once_in_order_however_claude_groups_them() {
    let s = Standin::new("queued_five");
    let (c, id) = session_with_first_prompt_streaming(&s).await;
    let first = c.send_prompt(&id, "prompt one").await;
    wait_for_text(&c).await;
    let mut rest = Vec::new();
    for text in [
        "prompt two",
        "prompt three",
        "prompt four",
        "prompt five",
        "prompt six",
    ] {
        rest.push(c.send_prompt(&id, text).await);
    }
    assert_eq!(first.await.unwrap()["stopReason"], "end_turn");
    for answer in futures::future::join_all(rest).await {
        assert_eq!(answer.unwrap()["stopReason"], "end_turn");
    }
    assert_eq!(
        c.answers_and_text(),
        [
            "text Answer one.",
            "answer prompt one: end_turn",
            "text Answers two and three.",
            "answer prompt two: end_turn",
            "answer prompt three: end_turn",
            "text Answers four and five.",
            "answer prompt four: end_turn",
            "answer prompt five: end_turn",
            "text Answer six.",
            "answer prompt six: end_turn",
        ]
    );
    c.quit(WAIT).await;
    let answers = c
        .transcript()
        .iter()
        .filter(|m| {
            m.get("method").is_none() && c.prompt_ids().iter().any(|(_, id)| *id == m["id"])
        })
        .count();
    assert_eq!(answers, 6, "exactly one answer per prompt");
}

#[tokio::test]
async fn a_cancel_ends_the_running_prompt_and_both_queued_ones_and_the_next_prompt_runs() {
    let s = Standin::new("queued_cancel");
    let (c, id) = session_with_first_prompt_streaming(&s).await;
    let first = c.send_prompt(&id, "prompt one").await;
    wait_for_text(&c).await;
    let second = c.send_prompt(&id, "prompt two").await;
    let third = c.send_prompt(&id, "prompt three").await;
    // Both are in claude's queue before the cancel.
    let deadline = tokio::time::Instant::now() + WAIT;
    while s.received().iter().filter(|l| l["type"] == "user").count() < 3 {
        assert!(tokio::time::Instant::now() < deadline, "{:?}", s.received());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    c.cancel(&id).await;
    let (first, second, third) = tokio::join!(first, second, third);
    for answer in [first, second, third] {
        assert_eq!(answer.unwrap()["stopReason"], "cancelled");
    }
    let interrupts: Vec<Value> = s
        .received()
        .into_iter()
        .filter(|l| l["type"] == "control_request" && l["request"]["subtype"] == "interrupt")
        .collect();
    assert_eq!(interrupts.len(), 1, "one interrupt: {interrupts:?}");
    assert_eq!(interrupts[0]["request"]["cancel_queued"], json!(true));

    let stop = c.prompt(&id, "prompt four").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        c.agent_text(&id).ends_with("Answer four."),
        "{}",
        c.agent_text(&id)
    );
    c.quit(WAIT).await;
    assert_eq!(
        c.answers_and_text()
            .into_iter()
            .filter(|e| e.starts_with("answer"))
            .collect::<Vec<_>>(),
        [
            "answer prompt one: cancelled",
            "answer prompt two: cancelled",
            "answer prompt three: cancelled",
            "answer prompt four: end_turn",
        ]
    );
}

#[tokio::test]
async fn a_queued_prompt_whose_claude_dies_gets_the_running_ones_error() {
    let s = Standin::with_script(|dir| {
        let script = dir.join("queued_crash.jsonl");
        let lines = [
            json!({"include": "initialize.jsonl"}),
            json!({"expect": {"type": "user"}}),
            json!({"include": "system_init.jsonl"}),
            json!({"emit": {"type": "assistant", "message": {"id": "m1", "type": "message", "role": "assistant", "model": "${model}", "content": [{"type": "text", "text": "Starting."}], "stop_reason": null, "usage": null}, "parent_tool_use_id": null, "session_id": "${session_id}", "uuid": "a1"}}),
            json!({"expect": {"type": "user"}}),
            json!({"stderr": "boom"}),
            json!({"exit": 1}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&script, text).unwrap();
        script
    });
    let (c, id) = session_with_first_prompt_streaming(&s).await;
    let first = c.send_prompt(&id, "prompt one").await;
    wait_for_text(&c).await;
    let second = c.send_prompt(&id, "prompt two").await;
    let (first, second) = tokio::join!(first, second);
    let (first, second) = (first.unwrap_err(), second.unwrap_err());
    assert!(first.message.contains("claude exited"), "{}", first.message);
    assert_eq!(first.message, second.message);
    assert_eq!(first.code, second.code);
}

#[tokio::test]
async fn past_sixteen_waiting_prompts_the_next_is_refused_with_a_clear_error() {
    let s = Standin::with_script(|dir| {
        let script = dir.join("queued_full.jsonl");
        let mut text = format!("{}\n", json!({"include": "initialize.jsonl"}));
        text += &format!("{}\n", json!({"expect": {"type": "user"}}));
        text += &format!("{}\n", json!({"include": "system_init.jsonl"}));
        text += &format!(
            "{}\n",
            json!({"emit": {"type": "assistant", "message": {"id": "m1", "type": "message", "role": "assistant", "model": "${model}", "content": [{"type": "text", "text": "Working."}], "stop_reason": null, "usage": null}, "parent_tool_use_id": null, "session_id": "${session_id}", "uuid": "a1"}})
        );
        for _ in 0..16 {
            text += &format!("{}\n", json!({"expect": {"type": "user"}}));
        }
        text += &format!("{}\n", json!({"hang": true}));
        std::fs::write(&script, text).unwrap();
        script
    });
    let (c, id) = session_with_first_prompt_streaming(&s).await;
    let first = c.send_prompt(&id, "prompt 0").await;
    wait_for_text(&c).await;
    let mut waiting = Vec::new();
    for n in 1..=16 {
        let text = format!("prompt {n}");
        let text: &'static str = Box::leak(text.into_boxed_str());
        waiting.push(c.send_prompt(&id, text).await);
    }
    let refused = c.prompt(&id, "one too many").await.unwrap_err();
    assert_eq!(refused.code, -32602, "{refused:?}");
    assert!(
        refused.message.contains("16 prompts waiting"),
        "{}",
        refused.message
    );
    // The session goes on: a cancel answers the running one and the sixteen waiting.
    c.cancel(&id).await;
    assert_eq!(first.await.unwrap()["stopReason"], "cancelled");
    for answer in futures::future::join_all(waiting).await {
        assert_eq!(answer.unwrap()["stopReason"], "cancelled");
    }
}
