//! The session's toggles with the real claude against the mock API: the editor's `systemPrompt`
//! (appended to claude's own, or replacing it) as the model's requests carry it.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use crate::support::real_session::claude_pid;

fn adapter(env: &ClaudeEnv) -> AcpClient {
    let c = AcpClient::from_command(env.command(env!("CARGO_BIN_EXE_claude-acp")));
    c.set_timeout(Duration::from_secs(60));
    c
}

/// The text of a Messages request's `system` (a string, or text blocks).
fn system_text(body: &Value) -> String {
    match &body["system"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// claude's command line, as every local user can read it.
fn command_line(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| String::from_utf8_lossy(&bytes).replace('\0', " "))
        .unwrap_or_default()
}

/// Opens a session with `systemPrompt` in `mode`, prompts once, and returns the system text of
/// the model's request for that prompt and claude's command line.
async fn system_for(mode: &str, text: &str) -> (String, String) {
    let mock = MockApi::start(vec![Rule::always(Reply::text("ok"))]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    let init = c.initialize().await;
    assert_eq!(
        init["agentCapabilities"]["sessionCapabilities"]["systemPrompt"],
        json!({"mode": {"override": {}}}),
        "both modes are advertised: {init}"
    );
    let opened = c
        .request(
            "session/new",
            json!({"cwd": env.work_dir(), "mcpServers": [],
                   "systemPrompt": {"mode": mode, "content": [{"type": "text", "text": text}]}}),
        )
        .await
        .unwrap();
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    c.prompt(&id, "hello there").await.unwrap();
    let argv = command_line(claude_pid(c.pid()).expect("claude runs"));
    let request = mock
        .requests()
        .into_iter()
        .rev()
        .find(|r| r.prompt_text().is_some_and(|p| p.contains("hello there")))
        .expect("the prompt's request");
    (system_text(&request.body), argv)
}

/// A sentence of claude's own system prompt (2.1.332).
const CLAUDES_OWN: &str = "You are Claude Code";

#[tokio::test]
async fn an_appended_system_prompt_reaches_the_model_after_claudes_own_and_never_argv() {
    let (system, argv) = system_for("append", "Always answer like a pirate (APPENDED).").await;
    assert!(
        system.contains("Always answer like a pirate (APPENDED)."),
        "{system}"
    );
    assert!(system.contains(CLAUDES_OWN), "claude's own stays: {system}");
    assert!(!argv.contains("pirate"), "not on claude's command line: {argv}");
}

#[tokio::test]
async fn a_system_prompt_in_override_mode_replaces_claudes_own() {
    let (system, argv) = system_for("override", "You are a terse reviewer (REPLACED).").await;
    assert!(
        system.contains("You are a terse reviewer (REPLACED)."),
        "{system}"
    );
    assert!(
        !system.contains(CLAUDES_OWN),
        "claude's own prompt is gone: {system}"
    );
    assert!(!argv.contains("reviewer"), "not on claude's command line: {argv}");
}
