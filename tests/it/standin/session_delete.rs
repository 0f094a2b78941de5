//! `session/delete` with the stand-in as claude: it is advertised; deleting a stored session removes
//! its transcript (and only it), deleting an open one also ends its claude; afterwards the session is
//! not listed and `session/load` fails saying it is not there.

use std::time::Duration;

use crate::support::acp_client::AcpClient;
use crate::support::history::{FIXTURE_SESSION_ID, install_fixture, write_session};
use crate::support::liveness;
use crate::support::standin::Standin;
use serde_json::{Value, json};

const OTHER: &str = "0c1d2e3f-0000-4000-8000-000000000002";

fn listed(list: &Value) -> Vec<String> {
    list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap().to_owned())
        .collect()
}

async fn list(c: &AcpClient, s: &Standin) -> Vec<String> {
    listed(
        &c.request("session/list", json!({"cwd": s.work}))
            .await
            .unwrap(),
    )
}

#[tokio::test]
async fn initialize_advertises_delete() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    let init = c.initialize().await;
    assert_eq!(
        init["agentCapabilities"]["sessionCapabilities"]["delete"],
        json!({})
    );
}

#[tokio::test]
async fn deleting_a_stored_session_removes_only_its_transcript() {
    let s = Standin::new("text");
    let transcript = install_fixture(&s.config_dir(), &s.work, FIXTURE_SESSION_ID);
    write_session(&s.config_dir(), &s.work, OTHER, "keep me", "kept");
    let c = s.adapter(&[]);
    c.initialize().await;
    assert_eq!(list(&c, &s).await.len(), 2);

    c.request("session/delete", json!({"sessionId": FIXTURE_SESSION_ID}))
        .await
        .unwrap();

    assert!(!transcript.exists(), "the transcript is still there");
    assert_eq!(list(&c, &s).await, vec![OTHER.to_owned()]);
    let load = c
        .request(
            "session/load",
            json!({"sessionId": FIXTURE_SESSION_ID, "cwd": s.work, "mcpServers": []}),
        )
        .await
        .expect_err("a deleted session cannot be loaded");
    assert_eq!(load.code, -32602);
    assert!(
        load.message.contains("no stored claude session"),
        "{}",
        load.message
    );
    assert!(s.pids().is_empty(), "no claude was started for the load");
}

#[tokio::test]
async fn deleting_an_open_session_ends_its_claude_and_its_transcript() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    c.prompt(&id, "hello").await.unwrap();
    // What claude writes once the turn reached the model (the stand-in stores nothing itself).
    s.store_conversation(&id, "hello");
    let pid = s.wait_started(1, Duration::from_secs(10)).await[0];
    assert_eq!(list(&c, &s).await, vec![id.clone()]);

    c.request("session/delete", json!({"sessionId": id}))
        .await
        .unwrap();

    assert!(
        liveness::wait_until_gone(&[pid], Duration::from_secs(5)).await,
        "the session's claude still runs"
    );
    assert!(list(&c, &s).await.is_empty());
    let prompt = c
        .prompt(&id, "still there?")
        .await
        .expect_err("a deleted session takes no prompt");
    assert!(
        prompt.message.contains("unknown session"),
        "{}",
        prompt.message
    );
    let load = c
        .request(
            "session/load",
            json!({"sessionId": id, "cwd": s.work, "mcpServers": []}),
        )
        .await
        .expect_err("a deleted session cannot be loaded");
    assert!(
        load.message.contains("no stored claude session"),
        "{}",
        load.message
    );
}

#[tokio::test]
async fn deleting_an_unknown_session_says_so() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;
    let err = c
        .request("session/delete", json!({"sessionId": OTHER}))
        .await
        .expect_err("nothing to delete");
    assert_eq!(err.code, -32602);
    assert!(err.message.contains(OTHER), "{}", err.message);
    let err = c
        .request("session/delete", json!({"sessionId": "../../etc"}))
        .await
        .expect_err("a path is no session id");
    assert_eq!(err.code, -32602);
}
