//! The session's title with the stand-in as claude: after the first turn the editor gets a
//! `session_info_update` with a title and `updatedAt`, taken from what claude stored for the
//! conversation, else from the first prompt's first line; `session/list` shows the same title.

use std::time::Duration;

use crate::support::history::write_session;
use crate::support::standin::Standin;
use crate::support::v2_schema::violations_1_20_v1;
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

fn custom_titles(transcript: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(transcript)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["type"] == "custom-title")
        .collect()
}

#[tokio::test]
async fn a_stored_session_is_named_as_claude_names_it_and_a_new_adapter_lists_the_name() {
    let s = Standin::new("text");
    let id = "7d9f1c2a-0000-4000-8000-000000000042";
    write_session(
        &s.config_dir(),
        &s.work,
        id,
        "an old question",
        "an old answer",
    );
    let c = s.adapter(&[]);
    let init = c.initialize().await;
    let caps = &init["agentCapabilities"]["sessionCapabilities"];
    assert_eq!(caps["title"], json!({}), "{init}");

    let named = c
        .request(
            "session/set_title",
            json!({"sessionId": id, "title": "  Login work \n"}),
        )
        .await
        .unwrap();
    assert_eq!(named, json!({"title": "Login work"}));
    assert_eq!(
        violations_1_20_v1("SetSessionTitleResponse", &named),
        Vec::<String>::new()
    );
    let transcript =
        crate::support::history::project_dir(&s.config_dir(), &s.work).join(format!("{id}.jsonl"));
    assert_eq!(
        custom_titles(&transcript),
        vec![json!({"type": "custom-title", "customTitle": "Login work", "sessionId": id})],
        "claude's own /rename record"
    );
    assert!(
        s.pids().is_empty(),
        "naming a stored session starts no claude"
    );

    let empty = c
        .request(
            "session/set_title",
            json!({"sessionId": id, "title": " \t"}),
        )
        .await
        .unwrap_err();
    assert_eq!(empty.code, -32602, "{}", empty.message);
    let unknown = c
        .request(
            "session/set_title",
            json!({"sessionId": "7d9f1c2a-0000-4000-8000-0000000000ff", "title": "x"}),
        )
        .await
        .unwrap_err();
    assert_eq!(unknown.code, -32002, "{}", unknown.message);

    let other = s.adapter(&[]);
    other.initialize().await;
    let list = other
        .request("session/list", json!({"cwd": s.work}))
        .await
        .unwrap();
    assert_eq!(list["sessions"][0]["title"], "Login work", "{list}");
}

#[tokio::test]
async fn an_open_session_keeps_its_name_over_the_generated_title_and_no_empty_transcript_is_made() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let named = c
        .request(
            "session/set_title",
            json!({"sessionId": id, "title": "Release notes"}),
        )
        .await
        .unwrap();
    assert_eq!(named["title"], "Release notes");
    let info = c.wait_for_update(is_info, Duration::from_secs(5)).await;
    assert_eq!(info["update"]["title"], "Release notes");
    assert_eq!(
        violations_1_20_v1("SessionNotification", &info),
        Vec::<String>::new()
    );
    let transcript =
        crate::support::history::project_dir(&s.config_dir(), &s.work).join(format!("{id}.jsonl"));
    assert!(
        !transcript.exists(),
        "a name alone makes no transcript: claude would refuse the session id"
    );
    let list = c
        .request("session/list", json!({"cwd": s.work}))
        .await
        .unwrap();
    assert_eq!(list["sessions"][0]["title"], "Release notes", "{list}");

    c.prompt(&id, "Draft the notes").await.unwrap();
    // claude stored the conversation with the turn (the stand-in stores none itself).
    s.store_conversation(&id, "Draft the notes");
    c.prompt(&id, "Shorter").await.unwrap();
    let titles: Vec<Value> = c
        .updates_of_kind(&id, "session_info_update")
        .iter()
        .map(|u| u["title"].clone())
        .collect();
    assert_eq!(
        titles,
        vec![json!("Release notes")],
        "no generated title replaced the name"
    );
    // Written off the session's loop once the turn ended: the answer to the prompt may come first.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while custom_titles(&transcript).is_empty() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        custom_titles(&transcript).len(),
        1,
        "written once claude stored the turn"
    );
    assert_eq!(
        custom_titles(&transcript)[0]["customTitle"],
        "Release notes"
    );
}

/// The `rename_session` requests claude was sent.
fn renames(s: &Standin) -> Vec<Value> {
    s.received()
        .into_iter()
        .filter(|l| l["request"]["subtype"] == "rename_session")
        .map(|l| l["request"].clone())
        .collect()
}

#[tokio::test]
async fn naming_a_session_whose_claude_runs_tells_claude_and_its_record_is_the_only_one() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    c.prompt(&id, "Draft the notes").await.unwrap();
    s.store_conversation(&id, "Draft the notes");
    c.request(
        "session/set_title",
        json!({"sessionId": id, "title": "Release notes"}),
    )
    .await
    .unwrap();
    assert_eq!(
        renames(&s),
        vec![
            json!({"subtype": "rename_session", "title": "Release notes", "source": "host",
                    "session_id": id})
        ],
        "claude is told, as a rename the user made in the host"
    );
    c.prompt(&id, "Shorter").await.unwrap();
    let transcript =
        crate::support::history::project_dir(&s.config_dir(), &s.work).join(format!("{id}.jsonl"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        custom_titles(&transcript),
        vec![json!({"type": "custom-title", "customTitle": "Release notes", "sessionId": id})],
        "claude's own record, and none of ours beside it"
    );
}

#[tokio::test]
async fn a_claude_that_refuses_the_name_gets_it_written_for_it() {
    let s = Standin::with_script(|dir| {
        let script = dir.join("refuses.jsonl");
        let refusal = "rename_session is not supported in this context \
                       (onRenameSession callback not registered)";
        let lines = [
            json!({"include": "initialize.jsonl"}),
            json!({"expect": {"type": "control_request", "request": {"subtype": "rename_session"}},
                   "bind": {"rename_id": "/request_id"}}),
            json!({"emit": {"type": "control_response", "response": {
                "subtype": "error", "request_id": "${rename_id}", "error": refusal}}}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&script, text).unwrap();
        script
    });
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    s.store_conversation(&id, "Draft the notes");
    c.request(
        "session/set_title",
        json!({"sessionId": id, "title": "Release notes"}),
    )
    .await
    .unwrap();
    assert_eq!(renames(&s).len(), 1, "claude was asked first");
    let transcript =
        crate::support::history::project_dir(&s.config_dir(), &s.work).join(format!("{id}.jsonl"));
    assert_eq!(
        custom_titles(&transcript),
        vec![json!({"type": "custom-title", "customTitle": "Release notes", "sessionId": id})],
    );
}
