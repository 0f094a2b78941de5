//! MCP over ACP with the stand-in playing claude (`fixtures/standin/mcp_over_acp.jsonl`): an MCP
//! server the editor hosts (`mcpServers` of type `acp`) is one of claude's SDK servers, and each
//! message claude sends it is the editor's `mcp/message` request (checked against schema 1.20's
//! `MessageMcpRequest`): claude's handshake answered from `server/discover`, the list, a call
//! whose progress notification reaches claude before its answer, an MCP error and an ACP error
//! passed back as errors; a call still waiting when the session closes is withdrawn. An `acp`
//! server the session cannot serve under its name is refused, and the connection goes on.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::standin::Standin;
use crate::support::v2_schema::violations_1_20_v1;

const SERVER: &str = "srv-project-tools";

fn server(name: &str) -> Value {
    json!({"type": "acp", "name": name, "serverId": SERVER})
}

/// Plays the editor's server for the first turn: answers each `mcp/message` as the script's
/// claude expects; returns every request's params.
async fn serve(c: &AcpClient) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let request = c.next_request("mcp/message").await;
        let params = request.params.clone();
        seen.push(params.clone());
        let (id, request_id) = (&request.id, &params["requestId"]);
        match (params["method"].as_str(), params["params"]["name"].as_str()) {
            (Some("server/discover"), _) => {
                let discovered = json!({"supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {"listChanged": true}}, "instructions": "Echo things.",
                    "serverInfo": {"name": "project-tools", "version": "1.0.0"}});
                c.respond(id, json!({"result": discovered})).await;
            }
            (Some("tools/list"), _) => {
                let tools = json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]});
                c.respond(id, json!({"result": tools})).await;
            }
            (Some("tools/call"), Some("echo")) => {
                let progress = json!({"serverId": SERVER, "requestId": request_id,
                    "method": "notifications/progress",
                    "params": {"progressToken": 2, "progress": 1, "total": 1}});
                c.notify("mcp/message", progress).await;
                let echoed =
                    json!({"content": [{"type": "text", "text": "echo: hi"}], "isError": false});
                c.respond(id, json!({"result": echoed})).await;
            }
            (Some("tools/call"), Some("fail")) => {
                let error =
                    json!({"code": -32001, "message": "refused", "data": {"why": "always"}});
                c.respond(id, json!({"error": error})).await;
            }
            (Some("tools/call"), Some("gone")) => {
                c.respond_error(id, -33001, "MCP server registration unavailable")
                    .await;
                return seen;
            }
            other => panic!("the script sends no {other:?}"),
        }
    }
}

