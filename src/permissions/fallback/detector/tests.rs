//! The break detector against the real CLI's transcripts (fixtures/transcripts) and a few shapes
//! the transcripts do not cover.

use std::path::Path;

use serde_json::{Value, json};

use super::*;

/// Every `claude->client` message of a transcript, in order, as the session would see them;
/// `perm_mcp` tool calls become `saw_can_use_tool` (the MCP path's asks) when `mcp_asks` is set.
fn run_transcript(name: &str, mcp_asks: bool) -> Vec<BreakSymptom> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/transcripts")
        .join(format!("{name}.jsonl"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut detector = BreakDetector::new();
    let mut symptoms = Vec::new();
    for line in text.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        match record["dir"].as_str() {
            Some("claude->client") => {
                let message = ClaudeMessage::from_value(record["msg"].clone()).unwrap();
                symptoms.extend(detector.on_message(&message));
            }
            Some("perm_mcp") if mcp_asks => {
                let call = &record["msg"]["msg"];
                if call["method"] == "tools/call" {
                    let id = call["params"]["arguments"]["tool_use_id"].as_str().unwrap();
                    detector.saw_can_use_tool(id);
                }
            }
            _ => {}
        }
    }
    symptoms
}

#[test]
fn no_permission_prompt_tool_is_one_break_for_the_denied_write() {
    let symptoms = run_transcript("j_no_permission_prompt_tool", false);
    assert_eq!(symptoms.len(), 1, "{symptoms:?}");
    let symptom = &symptoms[0];
    assert_eq!(symptom.kind, BreakKind::DeniedWithoutAsking);
    assert_eq!(symptom.tool_name.as_deref(), Some("Write"));
    assert_eq!(
        symptom.tool_use_id.as_deref(),
        Some("toolu_c460ccea9ecd43ebabdfb670")
    );
    assert_eq!(symptom.tool_input.as_ref().unwrap()["content"], "Hello\n");
    assert_eq!(
        symptom.description(),
        "claude denied Write without asking: the stdio permission channel is not working; \
         switching to the MCP permission tool"
    );
}

#[test]
fn an_ask_denied_for_lack_of_an_approval_surface_is_a_break() {
    let symptoms = run_transcript("j2_permission_prompts_none", false);
    assert_eq!(symptoms.len(), 1, "{symptoms:?}");
    assert_eq!(symptoms[0].kind, BreakKind::DeniedWithoutAsking);
    assert_eq!(symptoms[0].tool_name.as_deref(), Some("Write"));
}

#[test]
fn claude_rejecting_our_answer_is_a_break_but_an_accepted_allow_is_not() {
    let symptoms = run_transcript("o_permission_reply_variants", false);
    assert_eq!(symptoms.len(), 1, "{symptoms:?}");
    let symptom = &symptoms[0];
    let BreakKind::AnswerRejected { detail } = &symptom.kind else {
        panic!("{symptom:?}")
    };
    assert!(detail.contains("invalid permission result"), "{detail}");
    assert_eq!(symptom.tool_name.as_deref(), Some("Bash"));
    assert_eq!(
        symptom.tool_input.as_ref().unwrap()["command"],
        "touch /run/work/never.txt"
    );
    assert!(
        symptom
            .description()
            .starts_with("claude rejected the permission answer for Bash (\"The canUseTool"),
        "{}",
        symptom.description()
    );
}

#[test]
fn working_stdio_sessions_show_no_break() {
    // Allowed, denied by the user, AskUserQuestion, interrupted with an ask pending, mode changes,
    // SDK MCP tools, subagents, malformed input: every ask reached the host.
    for name in [
        "a_text",
        "b_write_allow",
        "c_write_deny",
        "d_ask_user_question",
        "e_sdk_mcp",
        "e2_sdk_mcp_no_toolsearch",
        "f_interrupt",
        "f2_interrupt_pending_permission",
        "g_set_permission_mode",
        "h_partial_messages",
        "i_resume",
        "l_bash_edit",
        "m_todowrite",
        "m2_task_tools",
        "n_malformed_input",
        "p_close_stdin_midturn",
        "q_rate_limit_event",
    ] {
        let symptoms = run_transcript(name, false);
        assert!(symptoms.is_empty(), "{name}: {symptoms:?}");
    }
}

