//! What the editor sees of text, thinking, tools and turn ends, checked against the transcripts
//! and against lines made up to hit the edges the transcripts do not.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::transcripts::{agent_text, replay};
use crate::claude::wire::ClaudeMessage;
use crate::domain::{ContentChunk, PlanStatus, SessionUpdate, StopReason, ToolStatus};
use crate::translate::{TurnSignal, TurnTranslator};

fn thoughts(updates: &[SessionUpdate]) -> String {
    updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::AgentThoughtChunk {
                content: ContentChunk::Text { text },
                ..
            } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn feed(t: &mut TurnTranslator, line: Value) -> Vec<SessionUpdate> {
    t.on_message(ClaudeMessage::from_value(line).unwrap())
        .updates
}

#[test]
fn streamed_text_and_thinking_reach_the_editor_once() {
    let r = replay("h_partial_messages");
    assert_eq!(
        agent_text(&r.updates),
        "Let me read the file.The file says hello."
    );
    assert_eq!(thoughts(&r.updates), "I should read the file first.");
    // Relayed as they arrive: several chunks, not one per block.
    let chunks = r
        .updates
        .iter()
        .filter(|u| matches!(u, SessionUpdate::AgentMessageChunk { .. }))
        .count();
    assert_eq!(chunks, 6);
    assert_eq!(r.outcomes, vec![Ok(StopReason::EndTurn)]);
}

#[test]
fn without_partial_messages_the_assembled_lines_are_sent() {
    let r = replay("a_text");
    assert_eq!(
        agent_text(&r.updates),
        "Hello from the mock model!Second answer."
    );
    assert_eq!(thoughts(&r.updates), "The user wants a second answer.");
    assert_eq!(
        r.outcomes,
        vec![Ok(StopReason::EndTurn), Ok(StopReason::EndTurn)]
    );
}

#[test]
fn an_interrupted_stream_is_not_repeated_and_the_turn_is_cancelled() {
    let r = replay("f_interrupt");
    // The aborted assembled line repeats the streamed text; the injected "[Request interrupted by user]" is not shown.
    assert_eq!(
        agent_text(&r.updates),
        "Once upon a time there was a vBack after the interrupt."
    );
    assert_eq!(
        r.outcomes,
        vec![Ok(StopReason::Cancelled), Ok(StopReason::EndTurn)]
    );
    let r = replay("f2_interrupt_pending_permission");
    assert_eq!(
        r.outcomes,
        vec![Ok(StopReason::Cancelled), Ok(StopReason::EndTurn)]
    );
}

#[test]
fn a_tail_the_deltas_missed_is_still_sent() {
    let mut t = TurnTranslator::new(PathBuf::from("/w"));
    let ev =
        |event: Value| json!({"type": "stream_event", "event": event, "parent_tool_use_id": null});
    feed(
        &mut t,
        ev(
            json!({"type": "message_start", "message": {"id": "m1", "usage": {"input_tokens": 10}}}),
        ),
    );
    feed(
        &mut t,
        ev(
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
    );
    let first = feed(
        &mut t,
        ev(
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}}),
        ),
    );
    let rest = feed(
        &mut t,
        json!({"type": "assistant", "message": {"id": "m1", "content": [{"type": "text", "text": "Hello"}]}}),
    );
    assert_eq!(agent_text(&first) + &agent_text(&rest), "Hello");
}

