//! A subagent's (Task's) text: forwarded as agent text tagged with its Task call when the client
//! opts in (`_meta.claudeCode.options.forwardSubagentText`), dropped otherwise (the main agent's
//! words only).

use crate::support::standin::Standin;
use serde_json::{Value, json};

fn script(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("subagent_text.jsonl");
    let assistant = |id: &str, parent: Value, block: Value| {
        json!({"emit": {"type": "assistant", "message": {"id": id, "type": "message", "role": "assistant",
            "model": "${model}", "content": [block], "stop_reason": null, "usage": null},
            "parent_tool_use_id": parent, "session_id": "${session_id}", "uuid": id}})
    };
    let lines = [
        json!({"include": "initialize.jsonl"}),
        json!({"expect": {"type": "user"}}),
        json!({"include": "system_init.jsonl"}),
        assistant(
            "m1",
            Value::Null,
            json!({"type": "tool_use", "id": "toolu_task_1", "name": "Task",
            "input": {"description": "Look around", "prompt": "look", "subagent_type": "general-purpose"}}),
        ),
        assistant(
            "m2",
            json!("toolu_task_1"),
            json!({"type": "text", "text": "Subagent here, looking."}),
        ),
        json!({"emit": {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "toolu_task_1", "content": "Found it."}]}, "parent_tool_use_id": null,
            "session_id": "${session_id}", "uuid": "r1"}}),
        assistant(
            "m3",
            Value::Null,
            json!({"type": "text", "text": "All done."}),
        ),
        json!({"emit": {"type": "result", "subtype": "success", "is_error": false, "result": "All done.",
            "stop_reason": "end_turn", "session_id": "${session_id}", "usage": null, "uuid": "r2"}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test]
async fn a_subagents_text_is_forwarded_tagged_when_the_client_opts_in_and_not_otherwise() {
    let s = Standin::with_script(script);
    let c = s.adapter(&[]);
    c.initialize().await;
    for opt_in in [true, false] {
        let mut params = json!({"cwd": s.work, "mcpServers": []});
        if opt_in {
            params["_meta"] = json!({"claudeCode": {"options": {"forwardSubagentText": true}}});
        }
        let opened = c.request("session/new", params).await.unwrap();
        let id = opened["sessionId"].as_str().unwrap().to_owned();
        c.prompt_to_end_turn(&id, "look around").await;
        let chunks = c.updates_of_kind(&id, "agent_message_chunk");
        let tagged: Vec<&Value> = chunks
            .iter()
            .filter(|u| u["_meta"]["claudeCode"]["parentToolUseId"] == "toolu_task_1")
            .collect();
        if opt_in {
            assert_eq!(tagged.len(), 1, "{chunks:?}");
            assert_eq!(tagged[0]["content"]["text"], "Subagent here, looking.");
        } else {
            assert!(tagged.is_empty(), "{chunks:?}");
            assert!(
                !c.agent_text(&id).contains("Subagent"),
                "{}",
                c.agent_text(&id)
            );
        }
        assert!(
            c.agent_text(&id).ends_with("All done."),
            "{}",
            c.agent_text(&id)
        );
    }
}
