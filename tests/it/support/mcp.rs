#![allow(dead_code)]
//! Helpers shared by the MCP permission tests: our permission server where claude can reach it, and
//! the pinned claude started on the MCP permission path.

use std::net::TcpListener as StdTcpListener;
use std::sync::{Arc, Mutex};

use claude_acp::claude::wire::{McpConfigFile, PermissionDecision, build_mcp_config};
use claude_acp::permissions::fallback::{PermissionCall, PermissionCallback, PermissionServer};
use serde_json::{Value, json};

use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::netns::IsolatedNet;
use crate::support::real_cli::ClaudeEnv;
use crate::support::stream_json::StreamJsonProcess;

pub const STEP: std::time::Duration = std::time::Duration::from_secs(30);

/// Runs `work` where claude runs: inside the mock's network namespace when it has one.
pub fn where_claude_runs<T: Send + 'static>(
    net: Option<&IsolatedNet>,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    match net {
        Some(net) => net.run_inside(work).expect("run inside the test namespace"),
        None => work(),
    }
}

/// The server on a listener bound where claude can reach it.
pub fn start_server(mock: &MockApi, callback: PermissionCallback) -> PermissionServer {
    let listener = where_claude_runs(mock.net(), || StdTcpListener::bind("127.0.0.1:0"))
        .expect("bind 127.0.0.1");
    PermissionServer::start_on(listener, callback).expect("start the permission server")
}

/// A callback that records every call and answers with `decide`.
pub fn recording(
    decide: impl Fn(&PermissionCall) -> PermissionDecision + Send + Sync + 'static,
) -> (PermissionCallback, Arc<Mutex<Vec<PermissionCall>>>) {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&calls);
    let callback: PermissionCallback = Arc::new(move |call: PermissionCall| {
        let decision = decide(&call);
        seen.lock().unwrap().push(call);
        Box::pin(async move { decision })
    });
    (callback, calls)
}

pub fn allow_as_asked(call: &PermissionCall) -> PermissionDecision {
    PermissionDecision::Allow {
        updated_input: call.input.clone(),
        updated_permissions: vec![],
    }
}

/// The pinned claude asking our server (not stdio) for permission.
pub struct McpClaude {
    pub claude: StreamJsonProcess,
    _config: McpConfigFile,
    _config_dir: tempfile::TempDir,
}

pub fn spawn_claude_on_mcp(env: &ClaudeEnv, server: &PermissionServer) -> McpClaude {
    spawn_claude_on_mcp_with(
        env,
        server,
        &["--session-id", &uuid::Uuid::new_v4().to_string()],
    )
}

/// Same, with `start` (`--session-id <id>` or `--resume <id>`) instead of a fresh session id.
pub fn spawn_claude_on_mcp_with(
    env: &ClaudeEnv,
    server: &PermissionServer,
    start: &[&str],
) -> McpClaude {
    let config = build_mcp_config(&[], Some(server.mcp_config_entry()));
    let config_dir = tempfile::tempdir().unwrap();
    let config = McpConfigFile::write_in(config_dir.path(), &config).unwrap();
    let mut command =
        env.claude_stream_json_asking_with(["--permission-prompt-tool", &server.tool_name()]);
    command.args(start).args(config.claude_args());
    McpClaude {
        claude: StreamJsonProcess::spawn(command),
        _config: config,
        _config_dir: config_dir,
    }
}

pub fn is_result(message: &Value) -> bool {
    message["type"] == "result"
}

/// Scripts one Write of `content` into `hello.txt`, then a closing text once the result is back.
pub fn script_write(mock: &MockApi, env: &ClaudeEnv, content: &str) -> std::path::PathBuf {
    let target = env.work_dir().join("hello.txt");
    mock.push_rule(Rule::on_prompt(
        "create hello.txt",
        Reply::tool_use("Write", json!({"file_path": target, "content": content})),
    ));
    mock.push_rule(Rule::on_tool_result(Reply::text("Done.")));
    target
}

/// Sends the prompt, waits for the turn's result; returns it.
pub async fn run_turn(claude: &mut StreamJsonProcess, prompt: &str) -> Value {
    claude.send_user_text(prompt).await;
    claude.read_until("result", STEP, is_result).await
}
