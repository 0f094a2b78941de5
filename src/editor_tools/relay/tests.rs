use serde_json::json;

use super::*;
use crate::testing::TestEditor;

fn servers() -> EditorMcpServers {
    EditorMcpServers::new(
        Arc::new(TestEditor::default()),
        vec![("tools".into(), "srv-1".into())],
    )
}

fn message(server: &str, message: Value) -> McpMessage {
    McpMessage {
        server_name: server.into(),
        message,
    }
}

#[test]
fn claude_s_handshake_is_asked_as_discovery_and_its_requests_say_who_asks() {
    let servers = servers();
    let init = message(
        "tools",
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "claude-code", "version": "2"}}}),
    );
    let Some(Relay::Editor(call)) = servers.relay(&init) else {
        panic!("initialize goes to the editor")
    };
    assert_eq!(call.request.method, "server/discover");
    assert_eq!(call.request.server_id, "srv-1");
    assert_eq!(call.initialize.as_deref(), Some("2025-11-25"));
    let list = message(
        "tools",
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"cursor": "c"}}),
    );
    let Some(Relay::Editor(call)) = servers.relay(&list) else {
        panic!("tools/list goes to the editor")
    };
    assert_ne!(call.request.request_id, "1", "made unique by claude-acp");
    assert_eq!(
        Value::Object(call.request.params.unwrap()),
        json!({"cursor": "c", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2"}}})
    );
}

#[test]
fn pings_and_notifications_are_answered_here_and_a_cancel_names_its_request() {
    let servers = servers();
    let answered = |m: Value| match servers.relay(&message("tools", m)) {
        Some(Relay::Now(reply)) => reply,
        _ => panic!("answered here"),
    };
    assert_eq!(
        answered(json!({"jsonrpc": "2.0", "id": 7, "method": "ping"})),
        json!({"jsonrpc": "2.0", "id": 7, "result": {}})
    );
    assert_eq!(
        answered(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
        json!({"jsonrpc": "2.0", "result": {}})
    );
    assert_eq!(
        answered(json!({"jsonrpc": "2.0", "id": 8}))["error"]["code"],
        -32600
    );
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 3, "reason": "timeout"}});
    let Some(Relay::Cancel { rpc_id, .. }) = servers.relay(&message("tools", cancel)) else {
        panic!("a cancel")
    };
    assert_eq!(rpc_id, json!(3));
    assert!(
        servers
            .relay(&message("acp", json!({"id": 1, "method": "tools/list"})))
            .is_none()
    );
}

/// What claude is answered for its `message` when the editor answers `answer`, and the
/// notifications passed on to claude before it.
async fn relayed(message: Value, answer: Answer) -> (Value, Vec<Value>) {
    let editor = TestEditor::default().with_mcp_answers(vec![answer]);
    let servers = EditorMcpServers::new(Arc::new(editor), vec![("tools".into(), "srv-1".into())]);
    let Some(Relay::Editor(call)) = servers.relay(&self::message("tools", message)) else {
        panic!("asked of the editor")
    };
    let passed = Mutex::new(Vec::new());
    let reply = call.run(|note| passed.lock().unwrap().push(note)).await;
    (reply, passed.into_inner().unwrap())
}

type Answer = (
    Vec<McpRelayNotification>,
    Result<McpRelayOutcome, crate::domain::EditorError>,
);

#[tokio::test]
async fn the_editor_s_answers_reach_claude_as_its_server_wrote_them() {
    let call =
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "echo"}});
    let progress = McpRelayNotification {
        method: "notifications/progress".into(),
        params: json!({"progressToken": 4, "progress": 1})
            .as_object()
            .cloned(),
    };
    let result = json!({"content": [{"type": "text", "text": "hi"}]});
    let (reply, passed) = relayed(
        call.clone(),
        (vec![progress], Ok(McpRelayOutcome::Result(result.clone()))),
    )
    .await;
    assert_eq!(reply, json!({"jsonrpc": "2.0", "id": 4, "result": result}));
    assert_eq!(
        passed,
        [json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": 4, "progress": 1}})]
    );
    // The server's MCP error, as it wrote it.
    let error = json!({"code": -32001, "message": "refused", "data": null});
    let (reply, _) = relayed(
        call.clone(),
        (vec![], Ok(McpRelayOutcome::Error(error.clone()))),
    )
    .await;
    assert_eq!(reply, json!({"jsonrpc": "2.0", "id": 4, "error": error}));
    // The editor's own failure: an internal error naming the server.
    let rejected =
        crate::domain::EditorError::Rejected("MCP server registration unavailable".into());
    let (reply, _) = relayed(call, (vec![], Err(rejected))).await;
    assert_eq!(reply["error"]["code"], -32603);
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("tools did not answer: the editor answered with an error: MCP server registration unavailable"),
        "{reply}"
    );
}

#[tokio::test]
async fn a_server_without_discovery_is_taken_to_offer_tools() {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}}});
    let not_found = json!({"code": -32601, "message": "Method not found: server/discover"});
    let (reply, _) = relayed(
        init.clone(),
        (vec![], Ok(McpRelayOutcome::Error(not_found))),
    )
    .await;
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}}, "serverInfo": {"name": "tools", "version": "0"}}})
    );
    // Any other error of the server's fails the handshake with it.
    let broken = json!({"code": -32603, "message": "broken"});
    let (reply, _) = relayed(init, (vec![], Ok(McpRelayOutcome::Error(broken.clone())))).await;
    assert_eq!(reply["error"], broken);
}
