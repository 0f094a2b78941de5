//! Mode and model changes never hold the session up: with claude hung mid-turn and a mode change
//! it never acknowledges, `session/cancel` still ends the turn at its deadline, the change fails
//! with an error naming it, and the next prompt is served by a fresh claude.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::standin::{Standin, fixture};

/// Where in the adapter's output the answer to the (only) `method` request sent so far is.
fn answer_position(c: &AcpClient, method: &str) -> usize {
    let id = c
        .sent()
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|m| m["method"] == method)
        .map(|m| m["id"].clone())
        .unwrap_or_else(|| panic!("no {method} sent"));
    c.transcript()
        .iter()
        .position(|m| m.get("method").is_none() && m["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {method}"))
}

#[tokio::test]
async fn a_mode_change_claude_never_acknowledges_does_not_hold_up_cancel() {
    // The first claude takes the prompt and hangs (ignoring the mode change and the interrupt);
    // the one started after it answers.
    let s = Standin::with_scripts(|_| vec![fixture("hang"), fixture("text")]);
    let c = s.adapter(&[]);
    c.set_timeout(Duration::from_secs(30));
    c.initialize().await;
    let id = c.new_session(&s.work).await;

    let is_prompt = |l: &Value| l["type"] == "user";
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
    let err = mode.expect_err("claude never made the change");
    assert!(
        err.message.contains("mode change to `plan`"),
        "the error names the change: {err:?}"
    );
    assert!(
        answer_position(&c, "session/prompt") < answer_position(&c, "session/set_mode"),
        "the cancel was not held up by the mode change: {:?}",
        c.transcript()
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
