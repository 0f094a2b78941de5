//! `/undo` and `/rewind` with the real claude: the files go back (claude's own file checkpoints),
//! the model's next request no longer carries the dropped turns, nothing changes before the user
//! confirms, and a new claude-acp process replays and continues the rewound thread. An edit made
//! through the editor (which claude never sees) is put back through the editor.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::{AcpClient, choose_permission};
use crate::support::editor_buffers::{Buffers, fs_capabilities};
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::{ClaudeEnv, pinned_version};
use crate::support::real_editor::{Editor, STEP, pick_by_name, write};

const FIRST: &str = "first: create a.txt";
const SECOND: &str = "second: change a.txt";
const THIRD: &str = "third: create b.txt";
const FOURTH: &str = "fourth: what is left?";
const FIFTH: &str = "fifth: a new start";

/// The text of every `session/update` of `kind` the client saw for `id`.
fn texts(c: &AcpClient, id: &str, kind: &str) -> Vec<String> {
    c.updates_of_kind(id, kind)
        .iter()
        .filter_map(|u| u["content"]["text"].as_str().map(str::to_owned))
        .collect()
}

/// The text the user was shown in the latest permission prompt.
fn asked(e: &Editor) -> String {
    let ask = e.asks().pop().expect("a permission prompt");
    serde_json::to_string(&ask["toolCall"]["content"]).unwrap()
}

fn last_request_text(e: &Editor) -> String {
    let last = e.mock.requests().pop().expect("a model request");
    serde_json::to_string(last.messages()).unwrap()
}

#[tokio::test]
async fn undo_and_rewind_restore_files_and_history_after_a_confirm_and_across_a_restart() {
    let e = Editor::start(&[], false).await;
    let (a, b) = (e.path("a.txt"), e.path("b.txt"));
    for (prompt, reply) in [
        ("first:", write(&a, "one\n")),
        ("second:", write(&a, "two\nmore\n")),
        ("third:", write(&b, "bee\n")),
    ] {
        e.mock.push_rule(Rule::on_prompt(prompt, reply).once());
    }
    e.mock.push_rule(Rule::on_tool_result(Reply::text("Done.")));
    e.mock
        .push_rule(Rule::always(Reply::text("Only a.txt is left.")));
    e.c.on_request(
        "session/request_permission",
        pick_by_name(&[
            "Keep everything",
            "Rewind",
            "2. third: create b.txt",
            "Rewind",
        ]),
    );
    e.switch_mode("session/set_mode", "acceptEdits").await;
    e.turn(FIRST).await;
    e.turn(SECOND).await;
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "two\nmore\n");

    // Asked first, with claude's dry run; kept: nothing changes.
    e.turn("/undo").await;
    let summary = asked(&e);
    assert!(
        summary.contains("a.txt") && summary.contains("1 line back in, 2 out"),
        "the confirm shows the files and lines: {summary}"
    );
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "two\nmore\n");
    let requests = e.mock.requests().len();

    // Confirmed: the file and the conversation go back to before the second prompt.
    e.turn("/undo").await;
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "one\n");
    assert_eq!(e.mock.requests().len(), requests, "undo asks no model");
    e.turn(THIRD).await;
    let third = last_request_text(&e);
    assert!(
        third.contains(FIRST) && !third.contains(SECOND),
        "the model no longer sees the undone turn: {third}"
    );
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "bee\n");

    // /rewind offers the prompts of the thread (not the undone one), newest first.
    e.turn("/rewind").await;
    let choice = e.asks()[e.asks().len() - 2].clone();
    let names: Vec<&str> = choice["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["2. third: create b.txt", "1. first: create a.txt", "Cancel"]
    );
    assert!(!b.exists(), "the rewound turn's new file is gone");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "one\n");

    // A new claude-acp process: the thread replayed is the rewound one, and the model continues it.
    e.c.close_stdin().await;
    assert!(e.c.wait_exit(Duration::from_secs(20)).await.is_some());
    let c = AcpClient::from_command(e.env.command(crate::support::adapter()));
    c.set_timeout(Duration::from_secs(60));
    c.initialize().await;
    let load = json!({"sessionId": e.id, "cwd": e.env.work_dir(), "mcpServers": []});
    c.request("session/load", load)
        .await
        .unwrap_or_else(|err| panic!("session/load: {err}\n{}", c.diagnostics()));
    assert_eq!(texts(&c, &e.id, "user_message_chunk"), [FIRST]);
    let stop = c.prompt(&e.id, FOURTH).await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    let fourth = last_request_text(&e);
    assert!(
        fourth.contains(FIRST) && !fourth.contains(SECOND) && !fourth.contains(THIRD),
        "after a restart the model sees only the kept turn: {fourth}"
    );

    // Back to before the very first prompt: its file goes, and the next prompt starts afresh under
    // the same id (claude's old transcript set aside).
    c.on_request(
        "session/request_permission",
        pick_by_name(&[
            "2. fourth: what is left?",
            "Rewind",
            "1. first: create a.txt",
            "Rewind",
        ]),
    );
    let stop = c.prompt(&e.id, "/rewind").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    let stop = c.prompt(&e.id, "/rewind").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    assert!(!a.exists(), "the first turn's new file is gone");
    let stop = c.prompt(&e.id, FIFTH).await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    let fifth = last_request_text(&e);
    assert!(
        fifth.contains(FIFTH) && !fifth.contains(FIRST) && !fifth.contains(FOURTH),
        "the model starts afresh: {fifth}"
    );
}

