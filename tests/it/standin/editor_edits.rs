//! Edits the editor can review (issue 12): with an editor that declares `fs.readTextFile` and
//! `fs.writeTextFile`, claude's Read, Write and Edit go through the editor's buffers. The scripted
//! editor here serves `fs/*` from memory, holding a buffer that differs from the disk.

use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use crate::support::acp_client::{choose_permission, config_option};
use crate::support::editor_buffers::{Buffers, fs_capabilities};
use crate::support::standin::Standin;

const BUFFER: &str = "from the buffer\nsecond\n";
const DISK: &str = "on disk, saved long ago\n";

/// Allows the first ask, rejects the second, allows the rest.
fn allow_reject_allow() -> impl Fn(&Value) -> Result<Value, (i64, String)> + Send + Sync + 'static {
    let asked = AtomicUsize::new(0);
    let allow = choose_permission("allow_once");
    let reject = choose_permission("reject_once");
    move |params| match asked.fetch_add(1, Ordering::SeqCst) {
        1 => reject(params),
        _ => allow(params),
    }
}

#[tokio::test]
async fn reads_and_edits_go_through_the_editors_buffer_and_never_the_disk() {
    let s = Standin::new("editor_edits");
    let path = s.work.join("a.txt");
    std::fs::write(&path, DISK).unwrap();
    let key = path.display().to_string();
    let editor = Buffers::default();
    editor.open(&path, BUFFER);
    let c = s.adapter(&[]);
    editor.serve(&c);
    c.on_request("session/request_permission", allow_reject_allow());
    c.initialize_with_capabilities(fs_capabilities()).await;
    let id = c.new_session(&s.work).await;
    let outcome = c.prompt(&id, "Fix a.txt").await.unwrap();
    assert_eq!(outcome["stopReason"], "end_turn");
    // The script checked each answer claude got (the numbered buffer, claude's own texts).
    assert!(s.problems().is_empty(), "{:?}", s.problems());

    // claude's own file tools are off; ours are announced in `initialize`.
    let argv = s.argvs().remove(0).join(" ");
    assert!(
        argv.contains("--disallowedTools Read,Write,Edit,MultiEdit"),
        "{argv}"
    );

    // Exactly the allowed Edit reached the editor, against its buffer; the disk is untouched.
    let writes = editor.writes();
    assert_eq!(
        writes,
        vec![(key.clone(), "from the buffer\n2nd\n".to_owned())]
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), DISK);

    // The Read was not asked; the two Edits were, shown as claude's own Edit with the diff
    // against the editor's buffer.
    let asks: Vec<Value> = c
        .requests()
        .into_iter()
        .filter(|r| r.method == "session/request_permission")
        .map(|r| r.params)
        .collect();
    assert_eq!(asks.len(), 3, "{asks:#?}");
    let first = &asks[0]["toolCall"];
    assert_eq!(first["toolCallId"], "toolu_edit1");
    assert_eq!(first["kind"], "edit");
    assert_eq!(first["title"], "Edit a.txt");
    assert_eq!(
        first["content"],
        json!([{"type": "diff", "path": key, "oldText": BUFFER, "newText": "from the buffer\n2nd\n"}])
    );
    let always: Vec<&str> = asks[0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert!(
        always.contains(&"Allow all edits in this session"),
        "{always:?}"
    );

    // The cards look as for claude's own tools: a read titled with the file, an edit with its diff.
    let read = c
        .tool_call_state(&id, "toolu_read1")
        .expect("the Read card");
    assert_eq!(
        (read["kind"].as_str(), read["title"].as_str()),
        (Some("read"), Some("Read a.txt"))
    );
    let edit = c
        .tool_call_state(&id, "toolu_edit1")
        .expect("the Edit card");
    assert_eq!(edit["kind"], "edit");
    assert_eq!(edit["status"], "completed");
    assert_eq!(edit["content"][0]["oldText"], BUFFER);
    let rejected = c
        .tool_call_state(&id, "toolu_edit2")
        .expect("the rejected Edit card");
    assert_eq!(rejected["status"], "failed");
    let missing = c
        .tool_call_state(&id, "toolu_edit3")
        .expect("the failed Edit card");
    assert_eq!(missing["status"], "failed");
}

