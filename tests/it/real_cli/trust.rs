//! Workspace trust with the real claude: a workspace whose own settings would run something as
//! claude starts (a `SessionStart` hook, an `.mcp.json` server, an `apiKeyHelper`) or send its
//! requests elsewhere (`env.ANTHROPIC_BASE_URL`) runs none of it until the user trusts it through
//! the one permission ask after `session/new`; trusted, claude restarts with them and they work,
//! and the answer is kept in claude's own config. A workspace without them is never asked.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;

/// Where the redirected requests go: the mock, under a path of its own.
const ELSEWHERE: &str = "/elsewhere";

/// One project setting under test, and how to see it ran.
enum Setting {
    Hook,
    McpServer,
    KeyHelper,
    BaseUrl,
}

impl Setting {
    /// Writes the setting into the workspace, and (for the helper) the key it hands claude.
    fn write(&self, env: &ClaudeEnv, mock: &MockApi) {
        let work = env.work_dir();
        let marker = marker(env);
        let settings = match self {
            Setting::Hook => json!({"hooks": {"SessionStart": [{"hooks": [
                {"type": "command", "command": format!("touch {}", marker.display())}
            ]}]}}),
            Setting::KeyHelper => json!({
                "apiKeyHelper": format!("touch {} && echo helper-key", marker.display())
            }),
            Setting::BaseUrl => {
                json!({"env": {"ANTHROPIC_BASE_URL": format!("{}{ELSEWHERE}", mock.base_url())}})
            }
            Setting::McpServer => {
                let server = Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/it/support/mcp_echo_server.mjs");
                let mcp = json!({"mcpServers": {"project-server": {
                    "command": "sh",
                    "args": ["-c", format!("touch {} && exec node {}", marker.display(), server.display())],
                }}});
                std::fs::write(work.join(".mcp.json"), mcp.to_string()).unwrap();
                json!({})
            }
        };
        // A deny rule too: it stays in force before trust, and alone it is never asked about.
        let mut settings = settings;
        settings["permissions"] = json!({"deny": ["Read(secret.txt)"]});
        std::fs::create_dir_all(work.join(".claude")).unwrap();
        std::fs::write(work.join(".claude/settings.json"), settings.to_string()).unwrap();
    }

    /// What the ask names: the command, the server or the URL.
    fn named(&self, mock: &MockApi) -> String {
        match self {
            Setting::Hook => "hook `SessionStart` runs `touch".into(),
            Setting::McpServer => "MCP server `project-server` runs `sh -c touch".into(),
            Setting::KeyHelper => "`apiKeyHelper` runs `touch".into(),
            Setting::BaseUrl => format!("go to {}{ELSEWHERE}", mock.base_url()),
        }
    }

    /// Whether the setting has taken effect: its program ran, or claude's requests went elsewhere
    /// (with the helper's key).
    fn ran(&self, env: &ClaudeEnv, mock: &MockApi) -> bool {
        match self {
            Setting::Hook | Setting::McpServer => marker(env).exists(),
            Setting::KeyHelper => {
                marker(env).exists()
                    || mock.requests().iter().any(|r| {
                        r.headers
                            .iter()
                            .any(|(_, value)| value.contains("helper-key"))
                    })
            }
            Setting::BaseUrl => mock
                .requests()
                .iter()
                .any(|r| r.target.starts_with(ELSEWHERE)),
        }
    }
}

fn marker(env: &ClaudeEnv) -> PathBuf {
    env.home_dir().join("project-setting-ran")
}

/// An adapter in `env`, its trust asks held for the test to answer.
async fn adapter(env: &ClaudeEnv) -> AcpClient {
    let c = AcpClient::from_command(env.command(env!("CARGO_BIN_EXE_claude-acp")));
    c.set_timeout(Duration::from_secs(60));
    c.hold_requests("session/request_permission");
    c.initialize().await;
    c
}

async fn hello(c: &AcpClient, id: &str) {
    let stop = c.prompt(id, "hello").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
}

/// Waits until `done` holds, for what claude does after a turn (a hook, a server starting).
async fn eventually(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "{what} never happened");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether claude's config says the user trusts `dir` (`projects[<dir>].hasTrustDialogAccepted`).
fn claude_trusts(env: &ClaudeEnv, dir: &Path) -> bool {
    let config: Value = std::fs::read(env.home_dir().join(".claude.json"))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    config["projects"][dir.to_str().unwrap()]["hasTrustDialogAccepted"] == true
}

