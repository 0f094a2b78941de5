//! Naming a session (`session/set_title`) and asking where it is (`session/status`) with the real
//! claude: a name given before anything was said is held by claude (its `rename_session`) and
//! reaches its transcript as claude stores the conversation, survives claude's own titling of it,
//! and a new adapter process lists it; a session named while its claude runs holds one record of
//! the name, claude's; a session is `open` in its process and `saved` in the next, which starts
//! no claude to say so.

use std::time::Duration;

use crate::support::acp_client::AcpClient;
use crate::support::history::project_dir;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use serde_json::{Value, json};

const NAME: &str = "Pineapple notes";

fn adapter(env: &ClaudeEnv) -> AcpClient {
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(Duration::from_secs(60));
    c
}

/// No claude runs under the adapter (the processes are read from /proc, on Linux).
fn no_claude_under(c: &AcpClient) {
    #[cfg(target_os = "linux")]
    assert_eq!(
        crate::support::real_session::claude_pid(c.pid()),
        None,
        "no claude was started\n{}",
        c.diagnostics()
    );
    #[cfg(not(target_os = "linux"))]
    let _ = c;
}

#[tokio::test]
async fn a_name_given_before_the_first_prompt_is_claudes_and_a_new_process_lists_it() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Noted: pineapple."))]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    c.initialize().await;
    let id = c.new_session(env.work_dir()).await;
    let named = c
        .request(
            "session/set_title",
            json!({"sessionId": id, "title": format!(" {NAME} ")}),
        )
        .await
        .unwrap();
    assert_eq!(named, json!({"title": NAME}));
    let transcript =
        project_dir(&env.home_dir().join(".claude"), &env.work_dir()).join(format!("{id}.jsonl"));
    assert!(!transcript.exists(), "a name alone makes no transcript");

    for prompt in ["Remember the secret word pineapple.", "And the word mango."] {
        let stop = c.prompt(&id, prompt).await.unwrap();
        assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    }
    let status = c
        .request("session/status", json!({"sessionId": id}))
        .await
        .unwrap();
    assert_eq!(status, json!({"status": "open"}));
    let titles: Vec<Value> = c
        .updates_of_kind(&id, "session_info_update")
        .iter()
        .map(|u| u["title"].clone())
        .collect();
    assert_eq!(
        titles,
        vec![json!(NAME)],
        "the editor only ever sees the name"
    );
    c.close_stdin().await;
    assert!(c.wait_exit(Duration::from_secs(20)).await.is_some());

    let text = std::fs::read_to_string(&transcript).expect("claude stored the conversation");
    let lines: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect();
    let last_name = lines.iter().rev().find(|l| l["type"] == "custom-title");
    assert_eq!(
        last_name.map(|l| l["customTitle"].clone()),
        Some(json!(NAME))
    );
    // claude held the name (its rename_session) and wrote it as it stored the conversation.
    let first_name = lines.iter().position(|l| l["type"] == "custom-title");
    let first_prompt = lines.iter().position(|l| l["type"] == "user");
    assert!(first_name < first_prompt, "{text}");

    let d = adapter(&env);
    d.initialize().await;
    let status = d
        .request("session/status", json!({"sessionId": id}))
        .await
        .unwrap();
    assert_eq!(status, json!({"status": "saved"}));
    let list = d
        .request("session/list", json!({"cwd": env.work_dir()}))
        .await
        .unwrap();
    let listed: Vec<&Value> = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["sessionId"] == json!(id))
        .collect();
    assert_eq!(listed.len(), 1, "{list}");
    assert_eq!(listed[0]["title"], NAME, "{list}");
    no_claude_under(&d);
}

#[tokio::test]
async fn a_session_named_while_its_claude_runs_holds_the_name_once_and_a_new_process_lists_it() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Noted."))]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    c.initialize().await;
    let id = c.new_session(env.work_dir()).await;
    let stop = c.prompt(&id, "Remember the word pineapple.").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    crate::support::real_session::wait_until_stored(&env, &id, "Noted.").await;
    let named = c
        .request("session/set_title", json!({"sessionId": id, "title": NAME}))
        .await
        .unwrap();
    assert_eq!(named, json!({"title": NAME}));
    let stop = c.prompt(&id, "And the word mango.").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    c.close_stdin().await;
    assert!(c.wait_exit(Duration::from_secs(20)).await.is_some());

    let transcript =
        project_dir(&env.home_dir().join(".claude"), &env.work_dir()).join(format!("{id}.jsonl"));
    let text = std::fs::read_to_string(&transcript).expect("claude stored the conversation");
    let names: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["type"] == "custom-title")
        .collect();
    assert_eq!(
        names,
        vec![json!({"type": "custom-title", "customTitle": NAME, "sessionId": id})],
        "one record of the name"
    );
    let d = adapter(&env);
    d.initialize().await;
    let list = d
        .request("session/list", json!({"cwd": env.work_dir()}))
        .await
        .unwrap();
    let listed = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sessionId"] == json!(id))
        .cloned();
    assert_eq!(
        listed.map(|s| s["title"].clone()),
        Some(json!(NAME)),
        "{list}"
    );
}
