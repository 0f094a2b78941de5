//! The hand-written 1.20 types against the vendored 1.20 definitions: each writes only
//! properties its definition has, every property it requires, and the tags it names. The
//! messages on the wire are validated whole by the integration tests (`tests/it/support/`).

use serde_json::{Value, json};

use super::*;

fn definitions(version: &str) -> Value {
    let text = match version {
        "v1" => include_str!("../../tests/schema_1_20/v1.json"),
        _ => include_str!("../../tests/schema_1_20/v2.json"),
    };
    serde_json::from_str::<Value>(text).unwrap()["$defs"].take()
}

/// Where `value`'s object keys leave the properties of definition `name` or miss a required one.
fn shape_faults(defs: &Value, name: &str, value: &Value) -> Vec<String> {
    let def = &defs[name];
    assert!(def.is_object(), "1.20 has no definition {name}");
    let props = def["properties"].as_object().expect("an object definition");
    let mut faults = Vec::new();
    for (key, inner) in value.as_object().expect("an object") {
        let Some(prop) = props.get(key) else {
            faults.push(format!("{name}.{key} is not in 1.20"));
            continue;
        };
        let referenced = prop["$ref"].as_str().or_else(|| {
            prop["anyOf"]
                .as_array()
                .and_then(|any| any.iter().find_map(|s| s["$ref"].as_str()))
        });
        let nested = referenced.map(|r| r.rsplit('/').next().unwrap());
        if let Some(nested) = nested
            && inner.is_object()
            && defs[nested]["properties"].is_object()
        {
            faults.extend(shape_faults(defs, nested, inner));
        }
    }
    for required in def["required"].as_array().into_iter().flatten() {
        if value.get(required.as_str().unwrap()).is_none() {
            faults.push(format!("{name}.{required} is required"));
        }
    }
    faults
}

/// The constant a tagged union's `tag` takes for the variant `def` (its `anyOf`/`oneOf`).
fn tags(defs: &Value, union: &str, tag: &str) -> Vec<String> {
    let union = &defs[union];
    let variants = union["anyOf"].as_array().or(union["oneOf"].as_array());
    variants
        .into_iter()
        .flatten()
        .filter_map(|v| v["properties"][tag]["const"].as_str().map(str::to_owned))
        .collect()
}

fn cursor_update() -> CursorUpdate {
    CursorUpdate {
        cursor_id: CursorId("c1".into()),
        capabilities: Some(CursorCapabilities {
            fork: Some(CursorForkCapabilities {}),
        }),
        anchor: Some(CursorAnchor::UserMessage(CursorMessageAnchor {
            message_id: "m1".into(),
            position: CursorAnchorPosition::After,
        })),
    }
}

#[test]
fn a_cursor_update_is_1_20s_on_both_versions() {
    for version in ["v1", "v2"] {
        let defs = definitions(version);
        let update =
            serde_json::to_value(SessionUpdate1_20::CursorUpdate(cursor_update())).unwrap();
        assert!(tags(&defs, "SessionUpdate", "sessionUpdate").contains(&"cursor_update".into()));
        let mut fields = update.clone();
        fields.as_object_mut().unwrap().remove("sessionUpdate");
        assert_eq!(
            shape_faults(&defs, "CursorUpdate", &fields),
            Vec::<String>::new()
        );
        let anchor = &update["anchor"];
        assert_eq!(anchor["type"], "user_message");
        assert!(tags(&defs, "CursorAnchor", "type").contains(&"user_message".into()));
        assert!(tags(&defs, "CursorAnchor", "type").contains(&"agent_message".into()));
        let mut message = anchor.clone();
        message.as_object_mut().unwrap().remove("type");
        assert_eq!(
            shape_faults(&defs, "CursorMessageAnchor", &message),
            Vec::<String>::new()
        );
        assert_eq!(anchor["position"], "after", "{update}");
    }
}

#[test]
fn replay_complete_is_a_v2_update_of_1_20() {
    let defs = definitions("v2");
    let update =
        serde_json::to_value(SessionUpdate1_20::ReplayComplete(ReplayComplete {})).unwrap();
    assert_eq!(update, json!({"sessionUpdate": "replay_complete"}));
    assert!(tags(&defs, "SessionUpdate", "sessionUpdate").contains(&"replay_complete".into()));
    assert!(
        !tags(&definitions("v1"), "SessionUpdate", "sessionUpdate")
            .contains(&"replay_complete".into())
    );
}

#[test]
fn an_idempotency_key_is_1_to_255_characters() {
    let key = |v: Value| IdempotencyKey::of_params(&json!({"idempotencyKey": v}));
    let def = &definitions("v2")["IdempotencyKey"];
    assert_eq!(
        (def["minLength"].clone(), def["maxLength"].clone()),
        (json!(1), json!(255))
    );
    assert!(definitions("v2")["PromptRequest"]["properties"]["idempotencyKey"].is_object());
    assert_eq!(
        key(json!("é".repeat(255))).unwrap().unwrap().as_str(),
        "é".repeat(255)
    );
    assert!(key(json!("a".repeat(256))).is_err());
    assert!(key(json!("")).is_err());
    assert!(key(json!(7)).is_err());
    assert_eq!(IdempotencyKey::of_params(&json!({})).unwrap(), None);
}

