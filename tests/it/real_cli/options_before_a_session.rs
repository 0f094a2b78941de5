//! `session/options` with the real claude: the first time it learns claude's models as
//! `session/new` does, and ends that claude; then it answers from the cache with no claude
//! running, the same options `session/new` then answers.

use std::time::Duration;

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use serde_json::{Value, json};

fn adapter(env: &ClaudeEnv) -> AcpClient {
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(Duration::from_secs(60));
    c
}

fn options_of(answer: &Value) -> (Value, Value) {
    (answer["modes"].clone(), answer["configOptions"].clone())
}

/// No claude runs under the adapter (the processes are read from /proc, on Linux).
async fn no_claude_under(c: &AcpClient) {
    #[cfg(target_os = "linux")]
    {
        let pid = c.pid();
        let gone = async {
            while crate::support::real_session::claude_pid(pid).is_some() {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        let ended = tokio::time::timeout(Duration::from_secs(10), gone).await;
        assert!(ended.is_ok(), "a claude still runs\n{}", c.diagnostics());
    }
    #[cfg(not(target_os = "linux"))]
    let _ = c;
}

#[tokio::test]
async fn options_are_learned_once_then_answered_without_claude() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("ok"))]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    c.initialize().await;
    let ask = || c.request("session/options", json!({"cwd": env.work_dir()}));
    let first = ask()
        .await
        .unwrap_or_else(|e| panic!("options: {e:?}\n{}", c.diagnostics()));
    let models = first["configOptions"]
        .as_array()
        .and_then(|o| o.iter().find(|o| o["id"] == "model"))
        .cloned();
    assert!(models.is_some(), "claude's models: {first}");
    no_claude_under(&c).await;

    let second = ask().await.unwrap();
    assert_eq!(options_of(&second), options_of(&first));
    no_claude_under(&c).await;
    let opened = c.open_session(env.work_dir()).await;
    assert_eq!(
        options_of(&opened),
        options_of(&first),
        "what session/new answers"
    );
}
