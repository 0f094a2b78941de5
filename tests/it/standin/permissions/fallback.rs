//! A broken stdio permission channel (claude denies tools without asking) is noticed, the session
//! switches to the MCP permission tool with its conversation intact, the user is told in one line,
//! and the turn goes on; `--permission-transport stdio` never switches and `mcp` starts there.

use std::time::Duration;

use crate::support::standin::Standin;

fn flag_value(argv: &[String], flag: &str) -> Option<String> {
    argv.iter()
        .position(|a| a == flag)
        .and_then(|i| argv.get(i + 1).cloned())
}

#[tokio::test]
async fn auto_switches_to_mcp_when_claude_denies_without_asking_and_keeps_the_turn() {
    let s = Standin::new("permission_break");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    s.store_conversation(&id, "create hello.txt");
    let stop = c.prompt(&id, "create hello.txt").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "one turn, one stop reason");

    let text = c.agent_text(&id);
    assert!(
        text.contains("[claude-acp] claude denied Write without asking"),
        "the user is told what happened: {text}"
    );
    assert!(
        text.ends_with("Retried: the Write was asked for this time."),
        "{text}"
    );

    let argvs = s.argvs();
    assert_eq!(argvs.len(), 2, "claude was restarted once");
    assert_eq!(
        flag_value(&argvs[0], "--permission-prompt-tool").as_deref(),
        Some("stdio")
    );
    assert_eq!(
        flag_value(&argvs[1], "--permission-prompt-tool").as_deref(),
        Some("mcp__claude-acp__permission")
    );
    assert_eq!(
        flag_value(&argvs[1], "--resume"),
        Some(id.clone()),
        "the conversation is kept"
    );
    let config_path =
        flag_value(&argvs[1], "--mcp-config").expect("an MCP config names our server");
    // The session is open, so its config is there: it holds a token, so it is private to the user.
    let metadata = std::fs::metadata(&config_path)
        .unwrap_or_else(|e| panic!("the MCP config {config_path} of the open session: {e}"));
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&metadata.permissions()) & 0o777,
        0o600,
        "the config (it holds a token) is private to the user"
    );

    let retry = s
        .received()
        .into_iter()
        .rfind(|l| l["type"] == "user")
        .expect("a retry was sent to the restarted claude");
    let retry_text = serde_json::to_string(&retry).unwrap();
    assert!(
        retry_text.contains("Write") && retry_text.contains("retry"),
        "{retry_text}"
    );
}

#[tokio::test]
async fn the_stdio_transport_never_switches() {
    let s = Standin::new("permission_break");
    let c = s.adapter(&["--permission-transport", "stdio"]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    s.store_conversation(&id, "create hello.txt");
    assert_eq!(
        c.prompt(&id, "create hello.txt").await.unwrap()["stopReason"],
        "end_turn"
    );
    // Once the adapter has exited, no switch can still be on its way.
    c.quit(Duration::from_secs(5)).await;
    assert_eq!(s.argvs().len(), 1, "claude was never restarted");
    assert!(!c.agent_text(&id).contains("[claude-acp]"));
}

#[tokio::test]
async fn the_mcp_transport_starts_claude_with_our_permission_tool() {
    let s = Standin::new("text");
    let c = s.adapter(&["--permission-transport", "mcp"]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    s.store_conversation(&id, "create hello.txt");
    assert_eq!(c.prompt(&id, "hi").await.unwrap()["stopReason"], "end_turn");
    let argv = &s.argvs()[0];
    assert_eq!(
        flag_value(argv, "--permission-prompt-tool").as_deref(),
        Some("mcp__claude-acp__permission")
    );
    assert!(flag_value(argv, "--mcp-config").is_some());
}

#[tokio::test]
async fn auto_switches_when_claude_rejects_the_answer_format() {
    let s = Standin::new("permission_answer_rejected");
    let c = s.adapter(&[]);
    c.initialize().await;
    c.allow_permissions();
    let id = c.new_session(&s.work).await;
    s.store_conversation(&id, "create hello.txt");
    assert_eq!(
        c.prompt(&id, "create hello.txt").await.unwrap()["stopReason"],
        "end_turn"
    );
    let text = c.agent_text(&id);
    assert!(
        text.contains("[claude-acp]") && text.ends_with("Retried after the restart."),
        "{text}"
    );
    let argvs = s.argvs();
    assert_eq!(
        flag_value(&argvs[1], "--permission-prompt-tool").as_deref(),
        Some("mcp__claude-acp__permission")
    );
}

#[tokio::test]
async fn auto_switches_when_claude_dies_not_knowing_the_stdio_tool() {
    let s = Standin::new("permission_flag_refused");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    s.store_conversation(&id, "create hello.txt");
    let stop = c.prompt(&id, "create hello.txt").await.unwrap();
    assert_eq!(
        stop["stopReason"], "end_turn",
        "the crash did not cost the turn"
    );
    let text = c.agent_text(&id);
    assert!(text.contains("[claude-acp]"), "{text}");
    assert!(text.ends_with("Started again and done."), "{text}");
    let argvs = s.argvs();
    assert_eq!(argvs.len(), 2);
    assert_eq!(flag_value(&argvs[1], "--resume"), Some(id));
}

/// The bearer token of the MCP config claude was started with (`--mcp-config`).
fn mcp_token(argv: &[String]) -> String {
    let path = flag_value(argv, "--mcp-config").expect("an MCP config");
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("the session's MCP config"))
            .expect("JSON");
    let header = config["mcpServers"]["claude-acp"]["headers"]["Authorization"]
        .as_str()
        .unwrap_or_else(|| panic!("no Authorization header: {config}"));
    header
        .strip_prefix("Bearer ")
        .expect("a bearer token")
        .to_owned()
}

#[tokio::test]
async fn the_mcp_servers_token_is_256_random_bits() {
    let s = Standin::new("text");
    let c = s.adapter(&["--permission-transport", "mcp"]);
    c.initialize().await;
    let mut tokens = Vec::new();
    for _ in 0..8 {
        c.new_session(&s.work).await;
        let argvs = s.argvs();
        tokens.push(mcp_token(argvs.last().expect("claude started")));
    }
    for token in &tokens {
        assert_eq!(token.len(), 64, "{token}");
        assert!(token.chars().all(|c| c.is_ascii_hexdigit()), "{token}");
    }
    // 256 bits: no hex digit is fixed (a v4 UUID fixes its version digit and part of another).
    // For a random digit to come out the same in 8 tokens by chance: 1 in 16^7, per digit.
    for at in 0..64 {
        let digits: std::collections::HashSet<u8> =
            tokens.iter().map(|t| t.as_bytes()[at]).collect();
        assert!(
            digits.len() > 1,
            "hex digit {at} is the same in every token: {tokens:#?}"
        );
    }
}
