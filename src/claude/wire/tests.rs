//! The wire shapes: lenient in, exact out.

use super::*;
use serde_json::json;

#[test]
fn background_tasks_name_only_work_claude_must_stay_up_for() {
    let line = json!({"type": "system", "subtype": "background_tasks_changed", "session_id": "s",
        "uuid": "u", "tasks": [
            {"task_id": "a", "task_type": "local_bash", "description": "sleep 60"},
            {"task_id": "b", "task_type": "local_agent", "description": "review", "ambient": false},
            {"task_id": "c", "task_type": "monitor", "description": "watch", "ambient": true},
            {"task_id": "d", "task_type": "remote_agent", "description": "far", "off_host": true}]});
    let ClaudeMessage::System(s) = ClaudeMessage::parse(&line.to_string()).unwrap() else {
        panic!()
    };
    assert_eq!(
        s.background_tasks_running(),
        Some(vec!["a".to_owned(), "b".to_owned()])
    );
    let ClaudeMessage::System(s) =
        ClaudeMessage::parse(r#"{"type":"system","subtype":"status"}"#).unwrap()
    else {
        panic!()
    };
    assert_eq!(s.background_tasks_running(), None);
}

#[test]
fn unknown_types_and_fields_are_kept_not_rejected() {
    let m = ClaudeMessage::parse(r#"{"type":"a_future_event","x":1}"#).unwrap();
    assert!(matches!(m, ClaudeMessage::Unknown(_)));
    let m = ClaudeMessage::parse(
        r#"{"type":"system","subtype":"init","new_field":[1],"session_id":"s"}"#,
    )
    .unwrap();
    let ClaudeMessage::System(s) = m else {
        panic!()
    };
    assert_eq!(s.subtype, "init");
    assert_eq!(s.rest["new_field"], json!([1]));
}

#[test]
fn unknown_content_blocks_parse_as_other() {
    let m = ClaudeMessage::parse(
        r#"{"type":"assistant","message":{"content":[{"type":"server_tool_use","id":"x"},{"type":"text","text":"hi"}]}}"#,
    )
    .unwrap();
    let ClaudeMessage::Assistant(a) = m else {
        panic!()
    };
    assert_eq!(a.message.content[0], ContentBlock::Other);
    assert_eq!(
        a.message.content[1],
        ContentBlock::Text { text: "hi".into() }
    );
}

#[test]
fn deny_always_carries_a_message_and_allow_an_input() {
    let deny = ClaudeInput::success(
        "r1",
        serde_json::to_value(PermissionDecision::Deny {
            message: "no".into(),
            interrupt: false,
        })
        .unwrap(),
    );
    assert_eq!(
        deny.to_line(),
        "{\"type\":\"control_response\",\"response\":{\"subtype\":\"success\",\"request_id\":\"r1\",\"response\":{\"behavior\":\"deny\",\"message\":\"no\"}}}\n"
    );
    let allow = serde_json::to_value(PermissionDecision::Allow {
        updated_input: json!({"a": 1}),
        updated_permissions: vec![],
    })
    .unwrap();
    assert_eq!(allow, json!({"behavior":"allow","updatedInput":{"a":1}}));
}

#[test]
fn an_answer_says_who_decided_it_in_the_agent_sdks_words() {
    use super::DecisionClassification as By;
    let allow = || PermissionDecision::Allow {
        updated_input: json!({}),
        updated_permissions: vec![],
    };
    for (by, word) in [
        (By::UserTemporary, "user_temporary"),
        (By::UserPermanent, "user_permanent"),
        (By::UserReject, "user_reject"),
        (By::Config, "config"),
    ] {
        assert_eq!(
            allow().into_value_by(Some(by))["decisionClassification"],
            word
        );
    }
    assert!(
        allow()
            .into_value_by(None)
            .get("decisionClassification")
            .is_none()
    );
}

#[test]
fn control_requests_serialize_as_claude_expects() {
    let line = ClaudeInput::ControlRequest {
        request_id: "a".into(),
        request: OutboundControl::Interrupt,
    }
    .to_line();
    assert_eq!(
        line,
        "{\"type\":\"control_request\",\"request_id\":\"a\",\"request\":{\"subtype\":\"interrupt\"}}\n"
    );
    let line = ClaudeInput::ControlRequest {
        request_id: "b".into(),
        request: OutboundControl::SetPermissionMode {
            mode: "plan".into(),
        },
    }
    .to_line();
    assert!(line.contains("\"subtype\":\"set_permission_mode\",\"mode\":\"plan\""));
}

#[test]
fn mcp_control_requests_are_the_shapes_the_cli_takes() {
    // As the pinned claude answered them (a server toggled off and on, reconnected).
    let cases = [
        (OutboundControl::McpStatus, json!({"subtype": "mcp_status"})),
        (
            OutboundControl::McpReconnect {
                server_name: "echo".into(),
            },
            json!({"subtype": "mcp_reconnect", "serverName": "echo"}),
        ),
        (
            OutboundControl::McpToggle {
                server_name: "echo".into(),
                enabled: false,
            },
            json!({"subtype": "mcp_toggle", "serverName": "echo", "enabled": false}),
        ),
    ];
    for (request, wire) in cases {
        assert_eq!(serde_json::to_value(&request).unwrap(), wire);
    }
}

#[test]
fn rename_session_is_the_shape_the_cli_takes() {
    // As the pinned claude answered it (`sdk.d.ts`'s `SDKControlRenameSessionRequest`).
    let request = OutboundControl::RenameSession {
        title: "Pineapple notes".into(),
        source: "host",
        session_id: "s1".into(),
    };
    assert_eq!(
        serde_json::to_value(&request).unwrap(),
        json!({"subtype": "rename_session", "title": "Pineapple notes", "source": "host",
               "session_id": "s1"})
    );
}

#[test]
fn models_keep_their_effort_levels_only_when_they_support_effort() {
    let reply = json!({"models": [
        {"value": "default", "displayName": "Default (recommended)", "description": "Opus",
         "supportsEffort": true, "supportedEffortLevels": ["low", "high"]},
        {"value": "haiku", "supportsEffort": false, "supportedEffortLevels": ["low"]},
        {"value": "odd", "supportedEffortLevels": "low", "displayName": 5},
        {"displayName": "no value"},
    ]});
    let models = ModelInfo::from_initialize_reply(&reply);
    let values: Vec<&str> = models.iter().map(|m| m.value.as_str()).collect();
    assert_eq!(values, ["default", "haiku", "odd"]);
    assert_eq!(
        models[0].display_name.as_deref(),
        Some("Default (recommended)")
    );
    assert_eq!(models[0].effort_levels(), ["low", "high"]);
    assert!(models[1].effort_levels().is_empty());
    assert!(models[2].effort_levels().is_empty());
    assert!(ModelInfo::from_initialize_reply(&json!({})).is_empty());
}

#[test]
fn tool_progress_is_read_leniently() {
    let line = r#"{"type":"tool_progress","tool_use_id":"t1","tool_name":"Bash","parent_tool_use_id":"task1","elapsed_time_seconds":12.5,"uuid":"u","session_id":"s"}"#;
    let ClaudeMessage::ToolProgress(p) = ClaudeMessage::parse(line).unwrap() else {
        panic!()
    };
    assert_eq!(p.tool_use_id, "t1");
    assert_eq!(p.parent_tool_use_id.as_deref(), Some("task1"));
    assert_eq!(p.elapsed_time_seconds, 12.5);
    let odd = r#"{"type":"tool_progress","tool_use_id":"t2","elapsed_time_seconds":"x","parent_tool_use_id":null}"#;
    assert!(matches!(
        ClaudeMessage::parse(odd),
        Ok(ClaudeMessage::ToolProgress(_))
    ));
}

#[test]
fn effort_goes_to_the_flag_settings_layer() {
    let line = ClaudeInput::ControlRequest {
        request_id: "e".into(),
        request: OutboundControl::set_effort(Some("high")),
    }
    .to_line();
    assert!(
        line.contains(
            r#""request":{"subtype":"apply_flag_settings","settings":{"effortLevel":"high"}}"#
        ),
        "{line}"
    );
    let reset = serde_json::to_value(OutboundControl::set_effort(None)).unwrap();
    assert_eq!(reset["settings"], json!({"effortLevel": null}));
}

#[test]
fn contents_are_a_string_or_a_list_and_nothing_else() {
    let user = |content: &str| {
        ClaudeMessage::parse(&format!(
            r#"{{"type":"user","message":{{"content":{content}}}}}"#
        ))
    };
    let content = |line| match line {
        Ok(ClaudeMessage::User(user)) => user.message.content,
        other => panic!("{other:?}"),
    };
    assert_eq!(content(user(r#""hi""#)), UserContent::Text("hi".into()));
    let UserContent::Blocks(blocks) = content(user(
        r#"[{"type":"tool_result","tool_use_id":"t","content":"a\nb"},{"type":"tool_result","tool_use_id":"u","content":[{"type":"text","text":"c"}]}]"#,
    )) else {
        panic!("not blocks");
    };
    let texts: Vec<String> = blocks
        .into_iter()
        .map(|block| match block {
            ContentBlock::ToolResult { content, .. } => content.into_text(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(texts, ["a\nb", "c"]);
    for bad in [
        "5",
        r#"{"a":1}"#,
        "true",
        r#"[{"type":"tool_result","tool_use_id":"t","content":null}]"#,
        r#"[{"type":"tool_result","tool_use_id":"t","content":{"text":"x"}}]"#,
    ] {
        assert!(
            matches!(user(bad), Err(WireError::BadShape { .. })),
            "{bad}"
        );
    }
}

#[test]
fn a_result_says_which_messages_it_answered_and_whether_claude_started_the_turn() {
    let parse = |line: &str| match ClaudeMessage::parse(line).unwrap() {
        ClaudeMessage::Result(r) => r,
        other => panic!("not a result: {other:?}"),
    };
    let ours = parse(r#"{"type":"result","subtype":"success","user_message_uuids":["a","b"]}"#);
    assert_eq!(ours.user_message_uuids, Some(vec!["a".into(), "b".into()]));
    assert!(!ours.autonomous());
    // The pinned claude's follow-up to a background job that ended (captured on the mock API).
    let follow_up = parse(
        r#"{"type":"result","subtype":"success","origin":{"kind":"task-notification","producer":"session-task","runId":"r"}}"#,
    );
    assert_eq!(follow_up.user_message_uuids, None);
    assert!(follow_up.autonomous());
    let odd = parse(r#"{"type":"result","origin":"x","user_message_uuids":"y"}"#);
    assert!(!odd.autonomous());
    assert_eq!(odd.user_message_uuids, None);
}
