//! `session/status` with the stand-in as claude: `open` while the session is in memory here,
//! `saved` when only claude's store has it, `-32002` for neither; it starts no claude.

use crate::support::history::write_session;
use crate::support::standin::Standin;
use crate::support::v2_schema::violations_1_20_v1;
use serde_json::json;

#[tokio::test]
async fn a_session_is_open_here_saved_in_claudes_store_or_unknown_and_asking_starts_no_claude() {
    let s = Standin::new("text");
    let stored = "7d9f1c2a-0000-4000-8000-000000000043";
    write_session(&s.config_dir(), &s.work, stored, "a question", "an answer");
    let c = s.adapter(&[]);
    let init = c.initialize().await;
    assert_eq!(
        init["agentCapabilities"]["sessionCapabilities"]["status"],
        json!({}),
        "{init}"
    );
    let status = |id: &str| c.request("session/status", json!({"sessionId": id}));

    let saved = status(stored).await.unwrap();
    assert_eq!(saved, json!({"status": "saved"}));
    assert_eq!(
        violations_1_20_v1("SessionStatusResponse", &saved),
        Vec::<String>::new()
    );
    let unknown = status("7d9f1c2a-0000-4000-8000-0000000000ff")
        .await
        .unwrap_err();
    assert_eq!(unknown.code, -32002, "{}", unknown.message);
    assert!(s.pids().is_empty(), "session/status starts no claude");

    let open = c.new_session(&s.work).await;
    assert_eq!(status(&open).await.unwrap(), json!({"status": "open"}));
    let started = s.pids().len();
    c.request("session/close", json!({"sessionId": open}))
        .await
        .unwrap();
    // Closed before it said anything: claude stored nothing, so nothing of it is left.
    let gone = status(&open).await.unwrap_err();
    assert_eq!(gone.code, -32002, "{}", gone.message);
    assert_eq!(status(stored).await.unwrap()["status"], "saved");
    assert_eq!(s.pids().len(), started, "session/status starts no claude");
}
