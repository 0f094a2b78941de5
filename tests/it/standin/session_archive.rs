//! `session/archive`, `session/unarchive` and `session/list`'s `archived` filter with the stand-in
//! as claude: the state is kept beside claude's store (owner-only) so a new adapter process sees
//! it, archiving an open session closes it, and an archived session can still be loaded.

use std::os::unix::fs::PermissionsExt;

use crate::support::acp_client::AcpClient;
use crate::support::history::{project_dir, write_session};
use crate::support::standin::Standin;
use crate::support::v2_schema::violations_1_20_v1;
use serde_json::{Value, json};

const KEPT: &str = "7d9f1c2a-0000-4000-8000-000000000051";
const SHELVED: &str = "7d9f1c2a-0000-4000-8000-000000000052";

fn listed(page: &Value) -> Vec<(String, bool)> {
    page["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let archived = s["archived"].as_bool().expect("every listed session says");
            (s["sessionId"].as_str().unwrap().to_owned(), archived)
        })
        .collect()
}

#[tokio::test]
async fn an_archived_session_leaves_the_default_listing_in_every_process_until_unarchived() {
    let s = Standin::new("text");
    write_session(
        &s.config_dir(),
        &s.work,
        KEPT,
        "kept question",
        "kept answer",
    );
    write_session(
        &s.config_dir(),
        &s.work,
        SHELVED,
        "old question",
        "old answer",
    );
    let c = s.adapter(&[]);
    let init = c.initialize().await;
    let caps = &init["agentCapabilities"]["sessionCapabilities"];
    assert_eq!(caps["archive"], json!({}), "{init}");
    let list = async |c: &AcpClient, filter: Value| {
        let params = json!({"cwd": s.work, "archived": filter});
        let page = c.request("session/list", params).await.unwrap();
        let faults = violations_1_20_v1("ListSessionsResponse", &page);
        assert_eq!(faults, Vec::<String>::new(), "{page}");
        listed(&page)
    };

    let answer = c
        .request("session/archive", json!({"sessionId": SHELVED}))
        .await
        .unwrap();
    assert_eq!(answer, json!({}));
    assert_eq!(
        violations_1_20_v1("ArchiveSessionResponse", &answer),
        Vec::<String>::new()
    );
    let mark = project_dir(&s.config_dir(), &s.work)
        .join(SHELVED)
        .join("claude-acp-archived");
    let mode = std::fs::metadata(&mark)
        .expect("the mark")
        .permissions()
        .mode();
    assert_eq!(mode & 0o077, 0, "owner-only: {mode:o}");
    assert_eq!(list(&c, Value::Null).await, vec![(KEPT.to_owned(), false)]);
    assert_eq!(
        list(&c, json!("only")).await,
        vec![(SHELVED.to_owned(), true)]
    );
    let mut all = list(&c, json!("include")).await;
    all.sort();
    assert_eq!(
        all,
        vec![(KEPT.to_owned(), false), (SHELVED.to_owned(), true)]
    );
    let bad = c
        .request(
            "session/list",
            json!({"cwd": s.work, "archived": "everything"}),
        )
        .await
        .unwrap_err();
    assert_eq!(bad.code, -32602, "{}", bad.message);
    let unknown = c
        .request(
            "session/archive",
            json!({"sessionId": "7d9f1c2a-0000-4000-8000-0000000000ff"}),
        )
        .await
        .unwrap_err();
    assert_eq!(unknown.code, -32002, "{}", unknown.message);
    assert!(
        s.pids().is_empty(),
        "archiving a stored session starts no claude"
    );

    let d = s.adapter(&[]);
    d.initialize().await;
    assert_eq!(
        list(&d, json!("exclude")).await,
        vec![(KEPT.to_owned(), false)]
    );
    d.request("session/unarchive", json!({"sessionId": SHELVED}))
        .await
        .unwrap();
    assert!(!mark.exists());
    let mut all = list(&c, Value::Null).await;
    all.sort();
    assert_eq!(
        all,
        vec![(KEPT.to_owned(), false), (SHELVED.to_owned(), false)]
    );
}

#[tokio::test]
async fn archiving_an_open_session_closes_it_and_it_can_still_be_loaded() {
    let s = Standin::new("text");
    write_session(
        &s.config_dir(),
        &s.work,
        SHELVED,
        "old question",
        "old answer",
    );
    let c = s.adapter(&[]);
    c.initialize().await;
    c.request(
        "session/resume",
        json!({"sessionId": SHELVED, "cwd": s.work, "mcpServers": []}),
    )
    .await
    .unwrap();
    let status = || c.request("session/status", json!({"sessionId": SHELVED}));
    assert_eq!(status().await.unwrap()["status"], "open");
    c.request("session/archive", json!({"sessionId": SHELVED}))
        .await
        .unwrap();
    assert_eq!(
        status().await.unwrap()["status"],
        "saved",
        "closed by the archive"
    );
    let prompt = c.prompt(SHELVED, "still there?").await.unwrap_err();
    assert_ne!(prompt.code, 0, "{}", prompt.message);

    c.load_session(SHELVED, &s.work).await;
    assert_eq!(status().await.unwrap()["status"], "open");
    let users: Vec<Value> = c.updates_of_kind(SHELVED, "user_message_chunk");
    assert_eq!(users[0]["content"]["text"], "old question");
}