#[test]
fn subagent_text_is_not_the_agent_s_but_its_tools_are_shown() {
    let mut t = TurnTranslator::new(PathBuf::from("/w"));
    let sub = feed(
        &mut t,
        json!({"type": "assistant", "parent_tool_use_id": "toolu_task", "message": {"id": "s1", "content": [
            {"type": "text", "text": "subagent musing"},
        ]}}),
    );
    assert!(sub.is_empty(), "{sub:?}");
    let streamed = feed(
        &mut t,
        json!({"type": "stream_event", "parent_tool_use_id": "toolu_task",
               "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}}),
    );
    assert!(streamed.is_empty());
    let tool = feed(
        &mut t,
        json!({"type": "assistant", "parent_tool_use_id": "toolu_task", "message": {"id": "s2", "content": [
            {"type": "tool_use", "id": "toolu_sub", "name": "Read", "input": {"file_path": "/w/a.rs"}},
        ]}}),
    );
    assert!(matches!(&tool[..], [SessionUpdate::ToolCall(c)] if c.title == "Read a.rs"));
    // A subagent's TodoWrite does not replace the session's plan.
    let todo = feed(
        &mut t,
        json!({"type": "assistant", "parent_tool_use_id": "toolu_task", "message": {"id": "s3", "content": [
            {"type": "tool_use", "id": "toolu_todo", "name": "TodoWrite", "input": {"todos": [{"content": "x", "status": "pending"}]}},
        ]}}),
    );
    assert!(!todo.iter().any(|u| matches!(u, SessionUpdate::Plan { .. })));
}

#[test]
fn tool_calls_start_pending_and_end_completed_or_failed() {
    let r = replay("l_bash_edit");
    let calls: Vec<(&str, &str)> = r
        .updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::ToolCall(c) => Some((c.id.as_str(), c.title.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls.iter().map(|c| c.1).collect::<Vec<_>>(),
        vec![
            "Read src/main.rs",
            "Edit src/main.rs",
            "Run `echo built > build.log && cat src/main.rs`",
            "Run `ls src`",
            "Run `python3 -c 'import sys; print(\"to stderr\", file=sys.stderr); sys.exit(3)'`",
        ]
    );
    let ends: Vec<(&str, Option<ToolStatus>)> = r
        .updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::ToolCallUpdate(c) => Some((c.id.as_str(), c.status)),
            _ => None,
        })
        .collect();
    let want: Vec<_> = calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            (
                c.0,
                Some(if i == 4 {
                    ToolStatus::Failed
                } else {
                    ToolStatus::Completed
                }),
            )
        })
        .collect();
    assert_eq!(ends, want);
}

#[test]
fn todo_write_and_task_tools_update_the_plan() {
    let plans = |name: &str| -> Vec<Vec<(String, PlanStatus)>> {
        replay(name)
            .updates
            .into_iter()
            .filter_map(|u| match u {
                SessionUpdate::Plan { entries } => {
                    Some(entries.into_iter().map(|e| (e.content, e.status)).collect())
                }
                _ => None,
            })
            .collect()
    };
    let e = |s: &str, st| (s.to_owned(), st);
    assert_eq!(
        plans("m_todowrite"),
        vec![
            vec![
                e("Read the code", PlanStatus::InProgress),
                e("Write the fix", PlanStatus::Pending)
            ],
            vec![
                e("Read the code", PlanStatus::Completed),
                e("Write the fix", PlanStatus::InProgress)
            ],
        ]
    );
    assert_eq!(
        plans("m2_task_tools"),
        vec![
            vec![e("Read the code", PlanStatus::Pending)],
            vec![
                e("Read the code", PlanStatus::Pending),
                e("Write the fix", PlanStatus::Pending)
            ],
            vec![
                e("Read the code", PlanStatus::InProgress),
                e("Write the fix", PlanStatus::Pending)
            ],
        ]
    );
}