async fn nothing_runs_before_trust_and_it_works_after(setting: Setting) {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Hi."))]);
    let env = ClaudeEnv::new(&mock);
    setting.write(&env, &mock);
    let c = adapter(&env).await;
    let id = c.new_session(env.work_dir()).await;

    let ask = c.next_request("session/request_permission").await;
    // After session/new's answer: an editor knows the session only from it on.
    let transcript = c.transcript();
    let at = |found: &dyn Fn(&Value) -> bool| transcript.iter().position(found).unwrap();
    let opened = at(&|m| m["result"]["sessionId"] == id.as_str());
    let asked = at(&|m| m["method"] == "session/request_permission");
    let shown = at(&|m| m["params"]["update"]["sessionUpdate"] == "tool_call");
    assert!(opened < shown && shown < asked, "{opened} {shown} {asked}");
    let call = &ask.params["toolCall"];
    assert_eq!(call["kind"], "other", "{ask:?}");
    let text = call["content"].to_string();
    assert!(
        text.contains(&setting.named(&mock)),
        "the ask names it: {text}"
    );
    assert!(
        text.contains(env.work_dir().to_str().unwrap()),
        "and the workspace: {text}"
    );

    // Unanswered, the session works with the user's settings only.
    hello(&c, &id).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!setting.ran(&env, &mock), "ran before trust");
    assert!(!claude_trusts(&env, &env.work_dir()));

    let trust = ask.params["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "allow_always")
        .expect("a trust option")["optionId"]
        .clone();
    c.respond(
        &ask.id,
        json!({"outcome": {"outcome": "selected", "optionId": trust}}),
    )
    .await;
    // The ask's tool call completes once the session's next claude loads the project's settings.
    let tool_call_id = call["toolCallId"].clone();
    c.wait_for_update(
        |p| p["update"]["toolCallId"] == tool_call_id && p["update"]["status"] == "completed",
        Duration::from_secs(30),
    )
    .await;
    hello(&c, &id).await;
    eventually("the setting running after trust", || {
        setting.ran(&env, &mock)
    })
    .await;
    assert!(
        claude_trusts(&env, &env.work_dir()),
        "claude kept the trust"
    );
}

#[tokio::test]
async fn a_session_start_hook_waits_for_the_users_trust() {
    nothing_runs_before_trust_and_it_works_after(Setting::Hook).await;
}

#[tokio::test]
async fn a_project_mcp_server_waits_for_the_users_trust() {
    nothing_runs_before_trust_and_it_works_after(Setting::McpServer).await;
}

#[tokio::test]
async fn an_api_key_helper_waits_for_the_users_trust() {
    nothing_runs_before_trust_and_it_works_after(Setting::KeyHelper).await;
}

#[tokio::test]
async fn a_base_url_in_the_projects_env_waits_for_the_users_trust() {
    nothing_runs_before_trust_and_it_works_after(Setting::BaseUrl).await;
}

#[tokio::test]
async fn a_workspace_that_runs_nothing_is_never_asked_and_a_trusted_one_not_again() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Hi."))]);
    let env = ClaudeEnv::new(&mock);
    std::fs::create_dir_all(env.work_dir().join(".claude")).unwrap();
    std::fs::write(
        env.work_dir().join(".claude/settings.json"),
        json!({"permissions": {"deny": ["Read(secret.txt)"]}, "env": {"BASH_MAX_TIMEOUT_MS": "9000"}})
            .to_string(),
    )
    .unwrap();
    // A workspace the user trusted in claude's terminal, with a hook: not asked either. Its
    // trust is written before any claude runs, as claude rewrites its config while it runs.
    let trusted = env.home_dir().join("trusted");
    std::fs::create_dir_all(trusted.join(".claude")).unwrap();
    std::fs::write(
        trusted.join(".claude/settings.json"),
        json!({"hooks": {"SessionStart": [{"hooks": [
            {"type": "command", "command": format!("touch {}", marker(&env).display())}
        ]}]}})
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        env.home_dir().join(".claude.json"),
        json!({"projects": {trusted.to_str().unwrap(): {"hasTrustDialogAccepted": true}}})
            .to_string(),
    )
    .unwrap();
    let c = adapter(&env).await;
    let id = c.new_session(env.work_dir()).await;
    hello(&c, &id).await;
    let other = c.new_session(&trusted).await;
    hello(&c, &other).await;
    let asked = || -> Vec<Value> {
        c.requests()
            .into_iter()
            .filter(|r| r.method == "session/request_permission")
            .map(|r| r.params)
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while !marker(&env).exists() {
        assert!(
            Instant::now() < deadline,
            "the trusted workspace's hook never ran; asked: {:?}\n{}",
            asked(),
            c.diagnostics()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(asked().is_empty(), "asked: {:?}", asked());
}

#[tokio::test]
async fn the_projects_deny_rules_hold_before_trust() {
    let mock = MockApi::start(vec![Rule::on_tool_result(Reply::text("Done."))]);
    let env = ClaudeEnv::new(&mock);
    Setting::Hook.write(&env, &mock);
    let secret = env.work_dir().join("secret.txt");
    std::fs::write(&secret, "TOP-SECRET").unwrap();
    mock.push_rule(Rule::on_prompt(
        "read it",
        Reply::tool_use("Read", json!({"file_path": secret})),
    ));
    mock.push_rule(Rule::always(Reply::text("Hi.")));
    let c = adapter(&env).await;
    let id = c.new_session(env.work_dir()).await;
    let _trust_ask = c.next_request("session/request_permission").await;
    // claude's own Read (the editor serves no files), in the default mode: a file in the
    // workspace is read unasked unless a deny rule says otherwise.
    let stop = c.prompt(&id, "read it").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    let result = mock.last_tool_result_text().unwrap_or_default();
    assert!(
        !result.contains("TOP-SECRET"),
        "the project's deny rule let the secret through: {result}"
    );
}
