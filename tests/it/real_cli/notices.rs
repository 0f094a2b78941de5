//! What claude reports beside the conversation, with the real CLI through claude-acp: an editor's
//! MCP server that cannot start is told once, as a `notice` to an editor that declared
//! `session.notices` and as a marked agent line to one that did not.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;

/// A session whose editor MCP server `broken` runs a program that does not exist, two turns.
async fn two_turns_with_a_broken_server(notices: bool) -> (AcpClient, String) {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Hi."))]);
    let env = ClaudeEnv::new(&mock);
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(Duration::from_secs(60));
    let mut caps =
        json!({"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false});
    if notices {
        caps["session"] = json!({"notices": {}});
    }
    c.initialize_with_capabilities(caps).await;
    let opened = c
        .request(
            "session/new",
            json!({"cwd": env.work_dir(), "mcpServers": [{
                "name": "broken",
                "command": env.work_dir().join("no-such-server"),
                "args": [],
                "env": [],
            }]}),
        )
        .await
        .unwrap_or_else(|e| panic!("session/new: {e}\n{}", c.diagnostics()));
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    for _ in 0..2 {
        let stop = c.prompt(&id, "hello").await.unwrap();
        assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    }
    // `mock` and `env` may go: claude has ended its turns.
    drop(env);
    (c, id)
}

fn kind(update: &Value) -> Option<&str> {
    update["_meta"]["claudeCode"]["kind"].as_str()
}

#[tokio::test]
async fn a_server_that_fails_to_start_is_one_notice() {
    let (c, id) = two_turns_with_a_broken_server(true).await;
    let notices = c.updates_of_kind(&id, "notice");
    assert_eq!(notices.len(), 1, "one notice over two turns: {notices:#?}");
    let n = &notices[0];
    assert_eq!(n["severity"], "error", "{n}");
    assert_eq!(n["title"], "MCP server broken failed to start", "{n}");
    assert_eq!(kind(&notices[0]), Some("mcp_server_failed"));
    assert_eq!(
        c.agent_text(&id),
        "Hi.Hi.",
        "no text stands in for the notice"
    );
}

#[tokio::test]
async fn without_notices_it_is_one_marked_agent_line() {
    let (c, id) = two_turns_with_a_broken_server(false).await;
    assert!(c.updates_of_kind(&id, "notice").is_empty());
    let marked: Vec<Value> = c
        .updates_of_kind(&id, "agent_message_chunk")
        .into_iter()
        .filter(|u| kind(u).is_some())
        .collect();
    assert_eq!(marked.len(), 1, "{marked:#?}");
    assert_eq!(kind(&marked[0]), Some("mcp_server_failed"));
    let text = marked[0]["content"]["text"].as_str().unwrap();
    assert!(
        text.starts_with("✖ MCP server broken failed to start"),
        "{text:?}"
    );
}

/// A Claude subscription's session (an OAuth token, no API key) whose API reports the 5-hour
/// window at 91 %: claude's `rate_limit_event` reaches the editor as the usage's `_meta`, the
/// prompt answer's `_meta` and one warning notice, and `/usage` shows it with no model request.
#[tokio::test]
async fn a_subscription_s_limits_show_in_usage_and_in_slash_usage() {
    let resets = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 3600;
    let mock = MockApi::start(vec![Rule::always(Reply::text("Hi.").rate_limit_headers(
        0.91,
        "allowed_warning",
        resets,
    ))]);
    let env = ClaudeEnv::new(&mock)
        .without_env("ANTHROPIC_API_KEY")
        .with_env("CLAUDE_CODE_OAUTH_TOKEN", "sk-ant-oat01-mock");
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(Duration::from_secs(60));
    c.initialize_with_capabilities(json!({"session": {"notices": {}}}))
        .await;
    let id = c.new_session(env.work_dir()).await;
    let answer = c.prompt(&id, "hello").await.unwrap();
    assert_eq!(answer["stopReason"], "end_turn", "{}", c.diagnostics());
    let five_hour = &answer["_meta"]["claudeCode"]["rateLimits"]["fiveHour"];
    assert_eq!(five_hour["status"], "allowed_warning", "{answer}");
    assert_eq!(five_hour["usedShare"], 0.91, "{answer}");
    assert_eq!(
        answer["_meta"]["claudeCode"]["rateLimits"]["weekly"]["usedShare"],
        0.3
    );

    let usage = c.updates_of_kind(&id, "usage_update");
    let last = usage.last().expect("a usage update");
    assert_eq!(
        last["_meta"]["claudeCode"]["rateLimits"]["fiveHour"]["usedShare"], 0.91,
        "{last}"
    );
    assert_eq!(
        last["_meta"]["_claude/rateLimit"]["rateLimitType"],
        "five_hour"
    );
    let notices = c.updates_of_kind(&id, "notice");
    assert_eq!(notices.len(), 1, "{notices:#?}");
    assert_eq!(
        notices[0]["title"],
        "You have used 91% of your 5-hour limit"
    );

    let requests = mock.requests().len();
    let answer = c.prompt(&id, "/usage").await.unwrap();
    assert_eq!(answer["stopReason"], "end_turn");
    assert_eq!(mock.requests().len(), requests, "/usage asks no model");
    let text = c.agent_text(&id);
    assert!(text.contains("## Usage"), "{text}");
    assert!(
        text.contains("`█████████░ 91% used` · **nearing the limit**"),
        "{text}"
    );
    assert!(text.contains("**Weekly:** `███░░░░░░░ 30% used`"), "{text}");
}
