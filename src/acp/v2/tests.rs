//! The v2 surface against the v2 schema the pinned SDK carries: every agent method is handled
//! or listed in `docs/protocol.md`'s "Not supported" with the reason, the `initialize` answer
//! and every kind of update the session sends read back as v2's own types.

use agent_client_protocol::v2::schema as v2;
use serde_json::json;

use super::convert;
use super::server::{HANDLED_METHODS, initialize_response};
use crate::acp::shared::to_proto;
use crate::domain::{
    CompactionStatus, ContentChunk, Notice, NoticeSeverity, PlanEntry, PlanPriority, PlanStatus,
    SessionUpdate, SlashCommand, ToolCall, ToolCallUpdate, ToolContent, ToolKind, ToolStatus,
    Usage,
};
use crate::fuzzing::InstantCore;

fn listed_unsupported() -> Vec<String> {
    let reference = include_str!("../../../docs/protocol.md");
    let section = reference
        .split("## Not supported")
        .nth(1)
        .expect("docs/protocol.md has a \"## Not supported\" section");
    let section = section.split("\n#").next().unwrap_or_default();
    section
        .lines()
        .filter_map(|l| {
            l.strip_prefix("- `")?
                .split_once("`: ")
                .map(|(i, _)| i.to_owned())
        })
        .collect()
}

#[test]
fn every_v2_agent_method_is_handled_or_listed_as_not_supported() {
    let unsupported = listed_unsupported();
    let methods = serde_json::to_value(v2::AGENT_METHOD_NAMES).unwrap();
    let missing: Vec<&str> = methods
        .as_object()
        .unwrap()
        .values()
        .filter_map(|m| m.as_str())
        .filter(|m| !HANDLED_METHODS.contains(m) && !unsupported.iter().any(|u| u == m))
        .collect();
    assert!(
        missing.is_empty(),
        "v2 methods neither handled nor listed: {missing:?}"
    );
}

#[test]
fn the_v2_initialize_answer_is_v2s_and_offers_what_v1s_does() {
    let request: v2::InitializeRequest = serde_json::from_value(json!({
        "protocolVersion": 2,
        "info": {"name": "editor", "version": "1"},
    }))
    .unwrap();
    let answer =
        serde_json::to_value(initialize_response(&InstantCore, &request).unwrap()).unwrap();
    assert_eq!(answer["protocolVersion"], 2);
    assert_eq!(answer["info"]["name"], "claude-acp");
    for capability in ["prompt", "mcp"] {
        assert!(
            answer["capabilities"]["session"][capability].is_object(),
            "{answer}"
        );
    }
}

/// One update of each kind, in v2's form, read back as v2's `SessionUpdate`.
#[test]
fn every_update_kind_is_a_valid_v2_update() {
    let call = ToolCall {
        id: "t".into(),
        title: "Write /w/a.txt".into(),
        kind: ToolKind::Edit,
        status: ToolStatus::Pending,
        locations: vec![],
        content: vec![ToolContent::Diff {
            path: "/w/a.txt".into(),
            old_text: None,
            new_text: "one\n".into(),
        }],
        raw_input: Some(json!({"file_path": "/w/a.txt"})),
        parent_tool_call: None,
    };
    let updates = vec![
        SessionUpdate::AgentMessageChunk {
            content: ContentChunk::text("x"),
            message_id: Some("msg_1:0".into()),
        },
        SessionUpdate::AgentThoughtChunk {
            content: ContentChunk::text("x"),
            message_id: None,
        },
        SessionUpdate::UserMessageChunk {
            content: ContentChunk::text("x"),
            message_id: Some("u1".into()),
        },
        SessionUpdate::ToolCall(call),
        // A background job's card, then its end on a cancel.
        SessionUpdate::ToolCallUpdate(ToolCallUpdate {
            id: "t".into(),
            status: Some(ToolStatus::InProgress),
            async_task_id: Some("b1".into()),
            ..ToolCallUpdate::default()
        }),
        SessionUpdate::ToolCallUpdate(ToolCallUpdate {
            id: "t".into(),
            status: Some(ToolStatus::Cancelled),
            async_task_id: Some("b1".into()),
            ..ToolCallUpdate::default()
        }),
        SessionUpdate::Plan {
            entries: vec![PlanEntry {
                content: "do".into(),
                priority: PlanPriority::High,
                status: PlanStatus::Pending,
            }],
        },
        SessionUpdate::Usage(Usage {
            used: 1,
            size: 2,
            cost_usd: Some(0.5),
            rate_limits: Default::default(),
        }),
        SessionUpdate::AvailableCommands {
            commands: vec![SlashCommand {
                name: "compact".into(),
                description: "d".into(),
                input_hint: Some("h".into()),
                skill: false,
            }],
        },
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
    ];
    for update in updates {
        let beyond = convert::Beyond::of(&update);
        let v1 = serde_json::to_value(to_proto::session_update(update)).unwrap();
        let kind = v1["sessionUpdate"].clone();
        let converted =
            convert::session_update(v1, beyond, |_, known| known.unwrap_or("m1".into()))
                .expect("has a v2 form");
        let read: Result<v2::SessionUpdate, _> = serde_json::from_value(converted.clone());
        let read = read.unwrap_or_else(|e| panic!("{kind}: {e}: {converted}"));
        let back = serde_json::to_value(read).unwrap();
        assert_eq!(back, converted, "{kind} read back unchanged");
    }
}

