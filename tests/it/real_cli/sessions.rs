//! Stored sessions and editor MCP servers with the real CLI through claude-acp: a conversation
//! continues in a new adapter process (the model sees the earlier exchange, the editor sees it
//! replayed, `session/list` shows it), and a stdio MCP server the editor passes in `session/new`
//! is one claude can call, with its result reaching the model.

use crate::on_each_claude;
use std::path::Path;
use std::time::Duration;

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use serde_json::{Value, json};

const FIRST_PROMPT: &str = "Remember the secret word pineapple.";
const FIRST_ANSWER: &str = "Noted: pineapple.";
const SECOND_PROMPT: &str = "Which word did I ask you to remember?";

// The scenarios that matter most, on every claude CI runs.
on_each_claude! {
    a_session_loaded_in_a_new_adapter_process_continues_the_conversation => load_continues_the_conversation;
    a_new_adapter_process_lists_the_earlier_session_with_its_title => lists_the_earlier_session;
    resume_and_fork_in_a_new_adapter_process_carry_the_earlier_exchange => resume_and_fork_carry_the_earlier_exchange;
    a_session_is_listed_by_its_own_process_once_stored_or_not => listed_in_its_own_process;
}

fn adapter(env: &ClaudeEnv) -> AcpClient {
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(Duration::from_secs(60));
    c
}

fn mock_for_two_turns() -> MockApi {
    MockApi::start(vec![
        Rule::on_prompt("secret word pineapple", Reply::text(FIRST_ANSWER)),
        Rule::always(Reply::text("It was pineapple.")),
    ])
}

/// A first adapter process: one session, one exchange, then the editor quits. Returns the id.
async fn first_conversation(env: &ClaudeEnv) -> String {
    let c = adapter(env);
    c.initialize().await;
    let id = c.new_session(env.work_dir()).await;
    let stop = c.prompt(&id, FIRST_PROMPT).await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert_eq!(c.agent_text(&id), FIRST_ANSWER);
    c.close_stdin().await;
    assert!(
        c.wait_exit(Duration::from_secs(20)).await.is_some(),
        "the first adapter did not exit\n{}",
        c.diagnostics()
    );
    id
}

fn texts(c: &AcpClient, id: &str, kind: &str) -> Vec<String> {
    c.updates_of_kind(id, kind)
        .iter()
        .filter_map(|u| u["content"]["text"].as_str().map(str::to_owned))
        .collect()
}

async fn load_continues_the_conversation(version: &str) {
    let mock = mock_for_two_turns();
    let env = ClaudeEnv::for_version(&mock, version);
    let id = first_conversation(&env).await;
    let requests_before = mock.requests().len();

    let c = adapter(&env);
    c.initialize().await;
    c.load_session(&id, env.work_dir()).await;
    assert_eq!(texts(&c, &id, "user_message_chunk"), vec![FIRST_PROMPT]);
    assert_eq!(texts(&c, &id, "agent_message_chunk"), vec![FIRST_ANSWER]);

    let stop = c.prompt(&id, SECOND_PROMPT).await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    let requests = mock.requests();
    assert!(
        requests.len() > requests_before,
        "the new turn reached the API"
    );
    let last = requests.last().unwrap();
    assert_eq!(last.prompt_text().as_deref(), Some(SECOND_PROMPT));
    assert!(
        last.contains(FIRST_PROMPT) && last.contains(FIRST_ANSWER),
        "the model sees the earlier exchange: {}",
        serde_json::to_string(last.messages()).unwrap()
    );
    assert_eq!(
        c.agent_text(&id),
        format!("{FIRST_ANSWER}It was pineapple."),
        "the replayed answer, then the new one"
    );
}

async fn lists_the_earlier_session(version: &str) {
    let mock = mock_for_two_turns();
    let env = ClaudeEnv::for_version(&mock, version);
    let id = first_conversation(&env).await;

    let c = adapter(&env);
    c.initialize().await;
    let page = c
        .request("session/list", json!({"cwd": env.work_dir()}))
        .await
        .unwrap();
    let sessions = page["sessions"].as_array().unwrap();
    let listed: Vec<&Value> = sessions.iter().filter(|s| s["sessionId"] == id).collect();
    assert_eq!(listed.len(), 1, "{page}");
    assert_eq!(listed[0]["title"], FIRST_PROMPT, "{page}");
    assert_eq!(listed[0]["cwd"], json!(env.work_dir()));
    assert!(page["nextCursor"].is_null(), "{page}");
}

