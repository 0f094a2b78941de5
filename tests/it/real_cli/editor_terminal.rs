//! Bash in the editor's terminal (issue 12) with the real claude: the mock model calls the tools
//! by the names claude offers it (`mcp__acp__Bash`, `mcp__acp__TaskStop`), claude reaches
//! claude-acp's server over its control channel, and the commands run in the scripted editor's
//! terminals. Run on both permission transports.

use serde_json::json;

use super::editor_tools::{
    adapter_on_mock, asks, assert_builtins_offered_as_ours, assert_rule_saved, turn,
};
use crate::support::acp_client::choose_permission;
use crate::support::editor_terminals::{Terminals, terminal_capabilities};
use crate::support::mock_api::{Reply, Rule};

const CAPTURED: &str = include_str!("../../../fixtures/editor_terminal/builtin_tools.json");

async fn bash_in_the_editor(args: &[&str]) {
    let (mock, env, c) = adapter_on_mock(args);
    let terminals = Terminals::default();
    terminals.script(
        "make lint",
        "checking\r\n\u{1b}[31mlint: 2 problems\u{1b}[0m\r\n",
        3,
    );
    terminals.serve(&c);
    c.on_request(
        "session/request_permission",
        choose_permission("allow_always"),
    );
    c.initialize_with_capabilities(terminal_capabilities())
        .await;
    let id = c.new_session(env.work_dir()).await;

    // 1. A failing command: claude gets claude's own format, the card embeds the terminal.
    let bash = Reply::tool_use(
        "mcp__acp__Bash",
        json!({"command": "make lint", "description": "Lint"}),
    );
    mock.push_rule(Rule::on_prompt("lint", bash));
    mock.push_rule(
        Rule::on_tool_result_containing("Exit code", Reply::text("Two problems.")).once(),
    );
    turn(&c, &id, "lint please").await;
    let result = mock.requests()[1].tool_results();
    assert_eq!(
        result[0].text, "Exit code 3\nchecking\nlint: 2 problems",
        "{result:?}"
    );
    assert!(result[0].is_error);
    let work = env.work_dir().display().to_string();
    assert_eq!(terminals.created(), [("make lint".to_owned(), work)]);
    assert_eq!(terminals.released(), ["term-1"]);
    let card = c
        .updates(&id)
        .into_iter()
        .filter(|u| u["sessionUpdate"] == "tool_call_update")
        .find(|u| u["content"][0]["type"] == "terminal")
        .expect("a card embedding the terminal");
    assert_eq!(card["content"][0]["terminalId"], "term-1");
    // Once claude reports the result, the card is failed and still shows the terminal.
    let call_id = card["toolCallId"].as_str().unwrap();
    let state = c.tool_call_state(&id, call_id).unwrap();
    assert_eq!(state["status"], "failed", "{state}");
    assert_eq!(state["kind"], "execute", "{state}");
    assert_eq!(
        state["content"],
        json!([{"type": "terminal", "terminalId": "term-1"}])
    );
    let asks = asks(&c);
    assert_eq!(asks.len(), 1, "{asks:#?}");
    assert_eq!(asks[0]["toolCall"]["title"], "Run `make lint`");
    // "Always allow" saved claude's own rule for its Bash, which holds for ours too: the same
    // command again is not asked.
    assert_rule_saved(&env, "Bash(make lint)").await;
    let again = Reply::tool_use(
        "mcp__acp__Bash",
        json!({"command": "make lint", "description": "Lint again"}),
    );
    mock.push_rule(Rule::on_prompt("again", again));
    mock.push_rule(Rule::on_tool_result_containing("Exit code", Reply::text("Same.")).once());
    turn(&c, &id, "lint again").await;
    assert_eq!(terminals.created().len(), 2);
    let asked = c
        .requests()
        .iter()
        .filter(|r| r.method == "session/request_permission")
        .count();
    assert_eq!(asked, 1, "the saved rule allows it");

    // The model sees the built-ins' schemas and descriptions under our names; claude's own are gone.
    assert_builtins_offered_as_ours(&mock, CAPTURED);

    // 3. A background command, then a TaskStop of an id that is not ours: claude is asked (it
    // answers `stop_task` alike for any id).
    let background = Reply::tool_use(
        "mcp__acp__Bash",
        json!({"command": "npm run dev", "description": "Serve", "run_in_background": true}),
    );
    mock.push_rule(Rule::on_prompt("serve", background));
    let stop = Reply::tool_use("mcp__acp__TaskStop", json!({"task_id": "bnotatask"}));
    mock.push_rule(Rule::on_tool_result_containing("running in background", stop).once());
    mock.push_rule(Rule::on_tool_result_containing("bnotatask", Reply::text("Ok.")).once());
    turn(&c, &id, "serve it").await;
    let texts: Vec<String> = mock
        .requests()
        .iter()
        .flat_map(|r| r.tool_results())
        .map(|r| r.text)
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("Command running in background with ID: b")),
        "{texts:#?}"
    );
    let stopped = mock.last_tool_result_text().unwrap();
    assert!(
        stopped.contains("Asked Claude Code to stop task bnotatask"),
        "{stopped}"
    );
    // The background command's card runs on past the turn, then completes when it ends.
    let serve = c
        .tool_calls(&id)
        .into_iter()
        .find(|call| call["rawInput"]["command"] == "npm run dev")
        .expect("the background command's card");
    let serve = serve["toolCallId"].as_str().unwrap().to_owned();
    let card = c.tool_call_state(&id, &serve).unwrap();
    assert_eq!(card["status"], "in_progress", "{card}");
    let job = card["_meta"]["claudeCode"]["asyncTaskId"].as_str();
    assert!(job.is_some_and(|j| j.starts_with('b')), "{card}");
    terminals.script("npm run dev", "ready\n", 0);
    c.wait_for_update(
        |u| u["update"]["toolCallId"] == serve.as_str() && u["update"]["status"] == "completed",
        std::time::Duration::from_secs(20),
    )
    .await;
    let card = c.tool_call_state(&id, &serve).unwrap();
    assert_eq!(card["content"][0]["type"], "terminal", "{card}");
}

#[tokio::test]
async fn bash_runs_in_the_editors_terminal_over_stdio_permissions() {
    bash_in_the_editor(&["--permission-transport", "stdio"]).await;
}

#[tokio::test]
async fn bash_runs_in_the_editors_terminal_over_the_mcp_permission_tool() {
    bash_in_the_editor(&["--permission-transport", "mcp"]).await;
}