#[test]
fn on_the_mcp_path_asks_reported_by_the_tool_count_as_seen() {
    for name in [
        "k_mcp_permission_prompt_tool",
        "k2_mcp_permission_prompt_tool_structured",
    ] {
        let symptoms = run_transcript(name, true);
        assert!(symptoms.is_empty(), "{name}: {symptoms:?}");
    }
    // Without telling the detector, the MCP tool's deny looks like a tool nobody asked about.
    assert!(!run_transcript("k_mcp_permission_prompt_tool", false).is_empty());
}

fn message(value: Value) -> ClaudeMessage {
    ClaudeMessage::from_value(value).unwrap()
}

#[test]
fn denials_by_the_users_own_rules_mode_or_hooks_are_not_a_break() {
    for reason in ["rule", "mode", "hook", "subcommandResults"] {
        let mut detector = BreakDetector::new();
        let denied = message(json!({"type": "system", "subtype": "permission_denied",
            "tool_name": "Bash", "tool_use_id": "toolu_1", "decision_reason_type": reason,
            "message": "Permission to use Bash has been denied."}));
        assert_eq!(detector.on_message(&denied), None, "{reason}");
        let result = message(json!({"type": "result", "subtype": "success",
            "permission_denials": [{"tool_name": "Bash", "tool_use_id": "toolu_1",
                                    "tool_input": {"command": "rm -rf x"}}]}));
        assert_eq!(detector.on_message(&result), None, "{reason}");
    }
}

#[test]
fn a_denial_seen_only_in_the_result_is_a_break_with_its_input() {
    let mut detector = BreakDetector::new();
    let result = message(json!({"type": "result", "subtype": "success",
        "permission_denials": [{"tool_name": "Edit", "tool_use_id": "toolu_9",
                                "tool_input": {"file_path": "/w/a"}}]}));
    let symptom = detector.on_message(&result).unwrap();
    assert_eq!(symptom.kind, BreakKind::DeniedWithoutAsking);
    assert_eq!(symptom.tool_name.as_deref(), Some("Edit"));
    assert_eq!(symptom.tool_input, Some(json!({"file_path": "/w/a"})));
}

#[test]
fn a_zod_error_for_a_tool_that_ran_is_the_tools_own_output() {
    let ask = message(json!({"type": "control_request", "request_id": "r1",
        "request": {"subtype": "can_use_tool", "tool_name": "Bash",
                    "input": {"command": "npm test"}, "tool_use_id": "toolu_b"}}));
    let output = |meta: Value| {
        message(
            json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_b", "is_error": true,
             "content": "Exit code 1\nZodError: expected string"}]},
            "tool_result_meta": meta}),
        )
    };
    let mut detector = BreakDetector::new();
    detector.on_message(&ask);
    let ran = json!([{"id": "toolu_b", "permission_decision": {"decision": "accept"}}]);
    assert_eq!(detector.on_message(&output(ran)), None);

    let mut detector = BreakDetector::new();
    detector.on_message(&ask);
    let refused = json!([{"id": "toolu_b", "non_execution_kind": "permission-rule"}]);
    let symptom = detector.on_message(&output(refused)).unwrap();
    assert!(matches!(symptom.kind, BreakKind::AnswerRejected { .. }));
}