#[tokio::test]
async fn an_editor_stdio_mcp_server_is_called_by_claude_and_its_result_reaches_the_model() {
    let mock = MockApi::start(vec![
        Rule::on_prompt(
            "echo tool",
            Reply::tool_use("mcp__echo__echo", json!({"text": "hello from the editor"})),
        )
        .once(),
        Rule::on_tool_result_containing("echo: hello from the editor", Reply::text("Echoed.")),
        Rule::always(Reply::text("unexpected request")),
    ]);
    let env = ClaudeEnv::new(&mock);
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/support/mcp_echo_server.mjs");
    let log = env.home_dir().join("echo-mcp.log");

    let c = adapter(&env);
    c.initialize().await;
    c.allow_permissions();
    let opened = c
        .request(
            "session/new",
            json!({"cwd": env.work_dir(), "mcpServers": [{
                "name": "echo",
                "command": "node",
                "args": [server],
                "env": [{"name": "ECHO_MCP_LOG", "value": log}],
            }]}),
        )
        .await
        .unwrap_or_else(|e| panic!("session/new: {e}\n{}", c.diagnostics()));
    let id = opened["sessionId"].as_str().unwrap().to_owned();

    let stop = c.prompt(&id, "Please use the echo tool.").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());

    let asks: Vec<Value> = c
        .requests()
        .iter()
        .filter(|r| r.method == "session/request_permission")
        .map(|r| r.params.clone())
        .collect();
    assert_eq!(asks.len(), 1, "the editor was asked once: {asks:?}");
    let result = mock.last_tool_result_text().unwrap_or_default();
    assert!(
        result.contains("echo: hello from the editor"),
        "the tool result reached the model: {result:?}"
    );
    let called = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        called.lines().any(|m| m == "tools/call"),
        "the server (with the editor's env) was called: {called:?}"
    );
    assert_eq!(c.agent_text(&id), "Echoed.");
}

async fn resume_and_fork_carry_the_earlier_exchange(version: &str) {
    let mock = mock_for_two_turns();
    let env = ClaudeEnv::for_version(&mock, version);
    let id = first_conversation(&env).await;

    let c = adapter(&env);
    c.initialize().await;
    let params = json!({"sessionId": id, "cwd": env.work_dir(), "mcpServers": []});
    let forked = c
        .request("session/fork", params.clone())
        .await
        .unwrap_or_else(|e| panic!("session/fork: {e}\n{}", c.diagnostics()));
    let fork_id = forked["sessionId"].as_str().unwrap().to_owned();
    assert_ne!(fork_id, id);
    let stop = c.prompt(&fork_id, SECOND_PROMPT).await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    let last = mock.requests().last().unwrap().clone();
    assert_eq!(last.prompt_text().as_deref(), Some(SECOND_PROMPT));
    assert!(
        last.contains(FIRST_PROMPT),
        "the fork sees the earlier prompt"
    );
    assert!(c.updates_of_kind(&fork_id, "user_message_chunk").is_empty());

    c.request("session/resume", params)
        .await
        .unwrap_or_else(|e| panic!("session/resume: {e}\n{}", c.diagnostics()));
    assert!(
        c.updates(&id)
            .iter()
            .all(|u| u["sessionUpdate"] != "user_message_chunk")
    );
    let stop = c.prompt(&id, "And the word again?").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    let last = mock.requests().last().unwrap().clone();
    assert!(
        last.contains(FIRST_PROMPT),
        "the resumed session sees its earlier prompt"
    );
    assert!(
        !last.contains(SECOND_PROMPT),
        "what was said in the fork stays in the fork"
    );

    let page = c
        .request("session/list", json!({"cwd": env.work_dir()}))
        .await
        .unwrap();
    let ids: Vec<&str> = page["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["sessionId"].as_str())
        .collect();
    assert!(
        ids.contains(&id.as_str()) && ids.contains(&fork_id.as_str()),
        "{page}"
    );
}

#[tokio::test]
async fn the_mcp_config_with_the_editors_env_does_not_outlive_the_adapter() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Hi."))]);
    let env = ClaudeEnv::new(&mock);
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/support/mcp_echo_server.mjs");
    let tmp = env.home_dir().parent().unwrap().join("tmp");
    let config_files = || -> Vec<String> {
        std::fs::read_dir(&tmp)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with("claude-acp-mcp-"))
            .collect()
    };

    let c = adapter(&env);
    c.initialize().await;
    let opened = c
        .request(
            "session/new",
            json!({"cwd": env.work_dir(), "mcpServers": [{
                "name": "echo", "command": "node", "args": [server],
                "env": [{"name": "ECHO_TOKEN", "value": "s3cret"}],
            }]}),
        )
        .await
        .unwrap();
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(
        c.prompt(&id, "hello").await.unwrap()["stopReason"],
        "end_turn"
    );
    assert_eq!(
        config_files().len(),
        1,
        "the config is in TMPDIR while claude runs"
    );

    c.close_stdin().await;
    assert!(c.wait_exit(Duration::from_secs(20)).await.is_some());
    assert!(
        config_files().is_empty(),
        "left behind: {:?}",
        config_files()
    );
}

