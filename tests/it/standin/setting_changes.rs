//! Mode and model changes never hold the session up: with claude hung mid-turn and a mode change
//! it never acknowledges, `session/cancel` still reaches claude at once and ends the turn at its
//! deadline, the change fails with an error naming it, and the next prompt is served by a fresh
//! claude.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::standin::{Standin, fixture};

/// `text`'s first turn, then a prompt taken and never answered.
fn answers_then_hangs(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(fixture("text")).expect("fixture");
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with("//")).collect();
    let second_prompt = lines
        .iter()
        .rposition(|l| l.starts_with("{\"expect\""))
        .expect("text has two prompts");
    let mut script = lines[..second_prompt].join("\n");
    script.push_str("\n{\"expect\": {\"type\": \"user\"}}\n{\"hang\": true}\n");
    let path = dir.join("answers_then_hangs.jsonl");
    std::fs::write(&path, script).expect("script");
    path
}

/// Where in the adapter's output the answer to the `nth` `method` request is.
fn answer_position(c: &AcpClient, method: &str, nth: usize) -> usize {
    let id = c
        .sent()
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["method"] == method)
        .nth(nth)
        .map(|m| m["id"].clone())
        .unwrap_or_else(|| panic!("no {method} #{nth} sent"));
    c.transcript()
        .iter()
        .position(|m| m.get("method").is_none() && m["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {method} #{nth}"))
}

#[tokio::test]
async fn a_mode_change_claude_never_acknowledges_does_not_hold_up_cancel() {
    // The first claude answers a prompt, then takes the next and hangs (ignoring the mode change
    // and the interrupt); the one started after it answers.
    let s = Standin::with_scripts(|dir| vec![answers_then_hangs(dir), fixture("text")]);
    let c = s.adapter(&[]);
    c.set_timeout(Duration::from_secs(30));
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    // A first turn, so that the hung one's answer is not held for the session's title.
    let first = c.prompt(&id, "hi").await.expect("the first turn");
    assert_eq!(first["stopReason"], "end_turn");

    let is_prompt = |l: &Value| l["type"] == "user" && l.to_string().contains("hello");
    let is_mode_change = |l: &Value| l["request"]["subtype"] == "set_permission_mode";
    let (stop, mode, ()) = tokio::join!(
        c.prompt(&id, "hello"),
        async {
            s.wait_received(is_prompt, Duration::from_secs(10)).await;
            c.request(
                "session/set_mode",
                json!({"sessionId": id, "modeId": "plan"}),
            )
            .await
        },
        async {
            s.wait_received(is_mode_change, Duration::from_secs(10))
                .await;
            c.cancel(&id).await;
        }
    );
    assert_eq!(
        stop.expect("the prompt is answered")["stopReason"],
        "cancelled"
    );
    assert!(
        answer_position(&c, "session/prompt", 1) < answer_position(&c, "session/set_mode", 0),
        "the cancel waited for the mode change: {:?}",
        c.transcript()
    );
    let err = mode.expect_err("claude never made the change");
    assert!(
        err.message.contains("mode change to `plan`"),
        "the error names the change: {err:?}"
    );

    let next = c
        .prompt(&id, "again")
        .await
        .expect("a fresh claude answers");
    assert_eq!(next["stopReason"], "end_turn");
    assert!(
        c.agent_text(&id).ends_with("Hello from the mock model!"),
        "{}",
        c.agent_text(&id)
    );
    assert_eq!(s.pids().len(), 2, "the hung claude was replaced once");
}

/// A session on the stand-in playing `fixture`, with Fast mode turned on by the editor.
async fn with_fast_mode_on(fixture: &str) -> (Standin, AcpClient, String) {
    let s = Standin::new(fixture);
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    c.request(
        "session/set_config_option",
        json!({"sessionId": id, "configId": "fast", "value": "on"}),
    )
    .await
    .unwrap();
    (s, c, id)
}

#[tokio::test]
async fn fast_mode_turned_off_by_claude_is_said_once_and_the_option_follows() {
    let (s, c, id) = with_fast_mode_on("fast_mode_off").await;
    assert_eq!(
        c.prompt(&id, "one").await.unwrap()["stopReason"],
        "end_turn"
    );
    assert_eq!(
        c.prompt(&id, "two").await.unwrap()["stopReason"],
        "end_turn"
    );
    // This editor declares no notices: what claude-acp says comes as agent text.
    let said: Vec<String> = c
        .updates_of_kind(&id, "agent_message_chunk")
        .iter()
        .filter_map(|u| u["content"]["text"].as_str())
        .filter(|t| t.contains("Fast mode"))
        .map(str::to_owned)
        .collect();
    assert_eq!(said.len(), 1, "said more than once: {said:?}");
    assert!(said[0].contains("extra usage"), "{said:?}");
    let options = c
        .updates_of_kind(&id, "config_option_update")
        .last()
        .cloned()
        .expect("the options follow");
    let fast = crate::support::acp_client::config_option(&options["configOptions"], "fast")
        .expect("Fast mode is still offered");
    assert_eq!(fast["currentValue"], "off");
    assert!(s.problems().is_empty(), "{:?}", s.problems());
}

#[tokio::test]
async fn fast_mode_is_kept_when_the_open_session_is_loaded_again() {
    let (s, c, id) = with_fast_mode_on("fast_mode_load").await;
    s.store_conversation(&id, "hi");
    let loaded = c
        .request(
            "session/load",
            json!({"sessionId": id, "cwd": s.work, "mcpServers": []}),
        )
        .await
        .unwrap();
    let fast = crate::support::acp_client::config_option(&loaded["configOptions"], "fast")
        .expect("Fast mode offered");
    assert_eq!(fast["currentValue"], "on");
    // Each claude was told: the second at its start, by the script's own expectation.
    let pids = s.wait_started(2, Duration::from_secs(10)).await;
    assert_eq!(pids.len(), 2);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while s
        .received()
        .iter()
        .filter(|l| l["request"]["settings"]["fastMode"] == true)
        .count()
        < 2
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the loaded session's claude was not told Fast mode is on"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(s.problems().is_empty(), "{:?}", s.problems());
}
