//! `/undo` and `/rewind` with the stand-in as claude, on a stored two-prompt thread: they are offered
//! in the prompt box; nothing changes until the user confirms (claude gets only the dry run); then
//! claude restores the files and every later claude (after the idle stop, and in a new claude-acp
//! process) resumes before the dropped prompt, whose turn `session/load` no longer replays.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::{AcpClient, choose_permission};
use crate::support::history::project_dir;
use crate::support::liveness;
use crate::support::standin::Standin;

const ID: &str = "7d3e2c1b-0000-4000-8000-00000000aaaa";
const FIRST: &str = "create a.txt with one";
const SECOND: &str = "change a.txt to two more";
/// The transcript entry before the second prompt: where the thread ends once it is undone.
const FIRST_ANSWER_UUID: &str = "00000000-0000-4000-8000-000000000002";

/// claude's transcript of two turns: prompt, answer, prompt, answer, chained by `parentUuid`.
fn store_two_turns(s: &Standin) {
    let entry = |n: u8, parent: Option<u8>, kind: &str, message: Value| {
        let uuid = |n: u8| format!("00000000-0000-4000-8000-00000000000{n}");
        json!({"type": kind, "uuid": uuid(n), "parentUuid": parent.map(uuid), "isSidechain": false,
               "message": message, "cwd": s.work, "sessionId": ID,
               "timestamp": format!("2026-12-02T12:00:0{n}.000Z")})
    };
    let answer = |text: &str| {
        json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-5-5",
               "content": [{"type": "text", "text": text}]})
    };
    let lines = [
        entry(1, None, "user", json!({"role": "user", "content": FIRST})),
        entry(2, Some(1), "assistant", answer("Created.")),
        entry(
            3,
            Some(2),
            "user",
            json!({"role": "user", "content": SECOND}),
        ),
        entry(4, Some(3), "assistant", answer("Changed.")),
    ];
    let dir = project_dir(&s.config_dir(), &s.work);
    std::fs::create_dir_all(&dir).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join(format!("{ID}.jsonl")), text).unwrap();
}

async fn load(c: &AcpClient, s: &Standin) {
    c.initialize().await;
    c.load_session(ID, &s.work).await;
}