#[test]
fn an_error_reply_to_our_permission_answer_is_a_break() {
    let mut detector = BreakDetector::new();
    detector.on_message(&message(
        json!({"type": "control_request", "request_id": "r7",
        "request": {"subtype": "can_use_tool", "tool_name": "Write", "input": {},
                    "tool_use_id": "toolu_w"}}),
    ));
    let unrelated = message(json!({"type": "control_response", "response": {
        "subtype": "error", "request_id": "init_1", "error": "Unsupported control request"}}));
    assert_eq!(detector.on_message(&unrelated), None);
    let rejected = message(json!({"type": "control_response", "response": {
        "subtype": "error", "request_id": "r7", "error": "Invalid permission response"}}));
    let symptom = detector.on_message(&rejected).unwrap();
    assert_eq!(
        symptom.kind,
        BreakKind::AnswerRejected {
            detail: "Invalid permission response".into()
        }
    );
    assert_eq!(symptom.tool_use_id.as_deref(), Some("toolu_w"));
}

#[test]
fn refusing_the_flag_at_spawn_is_a_break() {
    let stderr =
        "error: unknown option '--permission-prompt-tool'\n(Did you mean --permission-mode?)\n";
    let symptom = BreakDetector::on_exit(stderr).unwrap();
    assert_eq!(
        symptom.kind,
        BreakKind::FlagRefused {
            detail: "error: unknown option '--permission-prompt-tool'".into()
        }
    );
    assert!(
        symptom.description().starts_with(
            "claude cannot use --permission-prompt-tool stdio (\"error: unknown option"
        )
    );
    assert_eq!(
        BreakDetector::on_exit("error: unknown option '--verbose'\n"),
        None
    );
    assert_eq!(BreakDetector::on_exit(""), None);
}

#[test]
fn an_unknown_permission_prompt_tool_is_a_break_at_the_first_ask() {
    // What the pinned claude prints when `--permission-prompt-tool` names a tool it does not know.
    let mut detector = BreakDetector::new();
    detector.on_message(&message(
        json!({"type": "assistant", "message": {"content": [
        {"type": "tool_use", "id": "toolu_m", "name": "Write",
         "input": {"file_path": "/w/hello.txt", "content": "x"}}]}}),
    ));
    let failed = message(
        json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "is_error": true, "tool_use_id": "toolu_m",
         "content": "<tool_use_error>Error calling tool (Write): Error: MCP tool stdio2 (passed \
                     via --permission-prompt-tool) not found. Available MCP tools: none\
                     </tool_use_error>"}]}}),
    );
    let symptom = detector.on_message(&failed).unwrap();
    let BreakKind::FlagRefused { detail } = &symptom.kind else {
        panic!("{symptom:?}")
    };
    assert!(detail.starts_with("Error calling tool (Write)"), "{detail}");
    assert_eq!(symptom.tool_name.as_deref(), Some("Write"));
    assert_eq!(symptom.tool_input.as_ref().unwrap()["content"], "x");
    let stderr = "Error: MCP tool stdio2 (passed via --permission-prompt-tool) not found.\n";
    assert!(BreakDetector::on_exit(stderr).is_some());
}

#[test]
fn a_long_input_is_not_kept_and_the_symptom_names_the_tool_alone() {
    let mut detector = BreakDetector::new();
    let content = "x".repeat(KEPT_INPUT_BYTES);
    detector.on_message(&message(
        json!({"type": "assistant", "message": {"content": [
        {"type": "tool_use", "id": "toolu_big", "name": "Write",
         "input": {"file_path": "/w/big.txt", "content": content}},
        {"type": "tool_use", "id": "toolu_small", "name": "Write",
         "input": {"file_path": "/w/small.txt", "content": "y"}}]}}),
    ));
    assert!(
        detector.tool_uses["toolu_big"].1.is_none(),
        "not kept for the turn"
    );
    let denied = |id: &str| {
        message(
            json!({"type": "system", "subtype": "permission_denied", "tool_use_id": id,
            "tool_name": "Write"}),
        )
    };
    let symptom = detector.on_message(&denied("toolu_big")).unwrap();
    assert_eq!(symptom.tool_name.as_deref(), Some("Write"));
    assert_eq!(symptom.tool_input, None);
    let symptom = detector.on_message(&denied("toolu_small")).unwrap();
    assert_eq!(symptom.tool_input.unwrap()["content"], "y");
}
