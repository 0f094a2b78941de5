//! A prompt's turn as the editor shows it: streamed text and thinking, tool call cards with kind,
//! title, locations, diffs and output, plans, usage, and the stop reason, all through the built
//! binary with the claude stand-in replaying the real CLI's output.

use std::time::Duration;

use crate::support::standin::Standin;
use serde_json::{Value, json};

async fn session(fixture: &str) -> (Standin, crate::support::acp_client::AcpClient, String) {
    let s = Standin::new(fixture);
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    (s, c, id)
}

#[tokio::test]
async fn streamed_text_and_thinking_arrive_in_chunks_and_never_twice() {
    let (_s, c, id) = session("partial_messages").await;
    let stop = c.prompt(&id, "read a.txt").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    let chunks = c.updates_of_kind(&id, "agent_message_chunk");
    assert!(
        chunks.len() > 2,
        "text should stream in several chunks, got {}",
        chunks.len()
    );
    assert_eq!(
        c.agent_text(&id),
        "Let me read the file.The file says hello."
    );
    assert!(!c.thought_text(&id).is_empty(), "thinking is shown");
    assert!(
        c.thought_text(&id).starts_with("I should read the file"),
        "{}",
        c.thought_text(&id)
    );
}

#[tokio::test]
async fn without_partial_messages_whole_blocks_are_still_shown() {
    let (_s, c, id) = session("text").await;
    c.prompt(&id, "say hello").await.unwrap();
    assert_eq!(c.agent_text(&id), "Hello from the mock model!");
    let stop = c.prompt(&id, "again").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        c.agent_text(&id).ends_with("Second answer."),
        "{}",
        c.agent_text(&id)
    );
    assert!(!c.thought_text(&id).is_empty());
}

#[tokio::test]
async fn tool_calls_carry_kind_title_locations_diff_and_output() {
    let (s, c, id) = session("bash_edit").await;
    std::fs::create_dir_all(s.work.join("src")).unwrap();
    c.allow_permissions();
    let stop = c.prompt(&id, "please fix main").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");

    let calls = c.tool_calls(&id);
    assert_eq!(calls.len(), 5, "{calls:#?}");
    let state = |i: usize| {
        c.tool_call_state(&id, calls[i]["toolCallId"].as_str().unwrap())
            .unwrap()
    };

    let read = state(0);
    assert_eq!(read["kind"], "read");
    assert_eq!(read["title"], "Read src/main.rs");
    assert!(
        read["locations"][0]["path"]
            .as_str()
            .unwrap()
            .ends_with("src/main.rs")
    );
    assert_eq!(read["status"], "completed");

    let edit = state(1);
    assert_eq!(edit["kind"], "edit");
    assert_eq!(edit["title"], "Edit src/main.rs");
    let diff = edit["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "diff")
        .expect("a diff");
    assert_eq!(diff["oldText"], "println!(\"hello\");");
    assert_eq!(diff["newText"], "println!(\"hello, world\");");

    let bash = state(2);
    assert_eq!(bash["kind"], "execute");
    assert!(
        bash["title"]
            .as_str()
            .unwrap()
            .starts_with("Run `echo built"),
        "{}",
        bash["title"]
    );
    assert_eq!(bash["status"], "completed");
    let text = serde_json::to_string(&bash["content"]).unwrap();
    assert!(
        text.contains("hello, world"),
        "Bash output is shown: {text}"
    );
    assert!(
        bash["rawOutput"].is_object(),
        "rawOutput must be an object: {}",
        bash["rawOutput"]
    );

    let failing = state(4);
    assert_eq!(failing["status"], "failed");
    assert!(
        serde_json::to_string(&failing["content"])
            .unwrap()
            .contains("to stderr")
    );
    assert!(failing["rawOutput"].is_object());

    // Every tool call the editor saw was finished: none is left spinning.
    for i in 0..calls.len() {
        let st = state(i)["status"].clone();
        assert!(
            st == "completed" || st == "failed",
            "tool call {i} left as {st}"
        );
    }
}

#[tokio::test]
async fn todo_and_task_tools_become_the_plan() {
    let (_s, c, id) = session("todowrite").await;
    c.prompt(&id, "plan it").await.unwrap();
    let plans = c.updates_of_kind(&id, "plan");
    assert!(!plans.is_empty(), "TodoWrite shows a plan");
    let last = &plans.last().unwrap()["entries"];
    assert!(last.as_array().unwrap().len() >= 2, "{last}");

    let (_s, c, id) = session("task_tools").await;
    c.prompt(&id, "track tasks").await.unwrap();
    let plans = c.updates_of_kind(&id, "plan");
    let last = &plans.last().expect("TaskCreate/TaskUpdate show a plan")["entries"];
    let contents: Vec<&str> = last
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["content"].as_str().unwrap())
        .collect();
    assert!(
        contents.contains(&"Read the code") && contents.contains(&"Write the fix"),
        "{contents:?}"
    );
    let read = last
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["content"] == "Read the code")
        .unwrap();
    assert_eq!(read["status"], "in_progress");
}