fn prompts_replayed(c: &AcpClient) -> Vec<String> {
    c.updates_of_kind(ID, "user_message_chunk")
        .iter()
        .filter_map(|u| u["content"]["text"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn undo_asks_first_then_restores_and_every_later_claude_resumes_before_the_dropped_prompt() {
    let s = Standin::new("rewind");
    store_two_turns(&s);
    let a = s.work.join("a.txt");
    std::fs::write(&a, "two\nmore\n").unwrap();
    let c = s.adapter(&["--idle-timeout", "1"]);
    load(&c, &s).await;
    assert_eq!(prompts_replayed(&c), [FIRST, SECOND]);
    let commands = c.wait_for_commands(Duration::from_secs(10)).await;
    let names = commands["update"]["availableCommands"].to_string();
    assert!(
        names.contains("\"undo\"") && names.contains("\"rewind\""),
        "{names}"
    );

    c.on_request(
        "session/request_permission",
        choose_permission("reject_once"),
    );
    c.prompt_to_end_turn(ID, "/undo").await;
    let ask = c.requests().pop().expect("the user is asked first").params;
    let shown = ask["toolCall"]["content"].to_string();
    assert!(
        shown.contains("a.txt")
            && shown.contains("1 line back in, 2 out")
            && shown.contains(SECOND),
        "the confirm shows what changes: {shown}"
    );
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "two\nmore\n");
    assert!(
        c.agent_text(ID).contains("Nothing was changed"),
        "{}",
        c.agent_text(ID)
    );

    c.on_request(
        "session/request_permission",
        choose_permission("allow_once"),
    );
    c.prompt_to_end_turn(ID, "/undo").await;
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        "one\n",
        "claude restored it"
    );
    let said = c.agent_text(ID);
    assert!(
        said.contains(&format!(
            "Rewound to before “{SECOND}”. Files put back as they were: a.txt"
        )),
        "{said}"
    );

    // The claude started right after the undo is stopped for being idle; the next one still
    // resumes before the dropped prompt.
    let started = s.wait_started(2, Duration::from_secs(10)).await;
    assert!(liveness::wait_until_gone(&started[1..2], Duration::from_secs(20)).await);
    c.prompt_to_end_turn(ID, "where are we?").await;
    let argvs = s.argvs();
    assert_eq!(argvs.len(), 3, "{argvs:?}");
    for argv in &argvs[1..] {
        let line = argv.join(" ");
        assert!(
            line.contains(&format!(
                "--resume {ID} --resume-session-at {FIRST_ANSWER_UUID}"
            )),
            "{line}"
        );
        assert!(line.contains("--resume"), "{line}");
    }
    drop(c);

    // A new claude-acp process replays the thread as the undo left it (the stand-in stores no new
    // branch, so the record still applies).
    let c = s.adapter(&[]);
    load(&c, &s).await;
    assert_eq!(prompts_replayed(&c), [FIRST]);
    drop(c);
    let problems = s.problems();
    assert!(problems.is_empty(), "{problems:?}");
}

/// Rewinding to before the first prompt, picked in a form: claude only dry-runs (no file to put
/// back), and the next prompt starts claude afresh under the same id, its transcript set aside.
const FIRST_PROMPT_SCRIPT: &str = r#"{"include": "initialize.jsonl"}
{"expect": {"type": "control_request", "request": {"subtype": "rewind_files", "user_message_id": "00000000-0000-4000-8000-000000000001", "dry_run": true}}, "bind": {"dry_request_id": "/request_id"}, "unless": "--session-id"}
{"emit": {"type": "control_response", "response": {"subtype": "success", "request_id": "${dry_request_id}", "response": {"canRewind": true, "filesChanged": [], "insertions": 0, "deletions": 0}}}, "unless": "--session-id"}
{"expect": {"type": "user", "message": {"role": "user", "content": "$any"}}, "when": "--session-id"}
{"emit": {"type": "result", "subtype": "success", "is_error": false, "result": "Fresh.", "stop_reason": "end_turn", "session_id": "${session_id}"}, "when": "--session-id"}
"#;

#[tokio::test]
async fn rewind_picked_in_a_form_to_before_the_first_prompt_starts_afresh_under_the_same_id() {
    let s = Standin::with_script(|dir| {
        let path = dir.join("rewind_first.jsonl");
        std::fs::write(&path, FIRST_PROMPT_SCRIPT).unwrap();
        path
    });
    store_two_turns(&s);
    let c = s.adapter(&[]);
    c.initialize_with(true).await;
    let params = json!({"sessionId": ID, "cwd": s.work, "mcpServers": []});
    c.request("session/load", params).await.unwrap();
    let forms = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = forms.clone();
    c.on_request("elicitation/create", move |params| {
        seen.lock().unwrap().push(params.clone());
        Ok(json!({"action": "accept", "content": {"prompt": format!("1. {FIRST}")}}))
    });
    c.on_request(
        "session/request_permission",
        choose_permission("allow_once"),
    );

    c.prompt_to_end_turn(ID, "/rewind").await;
    let form = forms.lock().unwrap()[0].clone();
    let offered = form["requestedSchema"]["properties"]["prompt"].to_string();
    let at = |label: String| {
        offered
            .find(&label)
            .unwrap_or_else(|| panic!("{label}: {offered}"))
    };
    assert!(
        at(format!("2. {SECOND}")) < at(format!("1. {FIRST}")),
        "the latest prompts, newest first: {offered}"
    );
    assert_eq!(c.requests().len(), 2, "one form, one confirm");

    c.prompt_to_end_turn(ID, "hello again").await;
    let argvs = s.argvs();
    let fresh = argvs.last().unwrap().join(" ");
    assert!(
        fresh.contains(&format!("--session-id {ID}")) && !fresh.contains("--resume"),
        "{fresh}"
    );
    let transcript = project_dir(&s.config_dir(), &s.work).join(format!("{ID}.jsonl"));
    assert!(!transcript.exists());
    assert!(transcript.with_extension("jsonl.rewound").exists());
    drop(c);
    let problems = s.problems();
    assert!(problems.is_empty(), "{problems:?}");
}

#[tokio::test]
async fn a_cancelled_undo_changes_nothing_even_when_the_confirm_is_answered_late() {
    let s = Standin::new("rewind");
    store_two_turns(&s);
    let a = s.work.join("a.txt");
    std::fs::write(&a, "two\nmore\n").unwrap();
    let c = s.adapter(&[]);
    load(&c, &s).await;
    c.hold_requests("session/request_permission");
    let (stop, ask) = tokio::join!(c.prompt(ID, "/undo"), async {
        let ask = c.next_request("session/request_permission").await;
        c.cancel(ID).await;
        ask
    });
    assert_eq!(stop.unwrap()["stopReason"], "cancelled");
    let go_ahead = json!({"outcome": {"outcome": "selected", "optionId": "rewind"}});
    c.respond(&ask.id, go_ahead).await;
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "two\nmore\n");

    // The next /undo is claude's next rewind_files: the cancelled one sent no real rewind.
    c.on_request(
        "session/request_permission",
        choose_permission("allow_once"),
    );
    c.prompt_to_end_turn(ID, "/undo").await;
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "one\n");
    drop(c);
    let problems = s.problems();
    assert!(problems.is_empty(), "{problems:?}");
}
