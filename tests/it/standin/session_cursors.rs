//! Session cursors (ACP 1.20) with the stand-in as claude: an editor that declares
//! `session.cursors` gets a `cursor_update` after each turn's last agent message (live and
//! replayed) and before each replayed prompt, anchored by the `messageId` its chunks now carry;
//! `session/fork` at a cursor starts claude at that point of the thread (`--resume-session-at`),
//! before the first prompt a conversation of its own, and at a cursor that names no point of the
//! thread it is -32602, with no claude started. An editor that does not declare cursors gets what
//! it got before: no cursor, no message id.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::argv::argv_value;
use crate::support::history::{FIXTURE_SESSION_ID, install_fixture};
use crate::support::standin::Standin;
use crate::support::v2_schema::violations_1_20_v1;

/// The fixture's points, in order: each prompt's uuid and the entry that ends each turn's answer.
const FIRST_PROMPT: &str = "a6b4859f-b18b-419a-ac7d-01dffe3a5be9";
const FIRST_ANSWER: &str = "7c09cf6b-e176-48a1-bb2f-638e5d4a4a2f";
const SECOND_PROMPT: &str = "1dba7244-cdc3-4911-b565-7ecde047b4d9";
const SECOND_ANSWER: &str = "e44de1a0-56f6-4024-8ac4-2e70c7251c36";
const THIRD_PROMPT: &str = "3f10c9de-5174-4a37-a866-a8cd782c79fa";
const THIRD_ANSWER: &str = "ec07fe4c-578d-4e9c-b792-6430c7d673b8";