/// Answers the permission prompts in turn, each with the option of that name or else of that kind.
fn answers(
    picks: &'static [&'static str],
) -> impl Fn(&Value) -> Result<Value, (i64, String)> + Send + Sync + 'static {
    let next = std::sync::atomic::AtomicUsize::new(0);
    move |params| {
        let pick = picks[next.fetch_add(1, std::sync::atomic::Ordering::SeqCst)];
        let options = params["options"].as_array().unwrap();
        match options.iter().find(|o| o["name"] == pick) {
            Some(o) => Ok(json!({"outcome": {"outcome": "selected", "optionId": o["optionId"]}})),
            None => choose_permission(pick)(params),
        }
    }
}

#[tokio::test]
async fn rewind_puts_back_edits_made_on_disk_and_through_the_editor_in_one_session() {
    const BUFFER: &str = "from the buffer\nsecond\n";
    const FIX: &str = "fix a.txt";
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::for_version(&mock, pinned_version());
    let (a, b) = (env.work_dir().join("a.txt"), env.work_dir().join("b.txt"));
    std::fs::write(&a, "on disk\n").unwrap();
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(STEP);
    let editor = Buffers::default();
    editor.open(&a, BUFFER);
    editor.serve(&c);
    c.initialize_with_capabilities(fs_capabilities()).await;
    let id = c.new_session(env.work_dir()).await;
    let file_edits = |value: &'static str| {
        let params = json!({"sessionId": id, "configId": "file_edits", "value": value});
        c.request("session/set_config_option", params)
    };
    let edit = json!({"file_path": a, "old_string": "second", "new_string": "2nd"});
    let read = Reply::tool_use("mcp__acp__Read", json!({"file_path": a}));
    mock.push_rule(Rule::on_prompt("first:", write(&b, "bee\n")).once());
    mock.push_rule(Rule::on_prompt(FIX, read).once());
    let edit = Reply::tool_use("mcp__acp__Edit", edit);
    mock.push_rule(Rule::on_tool_result_containing("from the buffer", edit).once());
    mock.push_rule(Rule::on_tool_result(Reply::text("Done.")));
    mock.push_rule(Rule::always(Reply::text("Nothing is left.")));
    c.on_request(
        "session/request_permission",
        answers(&[
            "allow_once",
            "allow_once",
            "reject_once",
            "1. first: create a.txt",
            "Rewind",
        ]),
    );
    let turn = |text: &'static str| {
        let (c, id) = (&c, &id);
        async move {
            let stop = c.prompt(id, text).await;
            let stop = stop.unwrap_or_else(|e| panic!("{text}: {e}\n{}", c.diagnostics()));
            assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
        }
    };
    // A turn with claude's own Write on disk, then one with an Edit through the editor.
    file_edits("disk").await.unwrap();
    turn(FIRST).await;
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "bee\n");
    file_edits("editor").await.unwrap();
    turn(FIX).await;
    let edited = (a.display().to_string(), "from the buffer\n2nd\n".to_owned());
    assert_eq!(editor.writes(), std::slice::from_ref(&edited));

    // claude never saw the editor's edit; the confirm names it all the same. Kept: nothing written.
    turn("/undo").await;
    let shown = asked_last(&c);
    assert!(
        shown.contains("Files put back through the editor: a.txt (1 line back in, 1 out)."),
        "{shown}"
    );
    assert_eq!(editor.writes(), std::slice::from_ref(&edited));

    // Back to before the first prompt: claude's checkpoint removes b.txt, the editor gets a.txt back.
    turn("/rewind").await;
    let shown = asked_last(&c);
    assert!(
        shown.contains("Files put back as they were: b.txt")
            && shown.contains("Files put back through the editor: a.txt"),
        "{shown}"
    );
    assert!(
        !b.exists(),
        "claude's checkpoint removed the file it created"
    );
    let restored = (a.display().to_string(), BUFFER.to_owned());
    assert_eq!(editor.writes(), [edited, restored]);
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "on disk\n");
    turn("what now?").await;
    let last = serde_json::to_string(mock.requests().pop().unwrap().messages()).unwrap();
    assert!(
        !last.contains(FIRST) && !last.contains(FIX),
        "the model no longer sees the rewound turns: {last}"
    );
}

/// The text of the latest permission prompt.
fn asked_last(c: &AcpClient) -> String {
    let ask = c
        .requests()
        .into_iter()
        .rfind(|r| r.method == "session/request_permission")
        .expect("a permission prompt");
    ask.params["toolCall"]["content"].to_string()
}
