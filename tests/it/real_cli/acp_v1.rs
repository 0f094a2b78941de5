//! The ACP v1 additions with the real claude CLI behind the built adapter: deleting an open and a
//! stored session, reads in an additional directory not asked (and outside both roots asked),
//! logout followed by auth_required, a title after the first turn with no request of ours at the
//! API, and `/compact` shown to the editor with the context figure dropping.

use crate::on_each_claude;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::acp_client::AcpClient;
#[cfg(target_os = "linux")]
use crate::support::liveness;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
#[cfg(target_os = "linux")]
use crate::support::real_session::claude_pid;
use crate::support::real_session::wait_until_stored;
use serde_json::{Value, json};

on_each_claude! {
    deleting_an_open_session_ends_its_claude_and_it_is_gone => delete_an_open_session;
}

fn adapter(env: &ClaudeEnv) -> AcpClient {
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(Duration::from_secs(60));
    c
}

async fn listed_ids(c: &AcpClient, cwd: &Path) -> Vec<String> {
    let page = c
        .request("session/list", json!({"cwd": cwd}))
        .await
        .unwrap();
    page["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["sessionId"].as_str().map(str::to_owned))
        .collect()
}

async fn assert_not_loadable(c: &AcpClient, env: &ClaudeEnv, id: &str) {
    let err = c
        .request(
            "session/load",
            json!({"sessionId": id, "cwd": env.work_dir(), "mcpServers": []}),
        )
        .await
        .expect_err("a deleted session cannot be loaded");
    assert_eq!(err.code, -32602, "{}", err.message);
    assert!(
        err.message.contains("no stored claude session"),
        "{}",
        err.message
    );
}

/// Every stored conversation file of `id` under `<HOME>/.claude/projects`.
fn stored_files(env: &ClaudeEnv, id: &str) -> Vec<PathBuf> {
    std::fs::read_dir(env.home_dir().join(".claude/projects"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|project| project.path().join(format!("{id}.jsonl")))
        .filter(|file| file.exists())
        .collect()
}

async fn delete_an_open_session(version: &str) {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Hi."))]);
    let env = ClaudeEnv::for_version(&mock, version);
    let c = adapter(&env);
    c.initialize().await;
    let id = c.new_session(env.work_dir()).await;
    c.prompt(&id, "hello").await.unwrap();
    wait_until_stored(&env, &id, "Hi.").await;
    // claude's process is found in /proc: that it ends is checked on Linux.
    #[cfg(target_os = "linux")]
    let pid = claude_pid(c.pid()).expect("claude runs for the session");
    assert!(listed_ids(&c, &env.work_dir()).await.contains(&id));

    c.request("session/delete", json!({"sessionId": id}))
        .await
        .unwrap_or_else(|e| panic!("session/delete: {e}\n{}", c.diagnostics()));

    #[cfg(target_os = "linux")]
    assert!(
        liveness::wait_until_gone(&[pid], Duration::from_secs(10)).await,
        "the session's claude still runs"
    );
    assert!(
        stored_files(&env, &id).is_empty(),
        "claude's transcript is left"
    );
    assert!(!listed_ids(&c, &env.work_dir()).await.contains(&id));
    assert_not_loadable(&c, &env, &id).await;
}

#[tokio::test]
async fn deleting_a_stored_session_in_a_new_adapter_process_removes_it() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Hi."))]);
    let env = ClaudeEnv::new(&mock);
    let first = adapter(&env);
    first.initialize().await;
    let id = first.new_session(env.work_dir()).await;
    first.prompt(&id, "hello").await.unwrap();
    wait_until_stored(&env, &id, "Hi.").await;
    first.close_stdin().await;
    assert!(first.wait_exit(Duration::from_secs(20)).await.is_some());
    let keep = {
        let second = adapter(&env);
        second.initialize().await;
        let keep = second.new_session(env.work_dir()).await;
        second.prompt(&keep, "keep me").await.unwrap();
        wait_until_stored(&env, &keep, "Hi.").await;
        second.close_stdin().await;
        assert!(second.wait_exit(Duration::from_secs(20)).await.is_some());
        keep
    };

    let c = adapter(&env);
    c.initialize().await;
    assert!(listed_ids(&c, &env.work_dir()).await.contains(&id));
    c.request("session/delete", json!({"sessionId": id}))
        .await
        .unwrap_or_else(|e| panic!("session/delete: {e}\n{}", c.diagnostics()));

    assert!(
        stored_files(&env, &id).is_empty(),
        "claude's transcript is left"
    );
    assert_eq!(
        stored_files(&env, &keep).len(),
        1,
        "the other one is gone too"
    );
    assert_eq!(listed_ids(&c, &env.work_dir()).await, vec![keep]);
    assert_not_loadable(&c, &env, &id).await;
}

/// A session in the work dir with `extra` as an additional directory; claude reads `file` (the
/// editor allows anything it is asked). Returns the permission asks and the tool result.
async fn read_with_additional_directory(file: &Path, extra: &Path) -> (Vec<Value>, String) {
    let mock = MockApi::start(vec![
        Rule::on_prompt(
            "read the notes",
            Reply::tool_use("Read", json!({"file_path": file})),
        )
        .once(),
        Rule::on_tool_result(Reply::text("Read it.")),
        Rule::always(Reply::text("unexpected request")),
    ]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    c.initialize().await;
    c.allow_permissions();
    let opened = c
        .request(
            "session/new",
            json!({"cwd": env.work_dir(), "mcpServers": [], "additionalDirectories": [extra]}),
        )
        .await
        .unwrap_or_else(|e| panic!("session/new: {e}\n{}", c.diagnostics()));
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    let stop = c.prompt(&id, "Please read the notes.").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    let asks = c
        .requests()
        .iter()
        .filter(|r| r.method == "session/request_permission")
        .map(|r| r.params.clone())
        .collect();
    (asks, mock.last_tool_result_text().unwrap_or_default())
}

fn roots() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let extra = dir.path().join("extra");
    let outside = dir.path().join("outside");
    for (sub, text) in [(&extra, "extra notes: 42"), (&outside, "outside notes: 7")] {
        std::fs::create_dir(sub).unwrap();
        std::fs::write(sub.join("notes.txt"), text).unwrap();
    }
    (dir, extra, outside)
}

#[tokio::test]
async fn a_read_inside_an_additional_directory_is_not_asked() {
    let (_dir, extra, _) = roots();
    let (asks, result) = read_with_additional_directory(&extra.join("notes.txt"), &extra).await;
    assert!(asks.is_empty(), "asked: {asks:#?}");
    assert!(result.contains("extra notes: 42"), "{result:?}");
}

#[tokio::test]
async fn a_read_outside_both_roots_is_asked() {
    let (_dir, extra, outside) = roots();
    let (asks, result) = read_with_additional_directory(&outside.join("notes.txt"), &extra).await;
    assert_eq!(asks.len(), 1, "asked once: {asks:#?}");
    assert!(result.contains("outside notes: 7"), "allowed: {result:?}");
}

#[tokio::test]
async fn logout_then_the_next_prompt_is_auth_required() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Hi."))]);
    let env = ClaudeEnv::new(&mock);
    // Signed in the way `claude auth logout` undoes: a key in claude's own config, none in the env.
    let config = env.home_dir().join(".claude.json");
    std::fs::write(
        &config,
        json!({"primaryApiKey": "sk-ant-test-key"}).to_string(),
    )
    .unwrap();
    let mut command = env.command(crate::support::adapter());
    command.env_remove("ANTHROPIC_API_KEY");
    let c = AcpClient::from_command(command);
    c.set_timeout(Duration::from_secs(60));
    let init = c.initialize().await;
    assert_eq!(init["agentCapabilities"]["auth"]["logout"], json!({}));
    let id = c.new_session(env.work_dir()).await;
    let first = c.prompt(&id, "hello").await.unwrap();
    assert_eq!(first["stopReason"], "end_turn", "{}", c.diagnostics());
    assert_eq!(c.agent_text(&id), "Hi.", "signed in: {}", c.diagnostics());
    let requests = mock.requests().len();

    c.request("logout", json!({}))
        .await
        .unwrap_or_else(|e| panic!("logout: {e}\n{}", c.diagnostics()));

    let stored = std::fs::read_to_string(&config).unwrap_or_default();
    assert!(
        !stored.contains("sk-ant-test-key"),
        "still stored: {stored}"
    );
    let err = c.prompt(&id, "still there?").await.expect_err("logged out");
    assert_eq!(err.code, -32000, "{}\n{}", err.message, c.diagnostics());
    assert_eq!(mock.requests().len(), requests, "nothing reached the API");
}

