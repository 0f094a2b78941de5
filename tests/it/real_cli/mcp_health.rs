//! MCP servers with the real CLI through claude-acp: `/mcp` and `/mcp disable|enable|reconnect
//! NAME` answered from claude's own control requests (no model request), the server's state in
//! each answer, bad input answered in text with the session going on.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;

/// An adapter with one session whose editor MCP server is the echo server (`elicit`: with its
/// `ask` tool); the log of what the server received is `env.home_dir()/echo-mcp.log`.
async fn session_with_echo(
    env: &ClaudeEnv,
    capabilities: Value,
    elicit: bool,
) -> (AcpClient, String) {
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/support/mcp_echo_server.mjs");
    let mut server_env =
        vec![json!({"name": "ECHO_MCP_LOG", "value": env.home_dir().join("echo-mcp.log")})];
    if elicit {
        server_env.push(json!({"name": "ECHO_MCP_ELICIT", "value": "1"}));
    }
    let c = AcpClient::from_command(env.command(env!("CARGO_BIN_EXE_claude-acp")));
    c.set_timeout(Duration::from_secs(60));
    c.initialize_with_capabilities(capabilities).await;
    let opened = c
        .request(
            "session/new",
            json!({"cwd": env.work_dir(), "mcpServers": [{
                "name": "echo", "command": "node", "args": [server], "env": server_env,
            }]}),
        )
        .await
        .unwrap_or_else(|e| panic!("session/new: {e}\n{}", c.diagnostics()));
    (c, opened["sessionId"].as_str().unwrap().to_owned())
}

/// The agent text one prompt adds.
async fn answer(c: &AcpClient, id: &str, prompt: &str) -> String {
    let before = c.agent_text(id).len();
    let stop = c.prompt(id, prompt).await.unwrap();
    assert_eq!(
        stop["stopReason"],
        "end_turn",
        "{prompt}: {}",
        c.diagnostics()
    );
    c.agent_text(id)[before..].to_owned()
}

#[tokio::test]
async fn slash_mcp_disables_and_enables_a_server_without_a_model_request() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Hi."))]);
    let env = ClaudeEnv::new(&mock);
    let (c, id) = session_with_echo(&env, json!({}), false).await;
    // A model turn first: claude has connected its servers by the end of it.
    assert_eq!(answer(&c, &id, "hello").await, "Hi.");
    let requests = mock.requests().len();

    let listed = answer(&c, &id, "/mcp").await;
    assert!(listed.contains("| echo | ✔ connected | 1 |"), "{listed}");

    let disabled = answer(&c, &id, "/mcp disable echo").await;
    assert!(disabled.starts_with("Disabled **echo**."), "{disabled}");
    assert!(disabled.contains("| echo | ○ disabled | – |"), "{disabled}");

    let refused = answer(&c, &id, "/mcp reconnect echo").await;
    assert!(
        refused.starts_with("Could not reconnect **echo**: MCP server echo is disabled"),
        "claude's own reason: {refused}"
    );

    let enabled = answer(&c, &id, "/mcp enable echo").await;
    assert!(enabled.starts_with("Enabled **echo**."), "{enabled}");
    assert!(enabled.contains("| echo | ✔ connected | 1 |"), "{enabled}");

    let reconnected = answer(&c, &id, "/mcp reconnect echo").await;
    assert!(
        reconnected.starts_with("Reconnected **echo**."),
        "{reconnected}"
    );

    let unknown = answer(&c, &id, "/mcp disable nope").await;
    assert!(
        unknown.starts_with("Could not disable **nope**: Server not found: nope"),
        "{unknown}"
    );
    let nameless = answer(&c, &id, "/mcp enable").await;
    assert!(
        nameless.starts_with("`/mcp enable` needs the name of a server"),
        "{nameless}"
    );
    assert!(
        nameless.contains("| echo | ✔ connected | 1 |"),
        "{nameless}"
    );

    assert_eq!(mock.requests().len(), requests, "/mcp asks no model");
    assert_eq!(
        answer(&c, &id, "hello again").await,
        "Hi.",
        "the session goes on"
    );
}

/// The mock model calls the echo server's `ask` tool, whose server asks the user for a name
/// (MCP `elicitation/create`): claude passes it on, the editor fills in the form, and the answer
/// reaches the server, which returns it to the model.
#[tokio::test]
async fn an_mcp_server_s_form_is_answered_through_the_editor_and_reaches_the_server() {
    let mock = MockApi::start(vec![
        Rule::on_prompt(
            "ask my name",
            Reply::tool_use("mcp__echo__ask", json!({"mode": "form"})),
        )
        .once(),
        Rule::on_tool_result_containing("answer:", Reply::text("Thanks, Ada.")),
        Rule::always(Reply::text("unexpected request")),
    ]);
    let env = ClaudeEnv::new(&mock);
    let (c, id) = session_with_echo(
        &env,
        json!({"elicitation": {"form": {}}, "fs": {"readTextFile": false, "writeTextFile": false}}),
        true,
    )
    .await;
    c.allow_permissions();
    c.on_request("elicitation/create", |params| {
        assert_eq!(params["mode"], "form", "{params}");
        assert_eq!(
            params["requestedSchema"]["properties"]["name"]["type"],
            "string"
        );
        Ok(json!({"action": "accept", "content": {"name": "Ada"}}))
    });
    let stop = c.prompt(&id, "Please ask my name.").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());

    let asked: Vec<Value> = c
        .requests()
        .iter()
        .filter(|r| r.method == "elicitation/create")
        .map(|r| r.params.clone())
        .collect();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(
        asked[0]["message"],
        "MCP server echo asks: What is your name?"
    );
    let heard = std::fs::read_to_string(env.home_dir().join("echo-mcp.log")).unwrap_or_default();
    assert!(
        heard
            .lines()
            .any(|l| l == r#"elicitation-result {"action":"accept","content":{"name":"Ada"}}"#),
        "the server got the editor's answer: {heard}"
    );
    let result = mock.last_tool_result_text().unwrap_or_default();
    assert!(
        result.contains(r#""name":"Ada""#),
        "and the model its result: {result}"
    );
    assert_eq!(c.agent_text(&id), "Thanks, Ada.");
}