#[tokio::test]
async fn the_turn_reports_context_usage_and_cost() {
    let (_s, c, id) = session("partial_messages").await;
    c.prompt(&id, "read a.txt").await.unwrap();
    let usage = c.updates_of_kind(&id, "usage_update");
    let u = usage.last().expect("a usage_update after the turn");
    assert_eq!(u["size"], 1_000_000);
    assert!(u["used"].as_u64().unwrap() > 0);
    assert_eq!(u["cost"]["currency"], "USD");
    assert!(u["cost"]["amount"].as_f64().unwrap() > 0.0);
}

#[tokio::test]
async fn stop_reasons_and_errors_reach_the_editor() {
    let (_s, c, id) = session("max_tokens").await;
    assert_eq!(
        c.prompt(&id, "write a lot").await.unwrap()["stopReason"],
        "max_tokens"
    );

    let (_s, c, id) = session("error_result").await;
    let err = c.prompt(&id, "hi").await.unwrap_err();
    assert!(
        err.message.contains("API Error: 529"),
        "claude's message is carried: {}",
        err.message
    );
}

#[tokio::test]
async fn garbage_and_unknown_lines_from_claude_are_skipped_and_unknown_requests_answered() {
    let (s, c, id) = session("garbage").await;
    let stop = c.prompt(&id, "hi").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert_eq!(c.agent_text(&id), "Still here after the noise.");
    let reply = s
        .received()
        .into_iter()
        .find(|l| l["response"]["request_id"] == "standin-unknown-1")
        .expect("the unknown control request was answered");
    assert_eq!(reply["response"]["subtype"], "error");
    assert!(
        reply["response"]["error"]
            .as_str()
            .unwrap()
            .contains("no_such_subtype")
    );
}

#[tokio::test]
async fn a_20_mib_tool_result_passes() {
    let (_s, c, id) = session("big_tool_result").await;
    c.set_timeout(Duration::from_secs(60));
    let stop = c.prompt(&id, "read the log").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert_eq!(c.agent_text(&id), "That log is 20 MiB of x.");
    let call = &c.tool_calls(&id)[0];
    let state = c
        .tool_call_state(&id, call["toolCallId"].as_str().unwrap())
        .unwrap();
    assert_eq!(state["status"], "completed");
}

#[tokio::test]
async fn every_prompt_block_kind_reaches_claude_as_one_user_message() {
    let (s, c, id) = session("text").await;
    let blocks = vec![
        json!({"type": "text", "text": "look at these"}),
        json!({"type": "resource_link", "uri": "file:///tmp/project/src/lib.rs", "name": "lib.rs"}),
        json!({"type": "resource", "resource": {"uri": "file:///tmp/notes.md", "text": "remember the milk", "mimeType": "text/markdown"}}),
        json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}),
    ];
    c.prompt_blocks(&id, blocks).await.unwrap();
    let user: Vec<Value> = s
        .received()
        .into_iter()
        .filter(|l| l["type"] == "user")
        .collect();
    assert_eq!(user.len(), 1, "one user message per prompt");
    let content = serde_json::to_string(&user[0]["message"]["content"]).unwrap();
    assert!(content.contains("look at these"));
    assert!(content.contains("/tmp/project/src/lib.rs"), "{content}");
    assert!(content.contains("remember the milk"), "{content}");
    assert!(content.contains("\"type\":\"image\""), "{content}");
    assert_eq!(user[0]["session_id"], id);
}