#[tokio::test]
async fn the_first_turn_titles_the_session_without_a_request_of_ours() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("On it."))]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    c.initialize().await;
    let id = c.new_session(env.work_dir()).await;
    let stop = c
        .prompt(&id, "Fix the login bug\nIt fails on empty passwords.")
        .await
        .unwrap();
    assert_eq!(stop["stopReason"], "end_turn");

    let infos = c.updates_of_kind(&id, "session_info_update");
    assert_eq!(infos.len(), 1, "{infos:#?}");
    assert_eq!(infos[0]["title"], "Fix the login bug", "{infos:#?}");
    assert!(infos[0]["updatedAt"].is_string(), "{infos:#?}");
    let requests = mock.requests();
    assert_eq!(
        requests.len(),
        1,
        "only claude's turn reached the API: {:#?}",
        requests.iter().map(|r| r.prompt_text()).collect::<Vec<_>>()
    );
}

fn context_used(c: &AcpClient, id: &str) -> Vec<u64> {
    c.updates_of_kind(id, "usage_update")
        .iter()
        .filter_map(|u| u["used"].as_u64())
        .collect()
}

/// A long first turn, then `/compact`, for an editor that declared `session.compaction` or not.
async fn compact(declared: bool) -> (MockApi, ClaudeEnv, AcpClient, String) {
    let mock = MockApi::start(vec![Rule::always(Reply::text(
        "Summary: the user talked about pineapples at length.",
    ))]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    let mut capabilities = json!({"fs": {"readTextFile": false, "writeTextFile": false}});
    if declared {
        capabilities["session"] = json!({"compaction": {}});
    }
    c.request(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": capabilities}),
    )
    .await
    .unwrap();
    let id = c.new_session(env.work_dir()).await;
    let long = "Tell me about pineapples. ".repeat(400);
    c.prompt(&id, &long).await.unwrap();
    let stop = c.prompt(&id, "/compact").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    (mock, env, c, id)
}

/// The context claude stored as before and after its compaction (its `compact_boundary`).
fn stored_compaction(env: &ClaudeEnv, id: &str) -> (u64, u64) {
    let boundary: Value = stored_files(env, id)
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            text.lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .collect::<Vec<_>>()
        })
        .find(|l| l["subtype"] == "compact_boundary")
        .expect("claude stored its compact_boundary");
    let figure = |key: &str| boundary["compactMetadata"][key].as_u64().unwrap();
    (figure("preTokens"), figure("postTokens"))
}

