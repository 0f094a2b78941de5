//! What the editor asks for in `session/new` reaches claude's command line: its MCP servers (stdio,
//! http, sse, with env and headers) in a private `--mcp-config` file, and client options from
//! `_meta.claudeCode.options` as claude flags; a mistyped option fails `session/new` by name.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::Duration;

use crate::support::argv::argv_value;
use crate::support::standin::Standin;
use serde_json::{Value, json};

#[tokio::test]
async fn editor_mcp_servers_reach_claude_in_a_private_mcp_config_with_env_and_headers() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    let init = c.initialize().await;
    let mcp = &init["agentCapabilities"]["mcpCapabilities"];
    assert_eq!(mcp["http"], true, "{init}");
    assert_eq!(mcp["sse"], true, "{init}");

    let servers = json!([
        {"name": "notes", "command": "/usr/bin/notes-mcp", "args": ["--stdio", "-v"],
         "env": [{"name": "NOTES_TOKEN", "value": "s3cret"}, {"name": "LEVEL", "value": "2"}]},
        {"type": "http", "name": "tracker", "url": "https://tracker.example/mcp",
         "headers": [{"name": "Authorization", "value": "Bearer abc"}]},
        {"type": "sse", "name": "events", "url": "https://events.example/sse",
         "headers": [{"name": "X-Team", "value": "blue"}]},
    ]);
    let opened = c
        .request("session/new", json!({"cwd": s.work, "mcpServers": servers}))
        .await
        .unwrap();
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    s.wait_started(1, Duration::from_secs(10)).await;
    let argv = s.argvs()[0].clone();
    let path = PathBuf::from(argv_value(&argv, "--mcp-config").expect("--mcp-config in argv"));

    // Read while claude runs: the file goes away with the session.
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{}", path.display());
    let config: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let got = &config["mcpServers"];
    assert_eq!(
        got["notes"],
        json!({"type": "stdio", "command": "/usr/bin/notes-mcp", "args": ["--stdio", "-v"],
               "env": {"NOTES_TOKEN": "s3cret", "LEVEL": "2"}})
    );
    assert_eq!(
        got["tracker"],
        json!({"type": "http", "url": "https://tracker.example/mcp",
               "headers": {"Authorization": "Bearer abc"}})
    );
    assert_eq!(
        got["events"],
        json!({"type": "sse", "url": "https://events.example/sse",
               "headers": {"X-Team": "blue"}})
    );
    assert!(
        !argv
            .iter()
            .any(|a| a.contains("s3cret") || a.contains("Bearer")),
        "secrets stay out of argv: {argv:?}"
    );
    assert_eq!(c.prompt(&id, "hi").await.unwrap()["stopReason"], "end_turn");

    c.request("session/close", json!({"sessionId": id}))
        .await
        .unwrap();
    assert!(!path.exists(), "the config outlives its session");
}

#[tokio::test]
async fn no_editor_servers_means_no_mcp_config() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    s.wait_started(1, Duration::from_secs(10)).await;
    assert!(
        !s.argvs()[0].contains(&"--mcp-config".to_owned()),
        "{:?}",
        s.argvs()[0]
    );
    assert_eq!(c.prompt(&id, "hi").await.unwrap()["stopReason"], "end_turn");
}

#[tokio::test]
async fn claude_code_options_in_meta_become_claude_flags() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;
    let meta = json!({"claudeCode": {"options": {
        "model": "sonnet",
        "allowedTools": ["Read", "Bash(git status:*)"],
        "maxTurns": 3,
    }}});
    let opened = c
        .request(
            "session/new",
            json!({"cwd": s.work, "mcpServers": [], "_meta": meta}),
        )
        .await
        .unwrap();
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    s.wait_started(1, Duration::from_secs(10)).await;
    let argv = &s.argvs()[0];
    assert_eq!(argv_value(argv, "--model"), Some("sonnet"), "{argv:?}");
    assert_eq!(
        argv_value(argv, "--allowedTools"),
        Some("Read,Bash(git status:*)"),
        "{argv:?}"
    );
    assert_eq!(argv_value(argv, "--max-turns"), Some("3"), "{argv:?}");
    assert_eq!(c.prompt(&id, "hi").await.unwrap()["stopReason"], "end_turn");
}

#[tokio::test]
async fn a_mistyped_meta_option_fails_session_new_naming_the_key() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;
    for (key, value) in [
        ("maxTurns", json!("three")),
        ("allowedTools", json!("Read")),
        ("model", json!(4)),
    ] {
        let meta = json!({"claudeCode": {"options": {key: value}}});
        let err = c
            .request(
                "session/new",
                json!({"cwd": s.work, "mcpServers": [], "_meta": meta}),
            )
            .await
            .unwrap_err();
        assert_eq!(err.code, -32602, "{key}: {}", err.message);
        assert!(
            err.message.contains(&format!("claudeCode.options.{key}")),
            "{key}: {}",
            err.message
        );
    }
    // Once the adapter has exited, no claude can still be on its way.
    c.quit(Duration::from_secs(5)).await;
    assert!(s.pids().is_empty(), "no claude for a refused session");
}
