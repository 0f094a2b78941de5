//! The editor's requests and what every editor relies on: initialize, session/new, and bad input
//! of every kind answered with a clear error while the adapter goes on.

use std::time::Duration;

use crate::support::acp_client::AcpClient;
use crate::support::standin::Standin;
use serde_json::{Value, json};

#[tokio::test]
async fn initialize_states_version_identity_and_only_built_capabilities() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    let init = c.initialize().await;
    assert_eq!(init["protocolVersion"], 1);
    assert_eq!(init["agentInfo"]["name"], "claude-acp");
    assert_eq!(init["agentInfo"]["version"], env!("CARGO_PKG_VERSION"));
    let caps = &init["agentCapabilities"];
    assert_eq!(caps["promptCapabilities"]["image"], true);
    assert_eq!(caps["promptCapabilities"]["embeddedContext"], true);
    assert_eq!(
        caps["promptCapabilities"]["audio"], false,
        "audio is not built"
    );
}

#[tokio::test]
async fn a_new_session_answers_at_once_with_modes_and_claude_uses_its_id() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;
    let started = std::time::Instant::now();
    let session = c.open_session(&s.work).await;
    let elapsed = started.elapsed();
    let id = session["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(session["modes"]["currentModeId"], "default");
    let modes: Vec<&str> = session["modes"]["availableModes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert!(
        modes.contains(&"acceptEdits") && modes.contains(&"plan"),
        "{modes:?}"
    );
    assert!(
        elapsed < Duration::from_secs(2),
        "session/new took {elapsed:?}"
    );

    s.wait_started(1, Duration::from_secs(10)).await;
    let argv = &s.argvs()[0];
    let joined = argv.join(" ");
    for flag in [
        "--input-format stream-json",
        "--output-format stream-json",
        "--verbose",
        "--include-partial-messages",
        "--permission-prompt-tool stdio",
    ] {
        assert!(
            joined.contains(flag),
            "claude started without `{flag}`: {joined}"
        );
    }
    assert!(joined.contains(&format!("--session-id {id}")), "{joined}");
}

#[tokio::test]
async fn bad_input_gets_clear_errors_and_the_adapter_goes_on() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;

    c.send_raw("this is not json").await.unwrap();
    let parse_error = c
        .wait_for_message(|m| m["error"]["code"] == -32700, Duration::from_secs(5))
        .await;
    assert_eq!(parse_error["id"], Value::Null);

    let err = c.request("no/such_method", json!({})).await.unwrap_err();
    assert_eq!(err.code, -32601);

    let err = c
        .request(
            "session/new",
            json!({"cwd": "relative/dir", "mcpServers": []}),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, -32602);
    assert!(err.message.contains("absolute"), "{}", err.message);

    let err = c
        .request(
            "session/new",
            json!({"cwd": "/no/such/dir/anywhere", "mcpServers": []}),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, -32602);
    assert!(
        err.message.contains("not an existing directory"),
        "{}",
        err.message
    );

    let err = c
        .request("session/new", json!({"mcpServers": []}))
        .await
        .unwrap_err();
    assert_eq!(err.code, -32602);

    let err = c
        .request("session/prompt", json!({"sessionId": "nope", "prompt": []}))
        .await
        .unwrap_err();
    assert_eq!(err.code, -32602);
    assert!(
        err.message.contains("unknown session id: nope"),
        "{}",
        err.message
    );

    // Editors answer notifications with errors whose id is null, and stray responses happen.
    c.send_raw(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"not a request"}}"#)
        .await
        .unwrap();
    c.send_raw(r#"{"jsonrpc":"2.0","id":4242,"result":{}}"#)
        .await
        .unwrap();

    // Still serving: a whole turn works.
    let id = c.new_session(&s.work).await;
    let stop = c.prompt(&id, "say hello").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert_eq!(c.agent_text(&id), "Hello from the mock model!");
    assert!(
        c.invalid_lines().is_empty(),
        "non-JSON on stdout: {:?}",
        c.invalid_lines()
    );
}

#[tokio::test]
async fn a_missing_claude_fails_session_new_saying_where_it_looked_and_how_to_install() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = tokio::process::Command::new(crate::support::adapter());
    // A trimmed environment, as some editors start agents: no claude anywhere.
    cmd.env_clear()
        .env("PATH", dir.path())
        .env("HOME", dir.path())
        .current_dir(dir.path());
    let c = AcpClient::from_command(cmd);
    c.initialize().await;
    let err = c
        .request("session/new", json!({"cwd": dir.path(), "mcpServers": []}))
        .await
        .unwrap_err();
    assert!(err.message.contains("claude"), "{}", err.message);
    assert!(
        err.message.contains(".local/bin/claude"),
        "should list the places it looked: {}",
        err.message
    );
    assert!(
        err.message.contains("npm install"),
        "should say how to install: {}",
        err.message
    );
}
