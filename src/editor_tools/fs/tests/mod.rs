//! The server's JSON-RPC answers, and the tools against an editor whose buffer differs from disk.

use std::sync::Arc;

use serde_json::{Value, json};

use super::*;
use crate::claude::sdk_mcp::McpMessage;
use crate::domain::SessionUpdate;
use crate::domain::tool_names::SERVER_NAME;
use crate::testing::TestEditor;

fn msg(message: Value) -> McpMessage {
    McpMessage {
        server_name: SERVER_NAME.into(),
        message,
    }
}

struct Setup {
    dir: tempfile::TempDir,
    editor: Arc<TestEditor>,
    files: EditorFiles,
    log: EditLog,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let editor = Arc::new(TestEditor::default().with_buffers());
    let cwd = dir.path().to_path_buf();
    let log = EditLog::new(None, "s".into());
    let files = EditorFiles::new(
        editor.clone(),
        "s".into(),
        cwd.clone(),
        vec![cwd],
        log.clone(),
    );
    Setup {
        dir,
        editor,
        files,
        log,
    }
}

/// The `acp` server claude reaches, serving these file tools alone.
fn served(files: &EditorFiles) -> crate::editor_tools::server::ToolServer {
    crate::editor_tools::server::ToolServer {
        files: Some(files.clone()),
        terminal: None,
        withheld: Vec::new(),
    }
}

async fn call(files: &EditorFiles, tool: &str, args: Value) -> (String, bool) {
    let reply = served(files)
        .handle(&msg(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": tool, "arguments": args, "_meta": {"claudecode/toolUseId": "toolu_1"}}})))
        .await;
    assert_eq!(reply["id"], 7);
    let result = &reply["result"];
    (
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        result["isError"] == true,
    )
}

#[tokio::test]
async fn lists_the_builtins_under_their_names_with_their_schemas() {
    let s = setup();
    let reply = served(&s.files)
        .handle(&msg(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ))
        .await;
    let tools = reply["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Edit", "Read", "Write"]);
    let edit = &tools[0];
    assert_eq!(
        edit["inputSchema"]["required"],
        json!(["file_path", "old_string", "new_string"])
    );
    assert!(edit["description"].as_str().unwrap().len() > 100);
    let init = served(&s.files)
        .handle(&msg(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25"}}),
        ))
        .await;
    assert_eq!(init["result"]["serverInfo"]["name"], SERVER_NAME);
    let note = served(&s.files)
        .handle(&msg(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ))
        .await;
    assert_eq!(note, json!({"jsonrpc": "2.0", "result": {}}));
}

#[tokio::test]
async fn read_and_edit_go_through_the_buffer_and_never_the_disk() {
    let s = setup();
    let path = s.dir.path().join("a.txt");
    std::fs::write(&path, "on disk\n").unwrap();
    s.editor.set_buffer(path.clone(), "unsaved one\ntwo\n");
    let (text, error) = call(&s.files, "Read", json!({"file_path": path})).await;
    assert_eq!(
        (text.as_str(), error),
        ("1\tunsaved one\n2\ttwo\n3\t", false)
    );
    let (text, error) = call(
        &s.files,
        "Edit",
        json!({"file_path": path, "old_string": "two", "new_string": "2"}),
    )
    .await;
    assert!(!error, "{text}");
    assert_eq!(
        s.editor.writes(),
        vec![(path.clone(), "unsaved one\n2\n".to_owned())]
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "on disk\n");
    let updates = s.editor.updates();
    let SessionUpdate::ToolCallUpdate(update) = updates.last().unwrap() else {
        panic!()
    };
    assert_eq!(
        update.content.as_ref().unwrap()[0],
        crate::domain::ToolContent::Diff {
            path: path.display().to_string(),
            old_text: Some("unsaved one\ntwo\n".into()),
            new_text: "unsaved one\n2\n".into(),
        }
    );
}

#[tokio::test]
async fn a_new_file_only_the_editor_holds_is_read_and_edited_from_its_buffer() {
    let s = setup();
    let path = s.dir.path().join("draft.txt");
    s.editor.set_buffer(path.clone(), "never saved\n");
    let (text, error) = call(&s.files, "Read", json!({"file_path": path})).await;
    assert_eq!((text.as_str(), error), ("1\tnever saved\n2\t", false));
    let (text, error) = call(
        &s.files,
        "Edit",
        json!({"file_path": path, "old_string": "never", "new_string": "not yet"}),
    )
    .await;
    assert!(!error, "{text}");
    assert_eq!(
        s.editor.writes(),
        vec![(path.clone(), "not yet saved\n".to_owned())]
    );
    assert!(!path.exists());
    // A file neither the disk nor the editor has is missing, in claude's words.
    let (text, error) = call(
        &s.files,
        "Read",
        json!({"file_path": s.dir.path().join("none.txt")}),
    )
    .await;
    assert!(error && text.contains("File does not exist"), "{text}");
}

#[tokio::test]
async fn an_editor_error_fails_the_call_with_its_message() {
    let s = setup();
    let path = s.dir.path().join("a.txt");
    std::fs::write(&path, "x\n").unwrap();
    s.editor.refuse_reads("buffer locked");
    let (text, error) = call(
        &s.files,
        "Edit",
        json!({"file_path": path, "old_string": "x", "new_string": "y"}),
    )
    .await;
    assert!(error);
    assert!(text.contains("buffer locked"), "{text}");
    assert!(s.editor.writes().is_empty());
}

/// acpx asks its user before it writes a file: an answer that takes 45 s (past the 30 s bound
/// there was) still lands the edit, and the tool call succeeds. Paused time: the test does not
/// wait the 45 s.
#[tokio::test(start_paused = true)]
async fn an_editor_that_answers_a_write_after_45_s_still_gets_the_edit() {
    let dir = tempfile::tempdir().unwrap();
    let editor = Arc::new(
        TestEditor::default()
            .with_buffers()
            .with_writes_answered_after(std::time::Duration::from_secs(45)),
    );
    let cwd = dir.path().to_path_buf();
    let files = EditorFiles::new(
        editor.clone(),
        "s".into(),
        cwd.clone(),
        vec![cwd],
        EditLog::new(None, "s".into()),
    );
    let path = dir.path().join("late.txt");
    let started = tokio::time::Instant::now();
    let (text, error) = call(
        &files,
        "Write",
        json!({"file_path": path, "content": "allowed at last\n"}),
    )
    .await;
    assert!(!error, "the edit failed: {text}");
    assert!(started.elapsed() >= std::time::Duration::from_secs(45));
    assert_eq!(editor.buffer(&path).as_deref(), Some("allowed at last\n"));
}

#[tokio::test]
async fn files_outside_the_workspace_are_read_and_written_on_disk() {
    let s = setup();
    let outside = tempfile::tempdir().unwrap();
    let path = outside.path().join("b.txt");
    std::fs::write(&path, "far\n").unwrap();
    let (text, _) = call(&s.files, "Read", json!({"file_path": path})).await;
    assert_eq!(text, "1\tfar\n2\t");
    let (_, error) = call(
        &s.files,
        "Write",
        json!({"file_path": path, "content": "near\n"}),
    )
    .await;
    assert!(!error);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "near\n");
    assert!(s.editor.writes().is_empty());
    let noted = s.log.since("1970-01-01T00:00:00.000Z".into()).await;
    assert!(noted.files.is_empty(), "only editor writes are noted");
}

