//! `/mcp` in the prompt box, with the stand-in playing claude's control channel: the wire shapes
//! of `mcp_toggle`, `mcp_reconnect` and `mcp_status`, claude's refusal passed on, a missing name
//! and claude failing to list its servers answered in text, no prompt reaching claude, and the
//! session going on; `/mcp` offered with its subcommands.

use std::time::Duration;

use crate::support::standin::Standin;

/// The agent text one prompt adds.
async fn answer(c: &crate::support::acp_client::AcpClient, id: &str, prompt: &str) -> String {
    let before = c.agent_text(id).len();
    let stop = c.prompt(id, prompt).await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{prompt}");
    c.agent_text(id)[before..].to_owned()
}

#[tokio::test]
async fn slash_mcp_acts_through_claude_s_control_requests() {
    let s = Standin::new("mcp_commands");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let offered = c.wait_for_commands(Duration::from_secs(10)).await;
    let mcp = offered["update"]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "mcp")
        .cloned()
        .expect("/mcp offered");
    assert_eq!(
        mcp["input"]["hint"], "[reconnect|enable|disable NAME]",
        "{mcp}"
    );

    let disabled = answer(&c, &id, "/mcp disable echo").await;
    assert_eq!(
        disabled,
        "Disabled **echo**.\n\n## MCP servers\n\n| Server | State | Tools |\n| --- | --- | ---: |\n\
         | echo | ○ disabled | – |\n| db | ✖ failed: spawn db-server ENOENT | – |\n"
    );
    assert!(
        !disabled.contains("standin-secret"),
        "a server's config is never shown"
    );

    let refused = answer(&c, &id, "/mcp reconnect nope").await;
    assert!(
        refused.starts_with("Could not reconnect **nope**: Server not found: nope\n\n"),
        "{refused}"
    );
    assert!(refused.contains("| echo | ✔ connected | 1 |"), "{refused}");

    let nameless = answer(&c, &id, "/mcp reconnect").await;
    assert!(
        nameless.starts_with("`/mcp reconnect` needs the name of a server: `/mcp reconnect NAME`."),
        "{nameless}"
    );
    assert!(
        nameless.contains("| echo | ✔ connected | 1 |"),
        "{nameless}"
    );

    let unlisted = answer(&c, &id, "/mcp").await;
    assert!(
        unlisted.contains("claude did not list its servers: MCP is busy"),
        "{unlisted}"
    );

    assert!(
        !s.received().iter().any(|l| l["type"] == "user"),
        "no prompt reached claude"
    );
    let stop = c.prompt(&id, "hello").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "the session goes on");
    assert!(c.agent_text(&id).ends_with("Hello from the mock model!"));
}