#[tokio::test]
async fn meta_system_prompt_and_options_reach_the_model() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Bonjour."))]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    c.initialize().await;
    let meta = json!({
        "systemPrompt": {"append": "Always answer in French, said the editor."},
        "claudeCode": {"options": {"model": "haiku", "maxTurns": 2}},
    });
    let opened = c
        .request(
            "session/new",
            json!({"cwd": env.work_dir(), "mcpServers": [], "_meta": meta}),
        )
        .await
        .unwrap_or_else(|e| panic!("session/new: {e}\n{}", c.diagnostics()));
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    let stop = c.prompt(&id, "Hello").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    let request = mock.requests().last().unwrap().clone();
    assert!(
        request.contains("Always answer in French, said the editor."),
        "the appended system prompt reaches the model: {}",
        request.body["system"]
    );
    let model = request.body["model"].as_str().unwrap_or_default();
    assert!(model.contains("haiku"), "claude asked for {model}");
}

/// The sessions `session/list` shows for `cwd` (all when `None`) with id `id`.
async fn listed(c: &AcpClient, cwd: Option<&Path>, id: &str) -> Vec<Value> {
    let params = match cwd {
        Some(cwd) => json!({"cwd": cwd}),
        None => json!({}),
    };
    let page = c.request("session/list", params).await.unwrap();
    page["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["sessionId"] == id)
        .cloned()
        .collect()
}

/// A session is listed by the adapter process it is open in, once: from claude's transcript when
/// claude has stored it, and from what the adapter knows when it has not (yet: claude writes it on
/// its own schedule, older versions later than newer ones).
async fn listed_in_its_own_process(version: &str) {
    let mock = mock_for_two_turns();
    let env = ClaudeEnv::for_version(&mock, version);
    let c = adapter(&env);
    c.initialize().await;
    let id = c.new_session(env.work_dir()).await;
    let stop = c.prompt(&id, FIRST_PROMPT).await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    // claude writes the answer after the prompt, later in older versions: forget both.
    crate::support::real_session::wait_until_stored(&env, &id, FIRST_ANSWER).await;
    let stored = listed(&c, Some(&env.work_dir()), &id).await;
    assert_eq!(stored.len(), 1, "stored: listed once: {stored:?}");

    crate::support::real_session::forget_stored_conversation(&env, &id);
    for cwd in [Some(env.work_dir()), None] {
        let sessions = listed(&c, cwd.as_deref(), &id).await;
        assert_eq!(
            sessions.len(),
            1,
            "not stored: listed for {cwd:?}: {sessions:?}"
        );
        assert_eq!(sessions[0]["title"], FIRST_PROMPT, "{sessions:?}");
        assert_eq!(sessions[0]["cwd"], json!(env.work_dir()), "{sessions:?}");
        assert!(sessions[0]["updatedAt"].is_string(), "{sessions:?}");
    }
}
