//! Conformance with the ACP schema the pinned SDK carries: every stable agent method, agent
//! capability and session update kind is implemented and advertised, or listed with the reason
//! in the protocol reference's "Not supported" section (`docs/protocol.md`). A new SDK version
//! with new stable items fails here until they are built or listed.

use std::collections::BTreeSet;

use agent_client_protocol::v1::schema as acp;
use serde_json::Value;

use crate::acp::shared::initialize::initialize_response;
use crate::acp::shared::to_proto;
use crate::acp::v1::server::HANDLED_METHODS;
use crate::domain::{
    CompactionStatus, ContentChunk, Notice, NoticeSeverity, SessionUpdate, SubagentState,
    SubagentUpdate, ToolCall, ToolCallUpdate, ToolKind, ToolStatus, Usage,
};
use crate::fuzzing::InstantCore;

/// The `- `item`: reason` lines under "Not supported" in the protocol reference.
fn listed_unsupported() -> BTreeSet<String> {
    let reference = include_str!("../../../docs/protocol.md");
    let section = reference
        .split("## Not supported")
        .nth(1)
        .expect("docs/protocol.md has a \"## Not supported\" section");
    let section = section.split("\n#").next().unwrap_or_default();
    section
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("- `")?;
            let (item, reason) = rest.split_once("`: ")?;
            (!reason.trim().is_empty()).then(|| item.to_owned())
        })
        .collect()
}

fn is_unstable(schema: &Value) -> bool {
    schema["description"]
        .as_str()
        .is_some_and(|d| d.contains("**UNSTABLE**"))
}

/// The schema of a `$ref` (or the schema itself).
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let Some(r) = schema["$ref"].as_str() else {
        if let Some(first) = schema["anyOf"].as_array().and_then(|a| a.first()) {
            return resolve(root, first);
        }
        return schema;
    };
    let name = r.rsplit('/').next().unwrap_or_default();
    &root["$defs"][name]
}

/// Stable capability paths (`sessionCapabilities.delete`, `promptCapabilities.image`, ...).
fn capability_paths(root: &Value, schema: &Value, prefix: &str, out: &mut Vec<String>) {
    let Some(props) = resolve(root, schema)["properties"].as_object() else {
        return;
    };
    for (name, prop) in props {
        if name == "_meta" || is_unstable(prop) {
            continue;
        }
        let path = format!("{prefix}{name}");
        let inner = resolve(root, prop);
        let has_children = inner["properties"]
            .as_object()
            .is_some_and(|p| p.keys().any(|k| k != "_meta"));
        // Object capabilities whose presence means support (`{}`) are items themselves.
        let presence = prop["anyOf"].is_array() || prop["type"].as_array().is_some();
        if has_children && !presence {
            capability_paths(root, prop, &format!("{path}."), out);
        } else {
            out.push(path);
        }
    }
}

fn advertised(caps: &Value, path: &str) -> bool {
    let value = path.split('.').fold(caps, |v, key| &v[key]);
    !(value.is_null() || *value == Value::Bool(false))
}

