//! Archiving with the real claude: a session archived in the process that ran its conversation is
//! closed there, listed only as archived by a new adapter process, and still loads there with its
//! thread.

use std::time::Duration;

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use serde_json::{Value, json};

const PROMPT: &str = "Remember the secret word pineapple.";

fn adapter(env: &ClaudeEnv) -> AcpClient {
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(Duration::from_secs(60));
    c
}

fn ids(page: &Value) -> Vec<(Value, Value)> {
    page["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["sessionId"].clone(), s["archived"].clone()))
        .collect()
}

#[tokio::test]
async fn a_session_archived_after_its_conversation_is_listed_as_archived_elsewhere_and_still_loads()
{
    let mock = MockApi::start(vec![Rule::always(Reply::text("Noted: pineapple."))]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    c.initialize().await;
    let id = c.new_session(env.work_dir()).await;
    let stop = c.prompt(&id, PROMPT).await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    c.request("session/archive", json!({"sessionId": id}))
        .await
        .unwrap_or_else(|e| panic!("archive: {e:?}\n{}", c.diagnostics()));
    let status = c
        .request("session/status", json!({"sessionId": id}))
        .await
        .unwrap();
    assert_eq!(status["status"], "saved", "the archive closed it");
    c.close_stdin().await;
    assert!(c.wait_exit(Duration::from_secs(20)).await.is_some());

    let d = adapter(&env);
    d.initialize().await;
    let list = |filter: Value| {
        d.request(
            "session/list",
            json!({"cwd": env.work_dir(), "archived": filter}),
        )
    };
    assert_eq!(ids(&list(Value::Null).await.unwrap()), vec![]);
    assert_eq!(
        ids(&list(json!("only")).await.unwrap()),
        vec![(json!(id), json!(true))]
    );
    d.load_session(&id, env.work_dir()).await;
    let said: Vec<Value> = d
        .updates_of_kind(&id, "user_message_chunk")
        .iter()
        .map(|u| u["content"]["text"].clone())
        .collect();
    assert_eq!(said, vec![json!(PROMPT)]);
}
