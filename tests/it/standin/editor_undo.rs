//! `/undo` of a turn whose edits went through the editor ("Review in editor"): claude's checkpoints
//! never saw them, so claude-acp puts the editor's old text back from its own record, through
//! `fs/write_text_file`, after the user confirms a dry run that names those files. The record
//! outlives claude-acp; a kept `/undo` changes nothing; a refused editor write fails the `/undo`,
//! saying what went back, and leaves the conversation as it was.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::{AcpClient, choose_permission};
use crate::support::editor_buffers::{Buffers, fs_capabilities};
use crate::support::history::project_dir;
use crate::support::standin::Standin;

const ID: &str = "7d3e2c1b-0000-4000-8000-00000000edit";
const BUFFER: &str = "from the buffer\nsecond\n";
const EDITED: &str = "from the buffer\n2nd\n";
const FIRST: &str = "hello";
const SECOND: &str = "Fix a.txt";
/// The entry before the second prompt: where the thread ends once it is undone.
const FIRST_ANSWER_UUID: &str = "00000000-0000-4000-8000-000000000002";

fn entry(s: &Standin, n: u8, parent: Option<u8>, kind: &str, message: Value, at: &str) -> String {
    let uuid = |n: u8| format!("00000000-0000-4000-8000-00000000000{n}");
    let line = json!({"type": kind, "uuid": uuid(n), "parentUuid": parent.map(uuid),
        "isSidechain": false, "message": message, "cwd": s.work, "sessionId": ID, "timestamp": at});
    format!("{line}\n")
}

fn transcript(s: &Standin) -> std::path::PathBuf {
    project_dir(&s.config_dir(), &s.work).join(format!("{ID}.jsonl"))
}

/// claude's transcript of a first turn, long ago.
fn store_first_turn(s: &Standin) {
    let answer = json!({"id": "msg_1", "type": "message", "role": "assistant",
        "model": "claude-opus-5-5", "content": [{"type": "text", "text": "Hi."}]});
    let prompt = json!({"role": "user", "content": FIRST});
    let old = "2026-01-01T10:00:00.000Z";
    let text =
        entry(s, 1, None, "user", prompt, old) + &entry(s, 2, Some(1), "assistant", answer, old);
    std::fs::create_dir_all(transcript(s).parent().unwrap()).unwrap();
    std::fs::write(transcript(s), text).unwrap();
}

/// The second prompt as claude stores it when it receives it (the stand-in stores nothing).
fn store_second_prompt(s: &Standin) {
    let prompt = json!({"role": "user", "content": SECOND});
    let now = claude_acp::time::now_rfc3339();
    let mut text = std::fs::read_to_string(transcript(s)).unwrap();
    text += &entry(s, 3, Some(2), "user", prompt, &now);
    std::fs::write(transcript(s), text).unwrap();
}

async fn load(c: &AcpClient, s: &Standin) {
    c.initialize_with_capabilities(fs_capabilities()).await;
    c.load_session(ID, &s.work).await;
}

fn key(path: &Path) -> String {
    path.display().to_string()
}

#[tokio::test]
async fn undo_puts_the_editors_old_text_back_through_the_editor_after_a_restart_and_a_confirm() {
    let s = Standin::new("editor_undo");
    let (a, b) = (s.work.join("a.txt"), s.work.join("b.txt"));
    std::fs::write(&a, "on disk\n").unwrap();
    let editor = Buffers::default();
    editor.open(&a, BUFFER);
    store_first_turn(&s);

    let c = s.adapter(&[]);
    editor.serve(&c);
    c.on_request(
        "session/request_permission",
        choose_permission("allow_once"),
    );
    load(&c, &s).await;
    store_second_prompt(&s);
    c.prompt_to_end_turn(ID, SECOND).await;
    assert_eq!(
        editor.writes(),
        [(key(&a), EDITED.to_owned()), (key(&b), "bee\n".to_owned())]
    );
    assert!(!b.exists(), "the editor holds b.txt, unsaved");
    let record = transcript(&s)
        .with_extension("")
        .join("claude-acp-editor-edits.json");
    assert!(
        record.is_file(),
        "the writes are recorded beside the transcript"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&record).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the record is the owner's only: {mode:o}");
    }
    drop(c);

    // A new claude-acp process: the record beside the transcript is all it knows of those writes.
    let c = s.adapter(&[]);
    editor.serve(&c);
    c.on_request(
        "session/request_permission",
        choose_permission("reject_once"),
    );
    load(&c, &s).await;
    c.prompt_to_end_turn(ID, "/undo").await;
    let ask = c.requests().pop().expect("the user is asked first").params;
    let shown = ask["toolCall"]["content"].to_string();
    assert!(
        shown.contains("Files put back through the editor: a.txt, b.txt (1 line back in, 2 out).")
            && shown.contains("did not exist before and an editor cannot delete a file")
            && !shown.contains("No file checkpoint"),
        "the confirm names the editor's files and lines: {shown}"
    );
    let locations = ask["toolCall"]["locations"].to_string();
    assert!(locations.contains(&key(&b)), "{locations}");
    assert_eq!(editor.writes().len(), 2, "a kept /undo writes nothing");
    assert!(c.agent_text(ID).contains("Nothing was changed"));

    // The editor refuses b.txt: the /undo fails, saying a.txt went back and the thread stayed.
    c.on_request(
        "session/request_permission",
        choose_permission("allow_once"),
    );
    editor.refuse_writes_to(Some(&b));
    let failed = c
        .prompt(ID, "/undo")
        .await
        .expect_err("a refused write fails");
    let said = format!("{failed:?}");
    assert!(
        said.contains("could not write b.txt")
            && said.contains("Put back through the editor before it: a.txt.")
            && said.contains("The conversation was not changed"),
        "{said}"
    );
    assert_eq!(editor.writes()[2..], [(key(&a), BUFFER.to_owned())]);
    assert_eq!(s.argvs().len(), 2, "no claude resumed at an earlier point");

    // Confirmed with an editor that writes: both files go back and the thread with them.
    editor.refuse_writes_to(None);
    c.prompt_to_end_turn(ID, "/undo").await;
    assert_eq!(
        editor.writes()[3..],
        [(key(&a), BUFFER.to_owned()), (key(&b), String::new())]
    );
    let said = c.agent_text(ID);
    assert!(
        said.contains(&format!(
            "Rewound to before “{SECOND}”. Files put back through the editor: a.txt, b.txt"
        )),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "on disk\n");
    s.wait_started(3, Duration::from_secs(10)).await;
    let resumed = s.argvs()[2].join(" ");
    assert!(
        resumed.contains(&format!(
            "--resume {ID} --resume-session-at {FIRST_ANSWER_UUID}"
        )),
        "{resumed}"
    );
    let kept: Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    assert_eq!(kept["edits"], json!([]), "what went back leaves the record");
    drop(c);
    let problems = s.problems();
    assert!(problems.is_empty(), "{problems:?}");
}