#[tokio::test]
async fn each_turns_first_write_of_a_file_notes_what_the_editor_held_before() {
    use crate::history::Before;
    let s = setup();
    let (a, b) = (s.dir.path().join("a.txt"), s.dir.path().join("b.txt"));
    std::fs::write(&a, "on disk\n").unwrap();
    s.editor.set_buffer(a.clone(), "one\ntwo\n");
    let edit = |old: &str, new: &str| json!({"file_path": a, "old_string": old, "new_string": new});
    s.log.start_turn();
    let first_turn = crate::time::now_rfc3339();
    call(&s.files, "Read", json!({"file_path": a})).await;
    assert!(!call(&s.files, "Edit", edit("one", "1")).await.1);
    assert!(!call(&s.files, "Edit", edit("two", "2")).await.1);
    let write = json!({"file_path": b, "content": "bee\n"});
    assert!(!call(&s.files, "Write", write).await.1);
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    s.log.start_turn();
    let second_turn = crate::time::now_rfc3339();
    assert!(!call(&s.files, "Edit", edit("1", "uno")).await.1);

    let noted = |from: String| async {
        s.log
            .since(from)
            .await
            .files
            .into_iter()
            .map(|e| (e.path, e.before))
            .collect::<Vec<_>>()
    };
    let text = |t: &str| Before::Text { text: t.into() };
    assert_eq!(
        noted(first_turn).await,
        [
            (a.clone(), text("one\ntwo\n")),
            (b.clone(), Before::Missing)
        ]
    );
    assert_eq!(noted(second_turn).await, [(a.clone(), text("1\n2\n"))]);
}
