//! ExitPlanMode: the plan in the tool call, three ways on, the mode following the answer.

use std::sync::Arc;

use serde_json::json;

use super::{pick, request, run, wire};
use crate::claude::wire::CanUseTool;
use crate::domain::{EditorError, ToolContent};
use crate::permissions::{ACCEPT_EDITS, APPROVE_EACH_EDIT, KEEP_PLANNING};
use crate::testing::TestEditor;

fn exit_plan(input: serde_json::Value) -> CanUseTool {
    request(
        json!({"subtype": "can_use_tool", "tool_name": "ExitPlanMode",
        "display_name": "ExitPlanMode", "input": input, "tool_use_id": "toolu_plan",
        "requires_user_interaction": true}),
    )
}

fn with_plan() -> CanUseTool {
    exit_plan(
        json!({"plan": "1. Write a.txt\n2. Test it", "planFilePath": "/h/.claude/plans/p.md"}),
    )
}

#[tokio::test]
async fn the_plan_is_shown_with_three_ways_on() {
    let editor = Arc::new(TestEditor::answering(vec![pick(KEEP_PLANNING)]));
    run(&editor, with_plan()).await;

    let ask = &editor.asks()[0];
    assert_eq!(
        ask.tool_call.content.as_deref(),
        Some(
            &[ToolContent::Text {
                text: "1. Write a.txt\n2. Test it".into()
            }][..]
        )
    );
    assert_eq!(
        editor.option_names(0),
        [
            "Yes, and auto-accept edits",
            "Yes, and approve each edit",
            "No, keep planning"
        ]
    );
}

#[tokio::test]
async fn approving_switches_to_the_chosen_mode() {
    for (option, mode) in [
        (ACCEPT_EDITS, "acceptEdits"),
        (APPROVE_EACH_EDIT, "default"),
    ] {
        let editor = Arc::new(TestEditor::answering(vec![pick(option)]));
        let decision = run(&editor, with_plan()).await;
        assert_eq!(
            wire(&decision),
            json!({"behavior": "allow",
                   "updatedInput": {"plan": "1. Write a.txt\n2. Test it",
                                    "planFilePath": "/h/.claude/plans/p.md"},
                   "updatedPermissions": [{"type": "setMode", "mode": mode, "destination": "session"}]})
        );
        assert_eq!(decision.mode_change.as_deref(), Some(mode));
    }
}

#[tokio::test]
async fn keep_planning_denies_and_stays_in_plan_mode() {
    let editor = Arc::new(TestEditor::answering(vec![pick(KEEP_PLANNING)]));
    let decision = run(&editor, with_plan()).await;
    let reply = wire(&decision);
    assert_eq!(reply["behavior"], "deny");
    assert!(reply["message"].as_str().unwrap().contains("keep planning"));
    assert_eq!(decision.mode_change, None);
}

#[tokio::test]
async fn without_plan_text_the_call_says_so() {
    let editor = Arc::new(TestEditor::answering(vec![pick(APPROVE_EACH_EDIT)]));
    run(&editor, exit_plan(json!({}))).await;
    let content = format!("{:?}", editor.asks()[0].tool_call.content);
    assert!(content.contains("no plan text"), "{content}");
}

#[tokio::test]
async fn plan_approval_failures_deny_and_keep_the_mode() {
    for answer in [Err(EditorError::Closed), pick("allow_once")] {
        let editor = Arc::new(TestEditor::answering(vec![answer]));
        let decision = run(&editor, with_plan()).await;
        assert_eq!(wire(&decision)["behavior"], "deny");
        assert_eq!(decision.mode_change, None);
    }
}
