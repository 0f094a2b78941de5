//! Ordinary tool asks: the options offered, each reply shape, and every fail-closed path.

use std::sync::Arc;

use serde_json::json;

use super::{bash_ask, pick, request, run, run_with, wire, write_ask};
use crate::domain::{EditorError, PermissionOptionKind, PermissionOutcome, ToolContent};
use crate::permissions::{ALLOW_ALWAYS, ALLOW_ONCE, REJECT_ALWAYS, REJECT_ONCE, SessionRules};
use crate::testing::TestEditor;

#[tokio::test]
async fn a_write_ask_shows_the_diff_and_offers_all_four_choices() {
    let editor = Arc::new(TestEditor::answering(vec![pick(ALLOW_ONCE)]));
    run(&editor, write_ask()).await;

    let ask = &editor.asks()[0];
    assert_eq!(ask.session_id, "sess-1");
    assert_eq!(ask.tool_call.id, "toolu_write");
    assert_eq!(ask.tool_call.title.as_deref(), Some("Write hello.txt"));
    assert!(matches!(
        ask.tool_call.content.as_deref(),
        Some([ToolContent::Diff { new_text, .. }]) if new_text == "Hello\n"
    ));
    let kinds: Vec<_> = ask.options.iter().map(|o| o.kind).collect();
    assert_eq!(
        kinds,
        [
            PermissionOptionKind::AllowOnce,
            PermissionOptionKind::AllowAlways,
            PermissionOptionKind::RejectOnce,
            PermissionOptionKind::RejectAlways
        ]
    );
    assert_eq!(
        editor.option_names(0),
        [
            "Allow",
            "Allow all edits in this session",
            "Reject",
            "Always reject Edit(//srv/hello.txt) in this session"
        ]
    );
}

#[tokio::test]
async fn allow_once_answers_with_the_input_and_no_rules() {
    let editor = Arc::new(TestEditor::answering(vec![pick(ALLOW_ONCE)]));
    let decision = run(&editor, write_ask()).await;

    assert_eq!(
        wire(&decision),
        json!({"behavior": "allow",
               "updatedInput": {"file_path": "/srv/hello.txt", "content": "Hello\n"}})
    );
    assert_eq!(decision.mode_change, None);
    assert_eq!(decision.flag_settings, None);
}

#[tokio::test]
async fn allow_always_applies_the_suggested_rule_and_says_where_it_is_kept() {
    let editor = Arc::new(TestEditor::answering(vec![pick(ALLOW_ALWAYS)]));
    let decision = run(&editor, bash_ask()).await;

    assert_eq!(
        editor.option_names(0)[1],
        "Always allow Bash(npm test:*) in this project (saved in .claude/settings.local.json)"
    );
    assert_eq!(
        wire(&decision),
        json!({"behavior": "allow",
               "updatedInput": {"command": "npm test -- --watch=false", "description": "Run the tests"},
               "updatedPermissions": [{"type": "addRules",
                   "rules": [{"toolName": "Bash", "ruleContent": "npm test:*"}],
                   "behavior": "allow", "destination": "localSettings"}]})
    );
    assert_eq!(decision.mode_change, None);
}

#[tokio::test]
async fn allow_all_edits_switches_the_mode_for_the_session() {
    let editor = Arc::new(TestEditor::answering(vec![pick(ALLOW_ALWAYS)]));
    let decision = run(&editor, write_ask()).await;

    assert_eq!(
        wire(&decision)["updatedPermissions"],
        json!([{"type": "setMode", "mode": "acceptEdits", "destination": "session"}])
    );
    assert_eq!(decision.mode_change.as_deref(), Some("acceptEdits"));
}

#[tokio::test]
async fn several_suggestions_make_one_option_naming_each_and_applying_all() {
    let suggestions = json!([
        {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "touch /w/n.txt"}],
         "behavior": "allow", "destination": "localSettings"},
        {"type": "addDirectories", "directories": ["/w"], "destination": "session"},
        {"type": "setMode", "mode": "acceptEdits", "destination": "session"},
        {"type": "somethingNew", "destination": "session"}
    ]);
    let req = request(
        json!({"tool_name": "Bash", "input": {"command": "touch /w/n.txt"},
        "permission_suggestions": suggestions, "tool_use_id": "t"}),
    );
    let editor = Arc::new(TestEditor::answering(vec![pick(ALLOW_ALWAYS)]));
    let decision = run(&editor, req).await;

    assert_eq!(
        editor.option_names(0)[1],
        "Always allow Bash(touch /w/n.txt) in this project (saved in .claude/settings.local.json), \
         access to /w in this session and all edits in this session"
    );
    // What the label does not name is not applied either.
    assert_eq!(
        wire(&decision)["updatedPermissions"],
        json!(suggestions.as_array().unwrap()[..3])
    );
    assert_eq!(decision.mode_change.as_deref(), Some("acceptEdits"));
}