#[test]
fn mode_changes_are_signalled() {
    let r = replay("g_set_permission_mode");
    let modes: Vec<&str> = r
        .signals
        .iter()
        .filter_map(|s| match s {
            TurnSignal::ModeChanged(m) => Some(m.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(modes, vec!["acceptEdits", "default"]);
}

#[test]
fn usage_reports_the_last_response_s_context() {
    let r = replay("h_partial_messages");
    let usage: Vec<_> = r
        .updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::Usage(u) => Some(u.clone()),
            _ => None,
        })
        .collect();
    // The second API call took 2701 input tokens and produced 10 (from its message_delta).
    assert_eq!(usage.len(), 1);
    assert_eq!(
        (usage[0].used, usage[0].size, usage[0].cost_usd),
        (2711, 1_000_000, Some(0.021516))
    );
}

#[test]
fn a_whole_message_on_one_line_is_sent_in_order() {
    let mut t = TurnTranslator::new(PathBuf::from("/w"));
    let got = feed(
        &mut t,
        json!({"type": "assistant", "message": {"id": "m1", "content": [
            {"type": "thinking", "thinking": "hmm"},
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/w/a"}},
        ]}}),
    );
    assert_eq!(thoughts(&got), "hmm");
    assert_eq!(agent_text(&got), "Reading.");
    assert!(matches!(got.last(), Some(SessionUpdate::ToolCall(c)) if c.id == "t1"));
}

#[test]
fn results_sharing_a_line_each_end_their_own_call() {
    let mut t = TurnTranslator::new(PathBuf::from("/w"));
    for (id, cmd) in [("t1", "ls"), ("t2", "pwd")] {
        feed(
            &mut t,
            json!({"type": "assistant", "message": {"id": "m1", "content": [
                {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": cmd}},
            ]}}),
        );
    }
    let got = feed(
        &mut t,
        json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "a.rs"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "boom", "is_error": true},
        ]}, "tool_use_result": {"stdout": "a.rs", "stderr": ""}}),
    );
    let ends: Vec<_> = got
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::ToolCallUpdate(c) => {
                Some((c.id.as_str(), c.status, c.raw_output.clone().unwrap()))
            }
            _ => None,
        })
        .collect();
    // The line's one structured result cannot be told apart: each call keeps its own text.
    assert_eq!(ends.len(), 2);
    assert_eq!((ends[0].0, ends[0].1), ("t1", Some(ToolStatus::Completed)));
    assert_eq!(ends[0].2["output"], "a.rs");
    assert_eq!((ends[1].0, ends[1].1), ("t2", Some(ToolStatus::Failed)));
    assert_eq!(ends[1].2["output"], "boom");
    // A result for a call never shown is not sent: the editor would not know the id.
    let stray = feed(
        &mut t,
        json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "nope", "content": "x"},
        ]}}),
    );
    assert!(stray.is_empty());
}

#[test]
fn a_later_unstreamed_message_is_sent_whole() {
    let mut t = TurnTranslator::new(PathBuf::from("/w"));
    let ev =
        |event: Value| json!({"type": "stream_event", "event": event, "parent_tool_use_id": null});
    feed(
        &mut t,
        ev(json!({"type": "message_start", "message": {"id": "m1"}})),
    );
    feed(
        &mut t,
        ev(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text"}})),
    );
    feed(
        &mut t,
        ev(
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}),
        ),
    );
    assert!(feed(&mut t, json!({"type": "assistant", "message": {"id": "m1", "content": [{"type": "text", "text": "Hi"}]}})).is_empty());
    let got = feed(
        &mut t,
        json!({"type": "assistant", "message": {"id": "m2", "content": [{"type": "text", "text": "Hi again"}]}}),
    );
    assert_eq!(agent_text(&got), "Hi again");
}

/// Each chunk's message: `kind message-id`, each message once, in order.
fn messages(updates: &[SessionUpdate]) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for update in updates {
        let named = match update {
            SessionUpdate::AgentMessageChunk { message_id, .. } => ("text", message_id),
            SessionUpdate::AgentThoughtChunk { message_id, .. } => ("thought", message_id),
            _ => continue,
        };
        let named = format!("{} {}", named.0, named.1.as_deref().unwrap_or("none"));
        if !seen.contains(&named) {
            seen.push(named);
        }
    }
    seen
}

#[test]
fn a_block_is_the_same_message_streamed_live_and_read_back_from_its_lines() {
    // Live: the deltas, named by their API message and block index.
    let live = replay("h_partial_messages");
    let streamed = messages(&live.updates);
    assert!(
        streamed.len() >= 3
            && streamed
                .iter()
                .all(|m| m.contains("msg_") && m.contains(':')),
        "{streamed:?}"
    );
    // The same lines without their stream events, as a transcript holds them (one line per
    // block): the same messages.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/transcripts/h_partial_messages.jsonl");
    let mut t = TurnTranslator::new(PathBuf::from("/tmp"));
    let mut stored = Vec::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        let message = &record["msg"];
        if record["dir"] == "claude->client"
            && ["assistant", "user"].contains(&message["type"].as_str().unwrap_or(""))
        {
            stored.extend(feed(&mut t, message.clone()));
        }
    }
    assert_eq!(messages(&stored), streamed);
}