#[test]
fn a_new_file_is_an_added_file_with_its_git_patch_and_an_edit_a_modified_one() {
    let mut call = serde_json::Map::new();
    call.insert(
        "content".into(),
        json!([
            {"type": "diff", "path": "/w/new.txt", "oldText": null, "newText": "a\n"},
            {"type": "diff", "path": "/w/old.txt", "oldText": "a\nb\n", "newText": "a\nc\n"},
        ]),
    );
    convert::tool_call(&mut call);
    let content = &call["content"];
    assert_eq!(
        content[0]["changes"],
        json!([{"operation": "add", "path": "/w/new.txt", "fileType": "text"}])
    );
    let patch = content[0]["patch"]["text"].as_str().unwrap();
    assert!(patch.starts_with("diff --git a/w/new.txt b/w/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/w/new.txt\n"), "{patch}");
    assert!(patch.contains("+a\n"), "{patch}");
    assert_eq!(content[1]["changes"][0]["operation"], "modify");
    let patch = content[1]["patch"]["text"].as_str().unwrap();
    assert!(patch.contains("-b\n+c\n"), "{patch}");
}

#[test]
fn an_added_files_patch_written_while_serialised_is_the_one_built_whole() {
    for text in ["a\n", "a\nb\n", "a\nb", "x", "\n\n", "", "é \"q\"\t\\\n2\n"] {
        let path = std::path::Path::new("/w/new.txt");
        let streamed =
            serde_json::to_value(crate::acp::shared::file_changes::AddedFile::new(path, text))
                .unwrap();
        let mut whole = json!({"type": "diff", "path": "/w/new.txt", "oldText": null,
            "newText": text});
        crate::acp::shared::file_changes::tool_content(&mut whole);
        assert_eq!(streamed, whole, "{text:?}");
    }
}

/// A tool call and its updates are written without a JSON copy of v1's form (a Write's file,
/// a command's output): the same JSON as the conversion of that copy.
#[test]
fn tool_calls_written_directly_are_what_the_conversion_of_v1s_json_gives() {
    let long = "x\n".repeat(crate::domain::INPUT_TEXT_SHARED_BYTES);
    let input = json!({"file_path": "/w/a.txt", "content": long});
    let mut call =
        crate::translate::tool_call_without_input("Write", "t", &input, "/w".as_ref(), None);
    call.raw_input = Some(input);
    let direct = serde_json::to_value(
        crate::acp::shared::tool_call_json::ToolCallNotification::v2("s", call.clone()),
    )
    .unwrap();
    let v1 = serde_json::to_value(to_proto::session_update(SessionUpdate::ToolCall(call))).unwrap();
    let converted = convert::session_update(v1, convert::Beyond::default(), |_, _| "m".into());
    assert_eq!(direct["update"], converted.unwrap());
    assert_eq!(
        direct["update"]["content"][0]["changes"][0]["operation"],
        "add"
    );

    for status in [
        ToolStatus::InProgress,
        ToolStatus::Cancelled,
        ToolStatus::Completed,
    ] {
        let update = SessionUpdate::ToolCallUpdate(ToolCallUpdate {
            id: "t".into(),
            status: Some(status),
            async_task_id: Some("b1".into()),
            raw_output: Some(json!({"stdout": "out"}).as_object().unwrap().clone()),
            ..ToolCallUpdate::default()
        });
        let beyond = convert::Beyond::of(&update);
        let SessionUpdate::ToolCallUpdate(u) = update.clone() else {
            unreachable!()
        };
        let direct = convert::tool_call_update(to_proto::tool_call_update(u), &beyond);
        let direct = direct.unwrap_or_else(|_| panic!("no diff"));
        let direct = serde_json::to_value(direct).unwrap();
        let v1 = serde_json::to_value(to_proto::session_update(update)).unwrap();
        let converted = convert::session_update(v1, beyond, |_, _| "m".into()).unwrap();
        assert_eq!(direct, converted, "{status:?}");
    }
}
