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
