//! MCP over ACP on the real claude: an editor built on the official TypeScript ACP library hosts
//! an MCP server itself (`tests/ts-client/mcp_over_acp.mjs`: an `mcpServers` entry of type
//! `acp`, served by the library's `McpOverAcpProvider`), and claude-acp serves it to claude over
//! claude's control channel, each message relayed as `mcp/message`: the model is offered its
//! tools, a call's result reaches the model, the server's MCP error reaches it as an error, and
//! the server's notification that its tools changed makes claude list them again; a call still
//! running when the turn is cancelled is withdrawn from the editor's server.

use std::time::Duration;

use serde_json::{Value, json};

use crate::clients::ts_client::{ensure_client_library, repo_path};
use crate::support::acp_client::adapter;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;

#[tokio::test]
async fn an_mcp_server_the_editor_hosts_serves_claude_its_tools_results_and_errors() {
    let mock = MockApi::start(Vec::new());
    let call =
        |tool: &str, input: Value| Reply::tool_use(format!("mcp__project-tools__{tool}"), input);
    mock.push_rule(Rule::on_prompt(
        "echo",
        call("echo", json!({"message": "hi"})),
    ));
    mock.push_rule(Rule::on_tool_result_containing("echo: hi", Reply::text("Echoed.")).once());
    mock.push_rule(Rule::on_prompt("fail", call("fail", json!({}))));
    mock.push_rule(Rule::on_tool_result_containing("refused", Reply::text("It failed.")).once());
    mock.push_rule(Rule::on_prompt("which tools", Reply::text("These.")));
    mock.push_rule(Rule::on_prompt("slow", call("slow", json!({}))));
    let env = ClaudeEnv::new(&mock);
    let client_dir = repo_path("tests/ts-client");
    ensure_client_library(&client_dir).await;
    let mut node = env.command("node");
    node.arg("mcp_over_acp.mjs")
        .arg(adapter())
        .current_dir(&client_dir)
        .env("ACP_SESSION_CWD", env.work_dir())
        .env("ACP_PROMPTS", "echo hi|fail now|which tools now|go slow");
    let output = tokio::time::timeout(Duration::from_secs(180), node.output())
        .await
        .expect("the client ends within 180 s")
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let shown = format!("{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{shown}");
    let seen: Value = stdout
        .split_once("mcp-over-acp: ok ")
        .and_then(|(_, json)| serde_json::from_str(json.trim()).ok())
        .unwrap_or_else(|| panic!("no ok line\n{shown}"));
    assert_eq!(
        seen["stops"],
        json!(["end_turn", "end_turn", "end_turn", "cancelled"]),
        "{shown}"
    );

    // The editor's server: claude's handshake as its discovery, the list, the calls, the list
    // again once it said the list changed, and the cancelled turn's call withdrawn.
    let served: Vec<&str> = seen["served"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(served.first(), Some(&"server/discover"), "{served:?}");
    for asked in ["tools/call echo", "tools/call fail", "tools/call slow"] {
        assert!(served.contains(&asked), "{served:?}");
    }
    assert!(
        served.iter().filter(|m| **m == "tools/list").count() >= 2,
        "claude listed the tools again after the server said they changed: {served:?}"
    );

    // The model: offered the server's tools, given the call's result and the server's error, and
    // offered the tool the changed list added.
    let requests = mock.requests();
    let first = requests[0].tool_names();
    for tool in ["mcp__project-tools__echo", "mcp__project-tools__fail"] {
        assert!(
            first.iter().any(|t| t == tool),
            "{tool} not offered: {first:?}"
        );
    }
    let results: Vec<_> = requests.iter().flat_map(|r| r.tool_results()).collect();
    let echoed = results.iter().find(|r| r.text.contains("echo: hi"));
    assert!(echoed.is_some_and(|r| !r.is_error), "{results:?}");
    let refused = results.iter().find(|r| {
        r.text
            .contains("the editor's server refused: fail always fails")
    });
    assert!(refused.is_some_and(|r| r.is_error), "{results:?}");
    let at = |what: &str| served.iter().position(|s| *s == what);
    assert!(
        at("slow withdrawn").is_some() && at("slow withdrawn") < at("turn cancelled"),
        "the call of the cancelled turn was withdrawn as the turn ended: {served:?}"
    );
    let last = requests.last().unwrap().tool_names();
    assert!(
        last.iter().any(|t| t == "mcp__project-tools__later"),
        "the changed list's tool not offered: {last:?}"
    );
}