#[test]
fn a_fork_names_its_cursor_and_a_v1_editor_declares_cursors() {
    for version in ["v1", "v2"] {
        assert!(definitions(version)["ForkSessionRequest"]["properties"]["cursorId"].is_object());
    }
    assert_eq!(
        fork_cursor(&json!({"cursorId": "c1"})).unwrap(),
        Some(CursorId("c1".into()))
    );
    assert_eq!(fork_cursor(&json!({})).unwrap(), None);
    assert!(fork_cursor(&json!({"cursorId": ""})).is_err());
    let caps = &definitions("v1")["ClientSessionCapabilities"]["properties"];
    assert!(caps["cursors"].is_object());
}

#[test]
fn what_an_editor_declares_past_the_sdk_is_read_from_its_raw_initialize() {
    let v1 = &definitions("v1")["ClientSessionCapabilities"]["properties"];
    assert!(v1["cursors"].is_object() && v1["promptSuggestions"].is_object());
    let v2 = &definitions("v2")["ClientSessionCapabilities"]["properties"];
    assert!(v2["promptSuggestions"].is_object());
    assert!(definitions("v2")["CommandsCapabilities"]["properties"]["skill"].is_object());
    let read = |params: Value| Declared1_20::of_initialize(&params);
    assert_eq!(
        read(
            json!({"protocolVersion": 1, "clientCapabilities": {"session": {
            "cursors": {}, "promptSuggestions": {"image": {}}}}})
        ),
        Declared1_20 {
            prompt_suggestions: true,
            skill_commands: false,
            cursors: true
        }
    );
    assert_eq!(
        read(json!({"protocolVersion": 2, "capabilities": {"session": {
            "promptSuggestions": {}, "commands": {"skill": {}}}}})),
        Declared1_20 {
            prompt_suggestions: true,
            skill_commands: true,
            cursors: false
        }
    );
    for nothing in [
        json!({"protocolVersion": 1}),
        json!({"clientCapabilities": {"session": null}}),
        json!({"clientCapabilities": {"session": {"promptSuggestions": null, "cursors": true}}}),
        json!({"capabilities": {"session": {"commands": {}}}}),
        json!({"capabilities": {"session": {"commands": {"skill": false}}}}),
    ] {
        assert_eq!(read(nothing), Declared1_20::default());
    }
}

#[test]
fn a_markdown_plan_update_carries_its_files_path_as_1_20_does() {
    let plan = PlanMarkdown {
        plan_id: "plan-file".into(),
        content: "# Fix\n".into(),
        path: Some("/plans/fix.md".into()),
    };
    let update = serde_json::to_value(SessionUpdate1_20::PlanUpdate {
        plan: PlanContent::Markdown(plan),
    })
    .unwrap();
    assert_eq!(
        update,
        json!({"sessionUpdate": "plan_update", "plan": {"type": "markdown",
            "planId": "plan-file", "content": "# Fix\n", "path": "/plans/fix.md"}})
    );
    for version in ["v1", "v2"] {
        let defs = definitions(version);
        assert!(tags(&defs, "SessionUpdate", "sessionUpdate").contains(&"plan_update".into()));
        assert!(tags(&defs, "PlanUpdateContent", "type").contains(&"markdown".into()));
        let mut markdown = update["plan"].clone();
        markdown.as_object_mut().unwrap().remove("type");
        assert_eq!(
            shape_faults(&defs, "PlanMarkdown", &markdown),
            Vec::<String>::new()
        );
    }
}

#[test]
fn a_skill_block_first_in_a_prompt_is_the_skills_slash_command_for_claude() {
    let text = |params: Value| -> Result<Value, AgentError> {
        let mut params = params;
        skill_as_text(&mut params).map(|()| params["prompt"].clone())
    };
    let skill = json!({"type": "skill", "name": "greet"});
    let words = json!({"type": "text", "text": "the crew"});
    assert_eq!(
        text(json!({"prompt": [skill, words]})).unwrap(),
        json!([{"type": "text", "text": "/greet the crew"}])
    );
    assert_eq!(
        text(json!({"prompt": [skill]})).unwrap(),
        json!([{"type": "text", "text": "/greet"}])
    );
    assert_eq!(text(json!({"prompt": [words]})).unwrap(), json!([words]));
    for bad in [
        json!([words, skill]),
        json!([skill, skill]),
        json!([{"type": "skill", "name": "two words"}]),
        json!([{"type": "skill"}]),
    ] {
        assert!(
            matches!(
                text(json!({"prompt": bad})),
                Err(AgentError::InvalidParams(_))
            ),
            "{bad}"
        );
    }
}