#[tokio::test]
async fn the_file_edits_option_and_meta_key_choose_the_disk() {
    let s = Standin::new("write_allow");
    let c = s.adapter(&[]);
    c.allow_permissions();
    c.initialize_with_capabilities(fs_capabilities()).await;
    let opened = c
        .request(
            "session/new",
            json!({"cwd": s.work, "mcpServers": [], "_meta": {"fileEdits": "disk"}}),
        )
        .await
        .unwrap();
    let option =
        config_option(&opened["configOptions"], "file_edits").expect("a File edits option");
    assert_eq!(option["name"], "File edits");
    assert_eq!(option["currentValue"], "disk");
    let names: Vec<&str> = option["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert_eq!(names, ["Review in editor", "Write to disk"]);
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    c.prompt(&id, "Please create hello.txt").await.unwrap();
    // On disk: claude's own tools, no server of ours, and claude wrote the file itself.
    let argv = s.argvs().remove(0).join(" ");
    assert!(!argv.contains("--disallowedTools"), "{argv}");
    assert!(s.work.join("hello.txt").exists());
    assert!(s.problems().is_empty(), "{:?}", s.problems());

    let bad = c
        .request(
            "session/new",
            json!({"cwd": s.work, "mcpServers": [], "_meta": {"fileEdits": "sometimes"}}),
        )
        .await
        .unwrap_err();
    assert!(bad.message.contains("_meta.fileEdits"), "{}", bad.message);
}

#[tokio::test]
async fn a_cancel_while_the_editor_holds_a_read_ends_the_turn_and_withdraws_the_read() {
    let s = Standin::new("editor_cancel");
    let path = s.work.join("a.txt");
    std::fs::write(&path, DISK).unwrap();
    let c = s.adapter(&[]);
    c.hold_requests("fs/read_text_file");
    c.initialize_with_capabilities(fs_capabilities()).await;
    let id = c.new_session(&s.work).await;
    let (outcome, read) = tokio::join!(c.prompt(&id, "read a.txt"), async {
        // The editor never answers the read; the user cancels instead.
        let read = c.next_request("fs/read_text_file").await;
        c.cancel(&id).await;
        read
    });
    assert_eq!(read.params["path"], path.display().to_string());
    assert_eq!(outcome.unwrap()["stopReason"], "cancelled");
    let withdrawn = c
        .wait_for_message(
            |m| m["method"] == "$/cancel_request" && m["params"]["requestId"] == read.id,
            std::time::Duration::from_secs(10),
        )
        .await;
    assert_eq!(
        withdrawn["params"]["requestId"], read.id,
        "the editor's read is withdrawn"
    );
    assert!(s.problems().is_empty(), "{:?}", s.problems());
}

#[tokio::test]
async fn switching_file_edits_to_disk_restarts_claude_with_its_own_tools() {
    let s = Standin::new("write_allow");
    let c = s.adapter(&[]);
    c.allow_permissions();
    c.initialize_with_capabilities(fs_capabilities()).await;
    let id = c.new_session(&s.work).await;
    s.wait_started(1, std::time::Duration::from_secs(10)).await;
    let options = c
        .request(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "file_edits", "value": "disk"}),
        )
        .await
        .unwrap();
    let current =
        config_option(&options["configOptions"], "file_edits").map(|o| o["currentValue"].clone());
    assert_eq!(current, Some(json!("disk")));
    c.prompt(&id, "Please create hello.txt").await.unwrap();
    let argvs: Vec<String> = s.argvs().into_iter().map(|a| a.join(" ")).collect();
    assert_eq!(argvs.len(), 2, "{argvs:#?}");
    assert!(
        argvs[0].contains("--disallowedTools Read,Write,Edit,MultiEdit"),
        "{}",
        argvs[0]
    );
    assert!(!argvs[1].contains("--disallowedTools"), "{}", argvs[1]);
    assert!(s.work.join("hello.txt").exists(), "claude's own Write ran");
}

#[tokio::test]
async fn an_editor_that_confirms_writes_itself_starts_on_disk_and_asks_once_per_edit() {
    // acpx declares fs and then asks its user again before each `fs/write_text_file`.
    let s = Standin::new("write_allow");
    let editor = Buffers::default();
    let c = s.adapter(&[]);
    editor.serve(&c);
    c.allow_permissions();
    c.request(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": fs_capabilities(),
               "clientInfo": {"name": "acpx", "version": "0.19.1"}}),
    )
    .await
    .unwrap();
    let opened = c.open_session(&s.work).await;
    let option = config_option(&opened["configOptions"], "file_edits")
        .expect("a File edits option, to switch to the editor's buffers");
    assert_eq!(option["currentValue"], "disk");
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    c.prompt(&id, "Please create hello.txt").await.unwrap();
    // The user's one answer was the permission prompt's; the file was written by claude.
    let methods: Vec<String> = c.requests().into_iter().map(|r| r.method).collect();
    assert_eq!(
        methods
            .iter()
            .filter(|m| *m == "session/request_permission")
            .count(),
        1,
        "{methods:?}"
    );
    assert!(editor.writes().is_empty(), "{:?}", editor.writes());
    assert!(s.work.join("hello.txt").exists());
    assert!(s.problems().is_empty(), "{:?}", s.problems());
}
