//! Every method the adapter lists as handled (`HANDLED_METHODS` in src/acp/v1/server.rs, which the
//! conformance unit test checks against the schema) is really handled by the built binary: each
//! request, sent with minimal valid params, is answered with anything but "method not found"
//! (-32601); the notification `session/cancel` ends a running turn as cancelled (`mcp/message`'s,
//! an editor's MCP server's notification, is `mcp_over_acp`'s).

use std::time::Duration;

use crate::support::standin::Standin;
use serde_json::{Value, json};

/// The methods `src/acp/v1/server.rs` lists in `HANDLED_METHODS`, read from its source so that the
/// test follows the list.
fn handled_methods() -> Vec<String> {
    let source = include_str!("../../../src/acp/v1/server.rs");
    let start = source
        .find("HANDLED_METHODS: &[&str] = &[")
        .expect("HANDLED_METHODS in src/acp/v1/server.rs");
    let list = &source[start..];
    let list = &list[list.find("&[").unwrap() + 2..];
    let list = &list[list.find('[').unwrap() + 1..list.find("];").unwrap()];
    list.split(',')
        .map(|item| item.trim().trim_matches('"').to_owned())
        .filter(|item| !item.is_empty())
        .collect()
}

/// Minimal params a client may validly send with `method` (the session, where one is needed, is
/// one opened beforehand; `session_id` for the unknown one of load/resume/fork/delete).
fn params(method: &str, s: &Standin, open: &str, stored: &str) -> Value {
    let cwd = json!(s.work);
    match method {
        "initialize" => json!({"protocolVersion": 1, "clientCapabilities": {}}),
        "authenticate" => json!({"methodId": "claude-login"}),
        "logout" | "session/list" | "providers/list" => json!({}),
        "providers/set" => {
            json!({"providerId": "main", "apiType": "anthropic", "baseUrl": "https://gw.example.com", "headers": {}})
        }
        "providers/disable" => json!({"providerId": "main"}),
        "session/new" => json!({"cwd": cwd, "mcpServers": []}),
        "session/load" | "session/resume" | "session/fork" => {
            json!({"sessionId": stored, "cwd": cwd, "mcpServers": []})
        }
        "session/close" | "session/delete" | "session/status" => json!({"sessionId": open}),
        "session/archive" | "session/unarchive" => json!({"sessionId": stored}),
        "session/options" => json!({"cwd": cwd}),
        "session/set_title" => json!({"sessionId": open, "title": "Named"}),
        "session/prompt" => json!({"sessionId": open, "prompt": [{"type": "text", "text": "hi"}]}),
        "_session/async_task/stop" => json!({"sessionId": open, "asyncTaskId": "b1"}),
        "_session/steering" => {
            json!({"sessionId": open, "prompt": [{"type": "text", "text": "hi"}]})
        }
        "session/set_mode" => json!({"sessionId": open, "modeId": "default"}),
        "session/set_config_option" => {
            json!({"sessionId": open, "configId": "mode", "value": "default"})
        }
        other => panic!("no minimal params known for {other}: add them here"),
    }
}

/// The stand-in script that expects what `method` makes the adapter send to claude.
fn script(method: &str) -> &'static str {
    match method {
        "session/set_mode" | "session/set_config_option" => "set_permission_mode",
        _ => "text",
    }
}

/// The listed methods that are notifications (no response to look at): ACP's client-to-agent ones.
const NOTIFICATIONS: &[&str] = &["session/cancel", "mcp/message"];

#[tokio::test]
async fn every_listed_method_reaches_a_handler_of_the_built_binary() {
    let methods = handled_methods();
    assert!(
        methods.len() >= 10 && methods.iter().any(|m| m == "session/prompt"),
        "read the list: {methods:?}"
    );
    let mut not_found = Vec::new();
    for method in &methods {
        if NOTIFICATIONS.contains(&method.as_str()) {
            continue;
        }
        // A fresh adapter per method: logout, close and delete must not spoil the next one.
        let s = Standin::new(script(method));
        let c = s.adapter(&[]);
        c.initialize().await;
        let open = c.new_session(&s.work).await;
        s.store_conversation(&open, "hello");
        let outcome = c
            .try_request(
                method,
                params(method, &s, &open, &open),
                Duration::from_secs(20),
            )
            .await
            .unwrap_or_else(|why| panic!("{method}: {why}\n{}", c.diagnostics()));
        if let Err(e) = outcome {
            eprintln!("{method}: {} {}", e.code, e.message);
            if e.code == -32601 {
                not_found.push(method.clone());
            }
        }
    }
    assert!(not_found.is_empty(), "method not found: {not_found:?}");
}

#[tokio::test]
async fn the_listed_cancel_notification_reaches_its_handler() {
    assert!(handled_methods().iter().any(|m| m == "session/cancel"));
    let s = Standin::new("interrupt");
    let c = s.adapter(&[]);
    // Unhandled, the turn would wait for an interrupt that never comes.
    c.set_timeout(Duration::from_secs(20));
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let (stop, ()) = tokio::join!(c.prompt(&id, "tell me a long story"), async {
        c.wait_for_update(
            |u| u["update"]["sessionUpdate"] == "agent_message_chunk",
            Duration::from_secs(10),
        )
        .await;
        c.notify("session/cancel", json!({"sessionId": id})).await;
    });
    let stop = stop.unwrap_or_else(|e| panic!("prompt: {e}\n{}", c.diagnostics()));
    assert_eq!(stop["stopReason"], "cancelled", "{}", c.diagnostics());
}