#[tokio::test]
async fn allow_always_for_this_session_is_kept_for_a_restarted_claude_and_saved_rules_are_not() {
    let suggestions = json!([
        {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "touch /w/n.txt"}],
         "behavior": "allow", "destination": "localSettings"},
        {"type": "addRules", "rules": [{"toolName": "mcp__acp__note"},
                                       {"toolName": "Bash", "ruleContent": "echo (x)"}],
         "behavior": "allow", "destination": "session"},
        {"type": "addDirectories", "directories": ["/w"], "destination": "session"},
        {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
    ]);
    let req = request(
        json!({"tool_name": "Bash", "input": {"command": "touch /w/n.txt"},
        "permission_suggestions": suggestions, "tool_use_id": "t"}),
    );
    let rules = SessionRules::new();
    assert_eq!(rules.flag_settings(), None);
    let editor = Arc::new(TestEditor::answering(vec![
        pick(ALLOW_ALWAYS),
        pick(REJECT_ALWAYS),
    ]));
    run_with(&editor, req, &rules).await;
    let kept = json!({"allow": ["mcp__acp__note", "Bash(echo \\(x\\))"],
                      "additionalDirectories": ["/w"]});
    assert_eq!(rules.flag_settings(), Some(json!({"permissions": kept})));

    // A later "always reject" re-sends the allow rules with it: claude replaces what it is sent.
    let rejected = run_with(&editor, bash_ask(), &rules).await;
    let mut all = kept.clone();
    all["deny"] = json!(["Bash(npm test:*)"]);
    assert_eq!(rejected.flag_settings, Some(json!({"permissions": all})));
    assert_eq!(rules.flag_settings(), rejected.flag_settings);
}

#[tokio::test]
async fn no_usable_suggestion_means_no_allow_always_and_picking_it_anyway_denies() {
    let req = request(json!({"tool_name": "WebSearch", "input": {"query": "rust"},
        "permission_suggestions": [{"type": "somethingNew", "destination": "session"}]}));
    let editor = Arc::new(TestEditor::answering(vec![pick(ALLOW_ALWAYS)]));
    let decision = run(&editor, req).await;

    assert_eq!(
        editor.option_names(0),
        ["Allow", "Reject", "Always reject WebSearch in this session"]
    );
    let reply = wire(&decision);
    assert_eq!(reply["behavior"], "deny");
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("did not offer (`allow_always`)")
    );
}

#[tokio::test]
async fn reject_once_denies_with_a_message_the_model_reads() {
    let editor = Arc::new(TestEditor::answering(vec![pick(REJECT_ONCE)]));
    let decision = run(&editor, write_ask()).await;

    assert_eq!(
        wire(&decision),
        json!({"behavior": "deny", "message": "The user rejected this Write call."})
    );
    assert_eq!(decision.flag_settings, None);
}

#[tokio::test]
async fn reject_always_denies_and_puts_every_rule_of_the_session_in_force() {
    let rules = SessionRules::new();
    let editor = Arc::new(TestEditor::answering(vec![
        pick(REJECT_ALWAYS),
        pick(REJECT_ALWAYS),
    ]));
    let first = run_with(&editor, bash_ask(), &rules).await;
    let second = run_with(&editor, write_ask(), &rules).await;

    assert_eq!(
        editor.option_names(0)[3],
        "Always reject Bash(npm test:*) in this session"
    );
    assert_eq!(wire(&first)["behavior"], "deny");
    assert!(
        wire(&first)["message"]
            .as_str()
            .unwrap()
            .contains("Bash(npm test:*)")
    );
    assert_eq!(
        first.flag_settings,
        Some(json!({"permissions": {"deny": ["Bash(npm test:*)"]}}))
    );
    // claude replaces the list on each apply, so the second carries the first rule too.
    assert_eq!(
        second.flag_settings,
        Some(json!({"permissions": {"deny": ["Bash(npm test:*)", "Edit(//srv/hello.txt)"]}}))
    );
    assert_eq!(rules.flag_settings(), second.flag_settings);
}

#[tokio::test]
async fn reject_always_rules_are_built_from_the_input_when_claude_suggests_none() {
    let cases = [
        (
            json!({"tool_name": "Edit", "input": {"file_path": "src/main.rs"}}),
            "Edit(//srv/src/main.rs)",
        ),
        (
            json!({"tool_name": "Bash", "input": {"command": "make clean"}}),
            "Bash(make clean)",
        ),
        (
            json!({"tool_name": "WebFetch", "input": {"url": "https://Docs.rs:443/x?y"}}),
            "WebFetch(domain:docs.rs)",
        ),
        (
            json!({"tool_name": "mcp__acp__write_note", "input": {}}),
            "mcp__acp__write_note",
        ),
    ];
    for (req, rule) in cases {
        let editor = Arc::new(TestEditor::answering(vec![pick(REJECT_ALWAYS)]));
        let decision = run(&editor, request(req)).await;
        assert_eq!(
            decision.flag_settings,
            Some(json!({"permissions": {"deny": [rule]}})),
            "{rule}"
        );
    }
}

