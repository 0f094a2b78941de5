//! The editor of the soak and idle-cost benches: the integration tests' scripted ACP client
//! (`tests/it/support/acp_client/`), started on the release adapter as the benches run it, with
//! every permission ask allowed; and the stand-in run as claude through a plain wrapper script
//! (not the tests' `Standin`, whose log and debug logging would be in the figures).

// Each bench uses part of it, and of the client.
#![allow(dead_code, unused_imports)]

#[path = "../../tests/it/support/acp_client/mod.rs"]
pub mod acp_client;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

pub use acp_client::AcpClient;

pub const ADAPTER: &str = env!("CARGO_BIN_EXE_claude-acp");

/// How long one request or wait may take before the bench gives up.
const TIMEOUT: Duration = Duration::from_secs(60);

/// A script `claude` in `dir` that runs the stand-in on `fixtures/standin/<script>`.
pub fn standin_claude(dir: &Path, script: &str) -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/standin")
        .join(script);
    let path = dir.join("claude");
    let body = format!(
        "#!/bin/sh\nexec '{ADAPTER}' standin --script '{}' \"$@\"\n",
        script.display()
    );
    std::fs::write(&path, body).expect("wrapper");
    claude_acp::platform::files::make_executable(&path).expect("chmod");
    path
}

/// The adapter running `claude` with this idle timeout, in `work`, initialized; it allows every
/// permission ask. Must be called inside a tokio runtime.
pub async fn adapter(claude: &Path, idle_timeout: &str, work: &Path) -> AcpClient {
    let mut command = tokio::process::Command::new(ADAPTER);
    command
        .arg("--claude-path")
        .arg(claude)
        .args(["--idle-timeout", idle_timeout])
        .env_remove("RUST_LOG")
        .current_dir(work);
    let client = AcpClient::from_command(command);
    client.set_timeout(TIMEOUT);
    // Dropped as an editor quits (stdin closed, the adapter's exit awaited), so that one run's
    // claudes are gone before the next run starts.
    client.end_gracefully_on_drop();
    client.allow_permissions();
    client.initialize().await;
    client
}

/// One turn with this text; its stop reason.
pub async fn stop_reason(client: &AcpClient, session: &str, text: &str) -> String {
    let answer = client
        .prompt(session, text)
        .await
        .unwrap_or_else(|e| panic!("{text}: {e}\n{}", client.diagnostics()));
    answer["stopReason"].as_str().unwrap_or_default().to_owned()
}

/// A turn with this text that streams a chunk: ms from sending the prompt to its first
/// `agent_message_chunk` (the moment the client had it).
pub async fn prompt_to_first_chunk(client: &AcpClient, session: &str, text: &str) -> f64 {
    let from = client.update_count();
    let sent = Instant::now();
    let first_chunk = async {
        let is_chunk = |u: &Value| {
            u["sessionId"] == session && u["update"]["sessionUpdate"] == "agent_message_chunk"
        };
        client.wait_for_update_from(from, is_chunk, TIMEOUT).await;
        Instant::now()
    };
    let (chunk, answer) = tokio::join!(first_chunk, client.prompt(session, text));
    answer.unwrap_or_else(|e| panic!("{text}: {e}\n{}", client.diagnostics()));
    chunk.duration_since(sent).as_secs_f64() * 1000.0
}

/// Polls until `count` gives `n` (starting or ending a claude process is not instant).
pub async fn wait_until(n: usize, what: &str, count: impl Fn() -> usize) {
    let deadline = Instant::now() + TIMEOUT;
    while count() != n {
        assert!(
            Instant::now() < deadline,
            "{} {what}, waiting for {n}",
            count()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
