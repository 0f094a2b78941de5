//! Ending a session while claude is busy: `session/close`, or loading the same session again,
//! answers the prompt in flight (cancelled) instead of leaving the editor waiting, stops that claude,
//! and removes the `--mcp-config` file it was given.

use std::path::PathBuf;
use std::time::Duration;

use crate::support::acp_client::AcpClient;
use crate::support::history::{FIXTURE_SESSION_ID, install_fixture};
use crate::support::liveness;
use crate::support::standin::Standin;
use serde_json::{Value, json};

fn adapter(s: &Standin) -> AcpClient {
    let config = s.dir().join("claude-config");
    install_fixture(&config, &s.work, FIXTURE_SESSION_ID);
    // TMPDIR (where the MCP config is written) inside the test's dir: nothing leaks into /tmp.
    s.adapter_with_env(
        &[],
        &[
            ("CLAUDE_CONFIG_DIR", config.to_str().unwrap()),
            ("TMPDIR", s.dir().to_str().unwrap()),
        ],
    )
}

fn with_server(s: &Standin) -> Value {
    json!({"sessionId": FIXTURE_SESSION_ID, "cwd": s.work, "mcpServers": [
        {"name": "notes", "command": "/bin/true", "args": [], "env": []}
    ]})
}

fn mcp_config_of(argv: &[String]) -> PathBuf {
    let at = argv
        .iter()
        .position(|a| a == "--mcp-config")
        .expect("--mcp-config");
    PathBuf::from(&argv[at + 1])
}

/// Sends a prompt that claude (playing `hang`) takes and never answers; returns once claude has it.
async fn start_hanging_prompt(
    c: &std::sync::Arc<AcpClient>,
    s: &Standin,
) -> tokio::task::JoinHandle<Result<Value, crate::support::acp_client::RpcError>> {
    let client = c.clone();
    let prompt =
        tokio::spawn(async move { client.prompt(FIXTURE_SESSION_ID, "never answered").await });
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !s.received().iter().any(|l| l["type"] == "user") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "claude never got the prompt"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    prompt
}

#[tokio::test]
async fn close_during_a_turn_answers_the_prompt_and_stops_claude() {
    let s = Standin::new("hang");
    let c = std::sync::Arc::new(adapter(&s));
    c.initialize().await;
    c.request("session/load", with_server(&s)).await.unwrap();
    let pid = s.wait_started(1, Duration::from_secs(10)).await[0];
    let config = mcp_config_of(&s.argvs()[0]);
    assert!(config.exists());
    let prompt = start_hanging_prompt(&c, &s).await;

    c.request("session/close", json!({"sessionId": FIXTURE_SESSION_ID}))
        .await
        .unwrap();
    let answered = tokio::time::timeout(Duration::from_secs(5), prompt)
        .await
        .expect("the prompt in flight is answered")
        .unwrap();
    assert_eq!(answered.unwrap()["stopReason"], "cancelled");
    assert!(liveness::wait_until_gone(&[pid], Duration::from_secs(5)).await);
    assert!(!config.exists(), "{} left behind", config.display());
}

#[tokio::test]
async fn loading_again_during_a_turn_answers_the_prompt_and_replaces_claude() {
    let s = Standin::new("hang");
    let c = std::sync::Arc::new(adapter(&s));
    c.initialize().await;
    c.request("session/load", with_server(&s)).await.unwrap();
    let first = s.wait_started(1, Duration::from_secs(10)).await[0];
    let first_config = mcp_config_of(&s.argvs()[0]);
    let prompt = start_hanging_prompt(&c, &s).await;

    c.request("session/load", with_server(&s)).await.unwrap();
    let answered = tokio::time::timeout(Duration::from_secs(5), prompt)
        .await
        .expect("the prompt in flight is answered")
        .unwrap();
    assert_eq!(answered.unwrap()["stopReason"], "cancelled");
    let pids = s.wait_started(2, Duration::from_secs(10)).await;
    assert!(!liveness::is_alive(first), "the first claude still runs");
    assert!(liveness::is_alive(pids[1]));
    assert!(
        !first_config.exists(),
        "the first claude's MCP config is left behind"
    );
    assert!(mcp_config_of(&s.argvs()[1]).exists());
}

#[tokio::test]
async fn the_mcp_config_does_not_outlive_the_adapter() {
    let s = Standin::new("text");
    let c = adapter(&s);
    c.initialize().await;
    c.request("session/load", with_server(&s)).await.unwrap();
    s.wait_started(1, Duration::from_secs(10)).await;
    let config = mcp_config_of(&s.argvs()[0]);
    assert!(config.exists());
    assert_eq!(
        c.prompt(FIXTURE_SESSION_ID, "hi").await.unwrap()["stopReason"],
        "end_turn"
    );

    // The editor quits: the file holds its servers' env and headers, so it goes with the adapter.
    c.close_stdin().await;
    assert!(c.wait_exit(Duration::from_secs(10)).await.is_some());
    assert!(!config.exists(), "{} left behind", config.display());
}

#[tokio::test]
async fn closing_asks_claude_to_stop_its_background_commands_before_its_stdin_closes() {
    // The script expects `stop_task` for the running command, and fails if stdin closes first.
    let s = Standin::new("background_task_stop");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let pid = s.wait_started(1, Duration::from_secs(10)).await[0];
    let outcome = c.prompt(&id, "start the dev server").await.unwrap();
    assert_eq!(outcome["stopReason"], "end_turn");
    c.request("session/close", json!({"sessionId": id}))
        .await
        .unwrap();
    assert!(liveness::wait_until_gone(&[pid], Duration::from_secs(5)).await);
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    // Asked for the command only (the ambient watcher is not work), and before stdin closed.
    let stops: Vec<Value> = s
        .received()
        .into_iter()
        .filter(|line| line["request"]["subtype"] == "stop_task")
        .map(|line| line["request"]["task_id"].clone())
        .collect();
    assert_eq!(
        stops,
        [json!("bgtask1")],
        "claude was not asked to stop its command"
    );
}