/// One update of every kind the adapter sends; the match keeps it complete.
fn one_of_each_update() -> Vec<SessionUpdate> {
    let text = || ContentChunk::text("x");
    let call = ToolCall {
        id: "t".into(),
        title: "t".into(),
        kind: ToolKind::Other,
        status: ToolStatus::Pending,
        locations: vec![],
        content: vec![],
        raw_input: None,
        parent_tool_call: None,
    };
    let all = vec![
        SessionUpdate::UserMessageChunk {
            content: text(),
            message_id: None,
        },
        SessionUpdate::AgentMessageChunk {
            content: text(),
            message_id: None,
        },
        SessionUpdate::AgentThoughtChunk {
            content: text(),
            message_id: None,
        },
        SessionUpdate::SubagentMessageChunk {
            text: "x".into(),
            parent_tool_use_id: "t".into(),
        },
        SessionUpdate::ToolCall(call),
        SessionUpdate::ToolCallUpdate(ToolCallUpdate {
            id: "t".into(),
            ..ToolCallUpdate::default()
        }),
        SessionUpdate::Plan { entries: vec![] },
        SessionUpdate::Usage(Usage {
            used: 1,
            size: 2,
            cost_usd: None,
            rate_limits: Default::default(),
        }),
        SessionUpdate::CurrentMode {
            mode_id: "default".into(),
        },
        SessionUpdate::AvailableCommands { commands: vec![] },
        SessionUpdate::ConfigOptions { options: vec![] },
        SessionUpdate::SessionInfo {
            title: Some("t".into()),
            updated_at: None,
        },
        SessionUpdate::Compaction {
            id: "c".into(),
            status: CompactionStatus::Completed,
        },
        SessionUpdate::Notice(Notice {
            severity: NoticeSeverity::Warning,
            kind: "mcp_server_failed",
            title: "t".into(),
            description: None,
        }),
        SessionUpdate::Subagent(SubagentUpdate {
            session_id: "s/subagent/a".into(),
            title: None,
            description: None,
            state: SubagentState::Running,
        }),
        SessionUpdate::MarkdownPlan {
            content: "x".into(),
            path: None,
        },
        SessionUpdate::InSubagent {
            session_id: "s/subagent/a".into(),
            update: Box::new(SessionUpdate::agent_text("x")),
        },
        SessionUpdate::MessageFrom {
            message_id: "m".into(),
            sender: "s".into(),
            recipient: "s/subagent/a".into(),
            text: "x".into(),
        },
        SessionUpdate::Cursor(crate::domain::Cursor::before_prompt("m")),
        SessionUpdate::PromptSuggestions(vec!["x".into()]),
    ];
    for u in &all {
        match u {
            SessionUpdate::UserMessageChunk { .. }
            | SessionUpdate::AgentMessageChunk { .. }
            | SessionUpdate::AgentThoughtChunk { .. }
            | SessionUpdate::SubagentMessageChunk { .. }
            | SessionUpdate::ToolCall(_)
            | SessionUpdate::ToolCallUpdate(_)
            | SessionUpdate::Plan { .. }
            | SessionUpdate::Usage(_)
            | SessionUpdate::CurrentMode { .. }
            | SessionUpdate::AvailableCommands { .. }
            | SessionUpdate::ConfigOptions { .. }
            | SessionUpdate::SessionInfo { .. }
            | SessionUpdate::Compaction { .. }
            | SessionUpdate::Notice(_)
            | SessionUpdate::Subagent(_)
            | SessionUpdate::MarkdownPlan { .. }
            | SessionUpdate::InSubagent { .. }
            | SessionUpdate::MessageFrom { .. }
            | SessionUpdate::Cursor(_)
            | SessionUpdate::PromptSuggestions(_) => {}
        }
    }
    all
}

#[test]
fn every_stable_item_of_the_schema_is_built_or_listed_as_not_supported() {
    let unsupported = listed_unsupported();
    let mut missing = Vec::new();

    // Agent methods (and the cancel notification).
    let methods = serde_json::to_value(acp::AGENT_METHOD_NAMES).unwrap();
    for method in methods.as_object().unwrap().values() {
        let method = method.as_str().unwrap();
        if !HANDLED_METHODS.contains(&method) && !unsupported.contains(method) {
            missing.push(format!("method {method}"));
        }
    }

    // Agent capabilities.
    let root = serde_json::to_value(schemars::schema_for!(acp::AgentCapabilities)).unwrap();
    let mut paths = Vec::new();
    capability_paths(&root, &root, "", &mut paths);
    assert!(
        paths.contains(&"sessionCapabilities.delete".to_owned()),
        "{paths:?}"
    );
    let init = initialize_response(
        &InstantCore,
        &acp::InitializeRequest::new(agent_client_protocol::schema::ProtocolVersion::V1),
    );
    let caps = serde_json::to_value(init.agent_capabilities).unwrap();
    for path in paths {
        if !advertised(&caps, &path) && !unsupported.contains(&path) {
            missing.push(format!("capability {path}"));
        }
    }

    // Session update kinds.
    let root = serde_json::to_value(schemars::schema_for!(acp::SessionUpdate)).unwrap();
    let sent: BTreeSet<String> = one_of_each_update()
        .into_iter()
        .map(|u| {
            serde_json::to_value(to_proto::session_update(u)).unwrap()["sessionUpdate"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let kinds = root["oneOf"].as_array().expect("SessionUpdate is a oneOf");
    assert!(kinds.len() > 10);
    for kind in kinds.iter().filter(|k| !is_unstable(k)) {
        let name = kind["properties"]["sessionUpdate"]["const"]
            .as_str()
            .expect("a sessionUpdate tag");
        if !sent.contains(name) && !unsupported.contains(name) {
            missing.push(format!("session update {name}"));
        }
    }

    assert!(
        missing.is_empty(),
        "stable ACP items neither built nor listed in docs/protocol.md's \"Not supported\" with a reason: {missing:#?}"
    );
}

#[test]
fn the_system_prompt_is_advertised_in_both_modes() {
    let init = initialize_response(
        &InstantCore,
        &acp::InitializeRequest::new(agent_client_protocol::schema::ProtocolVersion::V1),
    );
    let caps = serde_json::to_value(init.agent_capabilities).unwrap();
    assert_eq!(
        caps["sessionCapabilities"]["systemPrompt"],
        serde_json::json!({"mode": {"override": {}}}),
        "{caps}"
    );
}
