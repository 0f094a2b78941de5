//! Signs of life: a long command is in progress from when claude starts it, and its heartbeats
//! say how long it has run; a subagent's tool calls are shown as its own, linked to its Task call.

use serde_json::Value;

use crate::support::standin::Standin;

const BASH: &str = "toolu_progress_bash_000000001";
const TASK: &str = "toolu_progress_task_000000001";
const SUB: &str = "toolu_progress_sub_read_00001";

#[tokio::test]
async fn a_long_command_shows_its_progress_and_a_subagents_calls_link_to_its_task() {
    let s = Standin::new("progress");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let stop = c.prompt(&id, "build it, then look around").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");

    let of = |tool: &str| -> Vec<Value> {
        c.updates_of_kind(&id, "tool_call_update")
            .into_iter()
            .filter(|u| u["toolCallId"] == tool)
            .collect()
    };
    let bash = of(BASH);
    assert_eq!(
        bash.len(),
        4,
        "started, two heartbeats, the result: {bash:#?}"
    );
    assert_eq!(bash[0]["status"], "in_progress");
    for (update, (seconds, text)) in bash[1..3].iter().zip([
        (30.0, "Running for 30 s…"),
        (60.0, "Running for 1 min 00 s…"),
    ]) {
        assert_eq!(update["status"], "in_progress");
        assert_eq!(update["_meta"]["claudeCode"]["elapsedSeconds"], seconds);
        assert_eq!(update["content"][0]["content"]["text"], text);
    }
    assert_eq!(bash[3]["status"], "completed");
    assert!(bash[3]["_meta"].is_null(), "{}", bash[3]);

    let calls = c.tool_calls(&id);
    let sub = calls
        .iter()
        .find(|call| call["toolCallId"] == SUB)
        .expect("the subagent's Read is a card of its own");
    assert_eq!(sub["_meta"]["claudeCode"]["parentToolUseId"], TASK);
    let task = calls
        .iter()
        .find(|call| call["toolCallId"] == TASK)
        .unwrap();
    assert!(
        task["_meta"].is_null(),
        "the main agent's call has no parent: {task}"
    );
    let sub_updates = of(SUB);
    assert_eq!(sub_updates[0]["status"], "in_progress");
    assert_eq!(sub_updates[0]["_meta"]["claudeCode"]["elapsedSeconds"], 1.0);
    assert!(
        sub_updates[0]["content"].is_null(),
        "a Read keeps its body: {}",
        sub_updates[0]
    );
    assert_eq!(sub_updates.last().unwrap()["status"], "completed");
}
