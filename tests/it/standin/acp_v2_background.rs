//! ACP v2 and claude's work beside the turn: a command run in the background offers
//! `tool_call/cancel` while it runs, and the cancel reaches claude as `stop_task` for its task,
//! its call ending `cancelled`; a subagent is a `subagent_update` on its parent, mirrored by the
//! child session's own `state_update`s. Every message checked against the v2 JSON schema.

use std::time::Duration;

use serde_json::json;

use super::acp_v2::{prompt, v2_session, wait_idle};
use crate::support::standin::Standin;
use crate::support::v2_schema::v2_violations;

const WAIT: Duration = Duration::from_secs(10);
const BASH: &str = "toolu_mock_dd896ab8669a4f1eaf02b9d1";

#[tokio::test]
async fn a_background_command_is_cancelled_by_its_tool_call_and_ends_cancelled() {
    let s = Standin::new("v2_background_cancel");
    let c = s.adapter(&[]);
    let (_, session) = v2_session(&c, &s).await;
    let id = session["sessionId"].as_str().unwrap().to_owned();
    c.request("session/prompt", prompt(&id, "start the job"))
        .await
        .unwrap();
    assert_eq!(wait_idle(&c, &id, 1).await[0]["stopReason"], "end_turn");
    let card = c.tool_call_state(&id, BASH).expect("the Bash call");
    assert_eq!(card["status"], "in_progress", "{card}");
    assert_eq!(card["capabilities"], json!({"cancel": {}}), "{card}");

    let cancel = |call: &str| {
        c.request(
            "tool_call/cancel",
            json!({"sessionId": id, "toolCallId": call}),
        )
    };
    let unknown = cancel("no-such-call").await.expect_err("refused");
    assert_eq!(unknown.code, -32602, "{unknown:?}");
    assert!(
        format!("{unknown:?}").contains("no-such-call"),
        "{unknown:?}"
    );
    let terminal = c
        .request(
            "terminal/cancel",
            json!({"sessionId": id, "terminalId": BASH}),
        )
        .await
        .expect_err("no terminal is reported");
    assert_eq!(terminal.code, -32602, "{terminal:?}");
    // The stand-in expects claude's `stop_task` for the command's task, and fails otherwise.
    assert_eq!(cancel(BASH).await.unwrap(), json!({}));
    let end = c
        .wait_for_update(
            |u| u["update"]["toolCallId"] == BASH && u["update"]["status"] == "cancelled",
            WAIT,
        )
        .await;
    assert!(
        end["update"]["capabilities"].is_null()
            && end["update"]
                .as_object()
                .unwrap()
                .contains_key("capabilities"),
        "the capability is taken back: {end}"
    );
    let again = cancel(BASH).await.expect_err("an ended call is refused");
    assert_eq!(again.code, -32602, "{again:?}");
    let violations = v2_violations(&c, &id, &[]);
    assert!(violations.is_empty(), "{violations:#?}");
    c.quit(WAIT).await;
    assert!(s.problems().is_empty(), "{:?}", s.problems());
}

#[tokio::test]
async fn a_subagent_is_a_subagent_update_on_its_parent_and_states_of_its_own() {
    let s = Standin::new("background_subagent");
    let c = s.adapter(&[]);
    let (_, session) = v2_session(&c, &s).await;
    let id = session["sessionId"].as_str().unwrap().to_owned();
    c.request("session/prompt", prompt(&id, "start the helper"))
        .await
        .unwrap();
    let child = format!("{id}/subagent/ae51f4a1e9e6d2ed1");
    c.wait_for_update(
        |u| u["sessionId"] == child.as_str() && u["update"]["state"] == "idle",
        WAIT,
    )
    .await;
    assert_eq!(
        c.updates_of_kind(&id, "subagent_update"),
        [
            json!({"sessionUpdate": "subagent_update", "sessionId": child,
                "title": "Look around", "description": "general-purpose",
                "capabilities": {"cancel": {}}, "state": {"state": "running"}}),
            json!({"sessionUpdate": "subagent_update", "sessionId": child,
                "state": {"state": "idle", "stopReason": "end_turn"}}),
        ]
    );
    // The subagent's own words (its report) are the child's.
    assert_eq!(
        c.updates(&child),
        [
            json!({"sessionUpdate": "state_update", "state": "running"}),
            json!({"sessionUpdate": "agent_message_chunk", "messageId": "msg_bgagent_sub:0",
                "content": {"type": "text", "text": "subagent-report: all fine"}}),
            json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}),
        ]
    );
    for session in [&id, &child] {
        let violations = v2_violations(&c, session, &[]);
        assert!(violations.is_empty(), "{violations:#?}");
    }
    c.quit(WAIT).await;
    assert!(s.problems().is_empty(), "{:?}", s.problems());
}
