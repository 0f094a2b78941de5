//! Edits the editor can review (issue 12) with the real claude: the mock model calls the tools
//! by the names claude offers it (`mcp__acp__Read`, `mcp__acp__Edit`), claude reaches claude-acp's
//! server over its control channel, and the files come from and go to the editor's buffers.
//! Run on both permission transports: claude's stdio channel and the MCP permission tool.

use std::path::Path;

use serde_json::json;

use super::editor_tools::{adapter_on_mock, asks, assert_builtins_offered_as_ours, turn};
use crate::support::acp_client::choose_permission;
use crate::support::editor_buffers::{Buffers, fs_capabilities};
use crate::support::mock_api::{Reply, Rule};

const BUFFER: &str = "from the buffer\nsecond\n";
const DISK: &str = "on disk, saved long ago\n";
const CAPTURED: &str = include_str!("../../../fixtures/editor_fs/builtin_tools.json");

fn edit(path: &Path, old: &str, new: &str) -> Reply {
    Reply::tool_use(
        "mcp__acp__Edit",
        json!({"file_path": path, "old_string": old, "new_string": new}),
    )
}

async fn edits_through_the_editor(args: &[&str]) {
    let (mock, env, c) = adapter_on_mock(args);
    let path = env.work_dir().join("a.txt");
    std::fs::write(&path, DISK).unwrap();
    let editor = Buffers::default();
    editor.open(&path, BUFFER);
    editor.serve(&c);
    c.initialize_with_capabilities(fs_capabilities()).await;
    let id = c.new_session(env.work_dir()).await;

    // 1. Read (not asked: inside the workspace), then an Edit the editor allows.
    let read = Reply::tool_use("mcp__acp__Read", json!({"file_path": path}));
    mock.push_rule(Rule::on_prompt("fix", read));
    mock.push_rule(
        Rule::on_tool_result_containing("from the buffer", edit(&path, "second", "2nd")).once(),
    );
    mock.push_rule(
        Rule::on_tool_result_containing("has been updated", Reply::text("Done.")).once(),
    );
    c.on_request(
        "session/request_permission",
        choose_permission("allow_once"),
    );
    turn(&c, &id, "fix a.txt").await;
    let read_result = mock.requests()[1].tool_results();
    assert_eq!(
        read_result[0].text, "1\tfrom the buffer\n2\tsecond\n3\t",
        "{read_result:?}"
    );
    assert_eq!(
        editor.writes(),
        vec![(
            path.display().to_string(),
            "from the buffer\n2nd\n".to_owned()
        )]
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        DISK,
        "claude-acp never writes the file"
    );
    let first = asks(&c);
    assert_eq!(first.len(), 1, "only the Edit is asked: {first:#?}");
    let call = &first[0]["toolCall"];
    assert_eq!(
        (call["kind"].as_str(), call["title"].as_str()),
        (Some("edit"), Some("Edit a.txt"))
    );
    assert_eq!(call["content"][0]["oldText"], BUFFER, "{call}");
    assert!(
        mock.last_tool_result_text()
            .unwrap()
            .contains("has been updated successfully")
    );

    // The model sees the built-ins' schemas and descriptions under our names, never deferred, and
    // claude's own file tools are gone.
    assert_builtins_offered_as_ours(&mock, CAPTURED);

    // 2. An Edit the editor rejects: nothing is written, the model is told.
    mock.push_rule(Rule::on_prompt("shout", edit(&path, "from", "FROM")));
    mock.push_rule(Rule::on_tool_result_containing("rejected", Reply::text("Fine.")).once());
    c.on_request(
        "session/request_permission",
        choose_permission("reject_once"),
    );
    turn(&c, &id, "shout a.txt").await;
    assert_eq!(editor.writes().len(), 1);
    assert!(mock.last_tool_result_text().unwrap().contains("rejected"));

    // 3. In acceptEdits the editor is not asked, and the edit still goes through it.
    c.request(
        "session/set_mode",
        json!({"sessionId": id, "modeId": "acceptEdits"}),
    )
    .await
    .unwrap();
    mock.push_rule(Rule::on_prompt("number", edit(&path, "2nd", "two")));
    mock.push_rule(
        Rule::on_tool_result_containing("has been updated", Reply::text("Done.")).once(),
    );
    turn(&c, &id, "number a.txt").await;
    assert_eq!(asks(&c).len(), 2, "acceptEdits asks nothing");
    assert_eq!(editor.writes().last().unwrap().1, "from the buffer\ntwo\n");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), DISK);
}

#[tokio::test]
async fn edits_go_through_the_editor_over_stdio_permissions() {
    edits_through_the_editor(&["--permission-transport", "stdio"]).await;
}

#[tokio::test]
async fn edits_go_through_the_editor_over_the_mcp_permission_tool() {
    edits_through_the_editor(&["--permission-transport", "mcp"]).await;
}