#[tokio::test]
async fn an_mcp_ask_is_titled_with_the_server_and_tool_display_names() {
    let req = request(json!({"tool_name": "mcp__acp__write_note",
        "mcp_server": {"name": "acp", "source": "sdk"}, "display_name": "Write Note",
        "input": {"text": "milk"}, "server_policy_ask_only": true, "tool_use_id": "toolu_mcp",
        "permission_suggestions": [{"type": "addRules", "rules": [{"toolName": "mcp__acp__write_note"}],
            "behavior": "allow", "destination": "localSettings"}]}));
    let editor = Arc::new(TestEditor::answering(vec![pick(ALLOW_ONCE)]));
    run(&editor, req).await;

    assert_eq!(
        editor.asks()[0].tool_call.title.as_deref(),
        Some("acp: Write Note")
    );
    assert_eq!(
        editor.option_names(0)[1],
        "Always allow acp: Write Note in this project (saved in .claude/settings.local.json)"
    );
}

#[tokio::test]
async fn every_failure_to_get_an_answer_denies_and_names_the_reason() {
    let cases = [
        (
            Err(EditorError::Closed),
            "the connection to the editor is closed",
        ),
        (
            Err(EditorError::Rejected("boom".into())),
            "the editor answered with an error: boom",
        ),
        (
            Err(EditorError::Malformed("bad json".into())),
            "could not be read: bad json",
        ),
        (pick("no_such_option"), "did not offer (`no_such_option`)"),
        (
            Ok(PermissionOutcome::Cancelled),
            "cancelled the permission request",
        ),
    ];
    for (answer, reason) in cases {
        let editor = Arc::new(TestEditor::answering(vec![answer]));
        let reply = wire(&run(&editor, write_ask()).await);
        assert_eq!(reply["behavior"], "deny", "{reason}");
        let message = reply["message"].as_str().unwrap();
        assert!(
            message.contains(reason),
            "{message:?} should name {reason:?}"
        );
        assert!(
            message.contains("Write"),
            "{message:?} should name the tool"
        );
    }
}

#[tokio::test]
async fn an_input_that_is_not_an_object_is_allowed_as_an_empty_one() {
    let editor = Arc::new(TestEditor::answering(vec![pick(ALLOW_ONCE)]));
    let decision = run(&editor, request(json!({"tool_name": "Bash"}))).await;
    assert_eq!(
        wire(&decision),
        json!({"behavior": "allow", "updatedInput": {}})
    );
}

#[tokio::test]
async fn deny_rules_escape_parentheses_as_claude_writes_them_but_labels_do_not() {
    let req = request(
        json!({"tool_name": "Bash", "input": {"command": "python3 -c 'print(42)'"},
        "permission_suggestions": [{"type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "python3 -c 'print(42)'"}],
            "behavior": "allow", "destination": "localSettings"}]}),
    );
    let editor = Arc::new(TestEditor::answering(vec![pick(REJECT_ALWAYS)]));
    let decision = run(&editor, req).await;

    assert_eq!(
        editor.option_names(0)[3],
        "Always reject Bash(python3 -c 'print(42)') in this session"
    );
    assert_eq!(
        decision.flag_settings,
        Some(json!({"permissions": {"deny": ["Bash(python3 -c 'print\\(42\\)')"]}}))
    );
}

#[tokio::test]
async fn an_ask_without_a_tool_use_id_still_shows_a_tool_call_with_an_id_of_its_own() {
    let editor = Arc::new(TestEditor::answering(vec![
        pick(ALLOW_ONCE),
        pick(ALLOW_ONCE),
    ]));
    let mut ask = write_ask();
    ask.tool_use_id = None;
    run(&editor, ask.clone()).await;
    run(&editor, ask).await;

    let asks = editor.asks();
    assert!(!asks[0].tool_call.id.is_empty());
    assert_ne!(
        asks[0].tool_call.id, asks[1].tool_call.id,
        "each ask its own id"
    );
}

#[tokio::test]
async fn a_powershell_ask_is_ruled_on_per_command_like_bash() {
    // claude.exe asks for PowerShell with no suggestion of its own: "always" is for this command,
    // never for every PowerShell command.
    let req = request(json!({"tool_name": "PowerShell",
        "input": {"command": "Remove-Item build -Recurse", "description": "Clean"},
        "permission_suggestions": []}));
    let editor = Arc::new(TestEditor::answering(vec![pick(REJECT_ONCE)]));
    let decision = run(&editor, req).await;

    assert_eq!(
        editor.asks()[0].tool_call.title.as_deref(),
        Some("Run `Remove-Item build -Recurse`")
    );
    assert_eq!(
        editor.option_names(0),
        [
            "Allow",
            "Reject",
            "Always reject PowerShell(Remove-Item build -Recurse) in this session"
        ]
    );
    assert_eq!(wire(&decision)["behavior"], "deny");
}