/// The usage updates show the context before `/compact`, then what claude says is left after it.
fn assert_context_dropped(env: &ClaudeEnv, c: &AcpClient, id: &str) {
    let (before, after) = stored_compaction(env, id);
    assert!(after < before, "claude compacted {before} -> {after}");
    assert_eq!(
        context_used(c, id),
        vec![before, after],
        "{}",
        c.diagnostics()
    );
}

#[tokio::test]
async fn compact_is_shown_as_compaction_updates_and_the_context_drops() {
    let (_mock, env, c, id) = compact(true).await;
    let statuses: Vec<Value> = c
        .updates_of_kind(&id, "compaction_update")
        .iter()
        .map(|u| u["status"].clone())
        .collect();
    assert_eq!(
        statuses,
        vec![json!("in_progress"), json!("completed")],
        "{}",
        c.diagnostics()
    );
    assert_context_dropped(&env, &c, &id);
}

#[tokio::test]
async fn compact_is_a_short_message_for_other_editors() {
    let (_mock, env, c, id) = compact(false).await;
    assert!(c.updates_of_kind(&id, "compaction_update").is_empty());
    let text = c.agent_text(&id);
    assert!(text.contains("Conversation compacted."), "{text:?}");
    assert_context_dropped(&env, &c, &id);
}
