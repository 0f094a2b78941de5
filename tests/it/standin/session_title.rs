//! The session's title with the stand-in as claude: after the first turn the editor gets a
//! `session_info_update` with a title and `updatedAt`, taken from what claude stored for the
//! conversation, else from the first prompt's first line; `session/list` shows the same title.

use std::time::Duration;

use crate::support::history::write_session;
use crate::support::standin::Standin;
use serde_json::{Value, json};

fn is_info(u: &Value) -> bool {
    u["update"]["sessionUpdate"] == "session_info_update"
}

#[tokio::test]
async fn the_first_prompts_first_line_titles_a_new_session() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    c.prompt(&id, "  \nFix the login bug\nit fails on empty passwords")
        .await
        .unwrap();
    let infos = || c.updates_of_kind(&id, "session_info_update");
    assert_eq!(infos().len(), 1, "the title comes with the end of the turn");
    let info = c.wait_for_update(is_info, Duration::from_secs(5)).await;
    assert_eq!(info["sessionId"], json!(id));
    assert_eq!(info["update"]["title"], "Fix the login bug");
    let updated = info["update"]["updatedAt"].as_str().expect("updatedAt");
    assert!(updated.ends_with('Z') && updated.len() == 24, "{updated}");

    // Once: the second turn does not send it again.
    c.prompt(&id, "second").await.unwrap();
    assert_eq!(infos().len(), 1);
}

#[tokio::test]
async fn claudes_stored_title_wins_over_the_prompt() {
    let s = Standin::new("text");
    let id = "7d9f1c2a-0000-4000-8000-000000000003";
    write_session(
        &s.config_dir(),
        &s.work,
        id,
        "an old question",
        "an old answer",
    );
    let c = s.adapter(&[]);
    c.initialize().await;
    let list = c
        .request("session/list", json!({"cwd": s.work}))
        .await
        .unwrap();
    assert_eq!(list["sessions"][0]["title"], "an old question");
    c.request(
        "session/resume",
        json!({"sessionId": id, "cwd": s.work, "mcpServers": []}),
    )
    .await
    .unwrap();
    c.prompt(id, "a new question").await.unwrap();
    let info = c.wait_for_update(is_info, Duration::from_secs(5)).await;
    assert_eq!(info["update"]["title"], "an old question");
}
