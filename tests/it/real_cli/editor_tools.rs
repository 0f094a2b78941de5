//! What the real-CLI tests of the tools claude-acp serves in the editor's place (`editor_edits`,
//! `editor_terminal`) share: the adapter on the mock API, a turn that must end well, the
//! permission asks, and the check that the model sees claude's built-ins under our names.

use serde_json::Value;

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::MockApi;
use crate::support::real_cli::{ClaudeEnv, pinned_version};
use crate::support::real_editor::STEP;

/// The built adapter with `args`, on the pinned claude against a fresh mock API.
pub(super) fn adapter_on_mock(args: &[&str]) -> (MockApi, ClaudeEnv, AcpClient) {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::for_version(&mock, pinned_version());
    let mut command = env.command(crate::support::adapter());
    command.args(args);
    let c = AcpClient::from_command(command);
    c.set_timeout(STEP);
    (mock, env, c)
}

pub(super) async fn turn(c: &AcpClient, id: &str, text: &str) {
    let stop = c
        .prompt(id, text)
        .await
        .unwrap_or_else(|e| panic!("prompt {text:?}: {e}\n{}", c.diagnostics()));
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
}

/// The permission asks the editor got, in order.
pub(super) fn asks(c: &AcpClient) -> Vec<Value> {
    c.requests()
        .into_iter()
        .filter(|r| r.method == "session/request_permission")
        .map(|r| r.params)
        .collect()
}

/// "Always allow" saved claude's `rule` in the project's `.claude/settings.local.json`: claude
/// writes it there on its own time, not before the turn ends, so this waits up to 20 s for it.
pub(super) async fn assert_rule_saved(env: &ClaudeEnv, rule: &str) {
    let settings = env.work_dir().join(".claude/settings.local.json");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let saved = std::fs::read_to_string(&settings).unwrap_or_default();
        if saved.contains(rule) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "claude saved no {rule} in {}: {saved:?}",
            settings.display()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// The model's first request offers each built-in of `captured` (claude's own tool list) only
/// under our name, with its schema and description in full, never deferred.
pub(super) fn assert_builtins_offered_as_ours(mock: &MockApi, captured: &str) {
    let tools = mock.requests()[0].body["tools"].clone();
    let tools = tools.as_array().unwrap();
    let captured: Value = serde_json::from_str(captured).unwrap();
    for builtin in captured["tools"].as_array().unwrap() {
        let name = builtin["name"].as_str().unwrap();
        assert!(
            !tools.iter().any(|t| t["name"] == name),
            "built-in {name} still offered"
        );
        let ours = tools
            .iter()
            .find(|t| t["name"] == format!("mcp__acp__{name}"))
            .unwrap_or_else(|| panic!("mcp__acp__{name} not sent in full: {tools:?}"));
        // claude 2.1.332 writes an MCP tool's "…" as "...": the one difference it makes.
        let description = builtin["description"].as_str().unwrap().replace('…', "...");
        assert_eq!(ours["description"], description, "{name}");
        assert_eq!(
            ours["input_schema"]["properties"], builtin["input_schema"]["properties"],
            "{name}"
        );
    }
}