#[tokio::test]
async fn an_mcp_server_the_editor_hosts_is_relayed_both_ways_and_nothing_waits_after_close() {
    let s = Standin::new("mcp_over_acp");
    let c = s.adapter(&[]);
    c.set_timeout(Duration::from_secs(20));
    let init = c.initialize().await;
    assert_eq!(
        init["agentCapabilities"]["mcpCapabilities"]["acp"], true,
        "{init}"
    );
    let broken = violations_1_20_v1("InitializeResponse", &init);
    assert!(broken.is_empty(), "{broken:?}");
    c.hold_requests("mcp/message");
    let opened = c
        .request(
            "session/new",
            json!({"cwd": s.work, "mcpServers": [server("project-tools")]}),
        )
        .await
        .unwrap_or_else(|e| panic!("session/new: {e:?}\n{}", c.diagnostics()));
    let id = opened["sessionId"].as_str().unwrap().to_owned();

    let turn = c.prompt(&id, "use the tools");
    tokio::pin!(turn);
    let seen = tokio::select! {
        seen = serve(&c) => seen,
        ended = &mut turn => {
            // claude (the script) saw something it did not expect, and ended the turn early.
            assert!(s.problems().is_empty(), "{:?}", s.problems());
            panic!("the turn ended before the server was asked everything: {ended:?}")
        }
    };
    let stop = turn
        .await
        .unwrap_or_else(|e| panic!("prompt: {e:?}\n{}", c.diagnostics()));
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    let methods: Vec<&str> = seen.iter().filter_map(|p| p["method"].as_str()).collect();
    assert_eq!(
        methods,
        [
            "server/discover",
            "tools/list",
            "tools/call",
            "tools/call",
            "tools/call"
        ]
    );
    for params in &seen {
        assert_eq!(params["serverId"], SERVER, "{params}");
        assert_eq!(
            params["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28",
            "{params}"
        );
        let broken = violations_1_20_v1("MessageMcpRequest", params);
        assert!(broken.is_empty(), "{params}: {broken:?}");
    }
    assert_eq!(
        seen[0]["params"]["_meta"]["io.modelcontextprotocol/clientInfo"],
        json!({"name": "claude-code", "version": "2.1.337"}),
        "claude's own info, from its handshake"
    );
    let ids: std::collections::HashSet<&str> = seen
        .iter()
        .filter_map(|p| p["requestId"].as_str())
        .collect();
    assert_eq!(ids.len(), seen.len(), "each request its own id");

    // The last call waits on the editor; the session closes: its request is withdrawn, and the
    // prompt and the close are answered.
    let (prompt, (slow, close)) = tokio::join!(c.prompt(&id, "wait on it"), async {
        let slow = c.next_request("mcp/message").await;
        assert_eq!(slow.params["params"]["name"], "slow", "{:?}", slow.params);
        (
            slow.id,
            c.request("session/close", json!({"sessionId": id})).await,
        )
    });
    assert!(close.is_ok(), "{close:?}\n{}", c.diagnostics());
    assert!(prompt.is_ok(), "{prompt:?}\n{}", c.diagnostics());
    let withdrawn = c
        .notifications()
        .into_iter()
        .any(|n| n["method"] == "$/cancel_request" && n["params"]["requestId"] == slow);
    assert!(
        withdrawn,
        "the waiting mcp/message was withdrawn\n{}",
        c.diagnostics()
    );
    assert!(s.problems().is_empty(), "{:?}", s.problems());
}

#[tokio::test]
async fn an_acp_server_claude_acp_cannot_serve_under_its_name_is_refused() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;
    for (servers, says) in [
        (json!([server("acp")]), "claude-acp's own"),
        (
            json!([server("tools"), {"type": "http", "name": "tools", "url": "https://x.example", "headers": []}]),
            "two MCP servers are named \"tools\"",
        ),
        (
            json!([{"type": "acp", "name": "", "serverId": "x"}]),
            "needs a name",
        ),
    ] {
        let refused = c
            .request("session/new", json!({"cwd": s.work, "mcpServers": servers}))
            .await
            .expect_err("refused");
        assert_eq!(refused.code, -32602, "{refused:?}");
        assert!(refused.message.contains(says), "{refused:?}");
    }
    // The connection goes on.
    let id = c.new_session(&s.work).await;
    assert_eq!(c.prompt(&id, "hi").await.unwrap()["stopReason"], "end_turn");
}

/// An ACP v2 editor: claude-acp advertises `session.mcp.acp`, and the editor's server is relayed
/// as for v1 (the same `mcp/message`).
#[tokio::test]
async fn a_v2_editor_is_offered_acp_servers_and_its_server_is_relayed() {
    let s = Standin::new("mcp_over_acp");
    let c = s.adapter(&[]);
    c.set_timeout(Duration::from_secs(20));
    let init = c
        .request("initialize", super::acp_v2::v2_initialize())
        .await
        .unwrap();
    assert_eq!(
        init["capabilities"]["session"]["mcp"]["acp"],
        json!({}),
        "{init}"
    );
    let schema = crate::support::v2_schema::schema_1_20_v2("InitializeResponse");
    let broken = crate::support::json_schema::violations(&schema, &init);
    assert!(broken.is_empty(), "{broken:?}");
    c.hold_requests("mcp/message");
    let opened = c
        .request(
            "session/new",
            json!({"cwd": s.work, "mcpServers": [server("project-tools")]}),
        )
        .await
        .unwrap_or_else(|e| panic!("session/new: {e:?}\n{}", c.diagnostics()));
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    let prompt = json!({"sessionId": id, "prompt": [{"type": "text", "text": "use the tools"}]});
    let (answer, seen) = tokio::join!(c.request("session/prompt", prompt), serve(&c));
    assert!(answer.is_ok(), "{answer:?}\n{}", c.diagnostics());
    let methods: Vec<&str> = seen.iter().filter_map(|p| p["method"].as_str()).collect();
    assert_eq!(
        methods,
        [
            "server/discover",
            "tools/list",
            "tools/call",
            "tools/call",
            "tools/call"
        ]
    );
    for params in &seen {
        let broken = crate::support::v2_schema::violations_1_20_v1("MessageMcpRequest", params);
        assert!(broken.is_empty(), "{params}: {broken:?}");
    }
}