fn capabilities(cursors: bool) -> Value {
    let mut caps =
        json!({"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false});
    if cursors {
        caps["session"] = json!({"cursors": {}});
    }
    caps
}

fn adapter(s: &Standin) -> AcpClient {
    let config = s.dir().join("claude-config");
    s.adapter_with_env(&[], &[("CLAUDE_CONFIG_DIR", config.to_str().unwrap())])
}

async fn load(c: &AcpClient, s: &Standin) {
    let params = json!({"sessionId": FIXTURE_SESSION_ID, "cwd": s.work, "mcpServers": []});
    c.request("session/load", params).await.unwrap();
}

async fn fork(c: &AcpClient, s: &Standin, cursor: &str) -> Result<String, String> {
    let params = json!({
        "sessionId": FIXTURE_SESSION_ID, "cwd": s.work, "mcpServers": [], "cursorId": cursor,
    });
    c.request("session/fork", params)
        .await
        .map(|answer| answer["sessionId"].as_str().unwrap().to_owned())
        .map_err(|e| format!("{} ({})", e.message, e.code))
}

/// Each `cursor_update` of `session`, checked: valid 1.20, anchored to a message the editor was
/// given before it (a chunk of that kind with that `messageId`), forkable. Their ids, in order.
fn checked_cursors(c: &AcpClient, session: &str) -> Vec<String> {
    let mut held: Vec<(String, String)> = Vec::new();
    let mut ids = Vec::new();
    for update in c.updates(session) {
        let kind = update["sessionUpdate"].as_str().unwrap_or_default();
        if let Some(id) = update["messageId"].as_str() {
            held.push((kind.replace("_chunk", ""), id.to_owned()));
        }
        if kind != "cursor_update" {
            continue;
        }
        let params = json!({"sessionId": session, "update": update});
        let faults = violations_1_20_v1("SessionNotification", &params);
        assert!(faults.is_empty(), "{update}: {faults:?}");
        let anchor = &update["anchor"];
        let message = (
            anchor["type"].as_str().unwrap().to_owned(),
            anchor["messageId"].as_str().unwrap().to_owned(),
        );
        assert!(
            held.contains(&message),
            "{update} anchors to no message held: {held:?}"
        );
        assert_eq!(update["capabilities"], json!({"fork": {}}), "{update}");
        ids.push(update["cursorId"].as_str().unwrap().to_owned());
    }
    ids
}

#[tokio::test]
async fn a_loaded_thread_has_a_cursor_before_each_prompt_and_after_each_answer() {
    let s = Standin::new("text");
    install_fixture(&s.dir().join("claude-config"), &s.work, FIXTURE_SESSION_ID);
    let c = adapter(&s);
    c.initialize_with_capabilities(capabilities(true)).await;
    load(&c, &s).await;
    let cursors = checked_cursors(&c, FIXTURE_SESSION_ID);
    let anchors: Vec<(String, String)> = c
        .updates_of_kind(FIXTURE_SESSION_ID, "cursor_update")
        .iter()
        .map(|u| {
            (
                u["anchor"]["type"].to_string(),
                u["anchor"]["position"].to_string(),
            )
        })
        .collect();
    assert_eq!(
        cursors,
        [
            format!("before:{FIRST_PROMPT}"),
            format!("after:{FIRST_ANSWER}"),
            format!("before:{SECOND_PROMPT}"),
            format!("after:{SECOND_ANSWER}"),
            format!("before:{THIRD_PROMPT}"),
            format!("after:{THIRD_ANSWER}"),
        ],
        "{anchors:?}"
    );
}

#[tokio::test]
async fn a_live_turn_ends_with_a_cursor_after_its_answer() {
    let s = Standin::new("text");
    let c = adapter(&s);
    c.initialize_with_capabilities(capabilities(true)).await;
    let session = c.new_session(&s.work).await;
    c.prompt_to_end_turn(&session, "hello").await;
    let cursors = checked_cursors(&c, &session);
    // The script's answer is the assistant line stored under this uuid.
    assert_eq!(cursors, ["after:2be397dd-ca90-456f-b579-cccd622c4fe9"]);
    let kinds: Vec<Value> = c
        .updates(&session)
        .iter()
        .map(|u| u["sessionUpdate"].clone())
        .collect();
    let cursor = kinds.iter().position(|k| k == "cursor_update").unwrap();
    let answer = kinds
        .iter()
        .rposition(|k| k == "agent_message_chunk")
        .unwrap();
    assert!(answer < cursor, "the cursor follows the answer: {kinds:?}");
}

#[tokio::test]
async fn fork_at_a_cursor_starts_claude_at_its_point_and_an_unknown_cursor_is_refused() {
    let s = Standin::new("text");
    install_fixture(&s.dir().join("claude-config"), &s.work, FIXTURE_SESSION_ID);
    let c = adapter(&s);
    c.initialize_with_capabilities(capabilities(true)).await;

    // A cursor of no point of this thread is invalid params, never a fork of the whole session.
    for unknown in [
        "after:00000000-0000-4000-8000-000000000000".to_owned(),
        "before:00000000-0000-4000-8000-000000000000".to_owned(),
        format!("before:{FIRST_ANSWER}"),
        "c1".to_owned(),
    ] {
        let err = fork(&c, &s, &unknown)
            .await
            .expect_err("a cursor of no point of the thread is refused");
        assert!(err.contains("(-32602)"), "{unknown}: {err}");
    }
    assert!(
        s.pids().is_empty(),
        "no claude started for a cursor it does not know"
    );

    // After the first answer, and before the second prompt: the same point.
    for (n, cursor) in [
        format!("after:{FIRST_ANSWER}"),
        format!("before:{SECOND_PROMPT}"),
    ]
    .iter()
    .enumerate()
    {
        let forked = fork(&c, &s, cursor).await.unwrap();
        s.wait_started(n + 1, Duration::from_secs(10)).await;
        let argv = &s.argvs()[n];
        assert_eq!(
            argv_value(argv, "--resume"),
            Some(FIXTURE_SESSION_ID),
            "{argv:?}"
        );
        assert_eq!(
            argv_value(argv, "--resume-session-at"),
            Some(FIRST_ANSWER),
            "{argv:?}"
        );
        assert!(argv.contains(&"--fork-session".to_owned()), "{argv:?}");
        assert_eq!(argv_value(argv, "--session-id"), Some(forked.as_str()));
    }

    // Before the first prompt: nothing of the thread, a conversation of its own.
    let fresh = fork(&c, &s, &format!("before:{FIRST_PROMPT}"))
        .await
        .unwrap();
    s.wait_started(3, Duration::from_secs(10)).await;
    let argv = &s.argvs()[2];
    assert_eq!(
        argv_value(argv, "--session-id"),
        Some(fresh.as_str()),
        "{argv:?}"
    );
    assert_eq!(argv_value(argv, "--resume"), None, "{argv:?}");
    assert_ne!(fresh, FIXTURE_SESSION_ID);

    // The editor's files are not the fork's to change.
    let asked: Vec<String> = c.requests().iter().map(|r| r.method.clone()).collect();
    assert!(!asked.iter().any(|m| m.starts_with("fs/")), "{asked:?}");
}

#[tokio::test]
async fn an_editor_without_cursors_gets_no_cursor_and_no_message_id() {
    let s = Standin::new("text");
    install_fixture(&s.dir().join("claude-config"), &s.work, FIXTURE_SESSION_ID);
    let c = adapter(&s);
    c.initialize_with_capabilities(capabilities(false)).await;
    load(&c, &s).await;
    c.prompt_to_end_turn(FIXTURE_SESSION_ID, "hello").await;
    let updates = c.updates(FIXTURE_SESSION_ID);
    assert!(
        updates
            .iter()
            .any(|u| u["sessionUpdate"] == "agent_message_chunk")
    );
    for update in updates {
        assert_ne!(update["sessionUpdate"], "cursor_update", "{update}");
        assert!(update.get("messageId").is_none(), "{update}");
    }
}
