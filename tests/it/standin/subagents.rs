//! ACP's (unstable) `subagents`: a client that declares it gets a `subagent_update` for each of
//! claude's subagents (its child session's id, title, description and state, with leave to cancel
//! it) and its report as the message the parent got from the child, and `session/cancel` on that
//! child stops that subagent only (claude's `stop_task`), while the turn goes on. A client that
//! does not declare it gets none.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::standin::Standin;
use crate::support::v2_schema::violations_1_20_v1;

const WAIT: Duration = Duration::from_secs(10);

fn with_subagents() -> Value {
    json!({"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false,
        "subagents": {}})
}

fn subagent_updates(c: &AcpClient, id: &str) -> Vec<Value> {
    c.updates_of_kind(id, "subagent_update")
}

#[tokio::test]
async fn a_background_subagent_is_announced_running_then_idle_when_it_ends() {
    let s = Standin::new("background_subagent");
    let c = s.adapter(&[]);
    c.initialize_with_capabilities(with_subagents()).await;
    let id = c.new_session(&s.work).await;
    c.prompt_to_end_turn(&id, "start the helper").await;
    let child = format!("{id}/subagent/ae51f4a1e9e6d2ed1");
    c.wait_for_update(
        |u| {
            u["update"]["sessionUpdate"] == "subagent_update"
                && u["update"]["state"]["state"] == "idle"
        },
        WAIT,
    )
    .await;
    assert_eq!(
        subagent_updates(&c, &id),
        [
            json!({"sessionUpdate": "subagent_update", "sessionId": child,
                "title": "Look around", "description": "general-purpose",
                "capabilities": {"cancel": {}}, "state": {"state": "running"}}),
            json!({"sessionUpdate": "subagent_update", "sessionId": child,
                "state": {"state": "idle", "stopReason": "end_turn"}}),
        ]
    );
    // Its report (claude's `summary_is_report`), as the message the parent got from the child.
    let reports = c.updates_of_kind(&id, "session_message");
    assert_eq!(reports.len(), 1, "{:#?}", c.updates(&id));
    assert_eq!(reports[0]["senderSessionId"], child.as_str());
    assert_eq!(reports[0]["recipientSessionId"], id.as_str());
    assert_eq!(
        reports[0]["content"],
        json!([{"type": "text", "text": "subagent-report: all fine"}])
    );
    let notification = json!({"sessionId": id, "update": reports[0]});
    assert_eq!(
        violations_1_20_v1("SessionNotification", &notification),
        Vec::<String>::new()
    );
    c.quit(WAIT).await;
    assert!(s.problems().is_empty(), "{:?}", s.problems());
}

#[tokio::test]
async fn without_the_capability_no_subagent_update_is_sent() {
    let s = Standin::new("background_subagent");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    c.prompt_to_end_turn(&id, "start the helper").await;
    c.wait_for_update(|u| u["update"]["status"] == "completed", WAIT)
        .await;
    let kinds: Vec<Value> = c
        .updates(&id)
        .iter()
        .map(|u| u["sessionUpdate"].clone())
        .collect();
    assert!(!kinds.contains(&json!("subagent_update")), "{kinds:?}");
    assert!(!kinds.contains(&json!("session_message")), "{kinds:?}");
    c.quit(WAIT).await;
}

#[tokio::test]
async fn cancelling_a_subagents_session_stops_that_subagent_and_the_turn_goes_on() {
    let s = Standin::new("subagent_cancel");
    let c = s.adapter(&[]);
    c.initialize_with_capabilities(with_subagents()).await;
    let id = c.new_session(&s.work).await;
    let answer = c.send_prompt(&id, "start the helper").await;
    let running = c
        .wait_for_update(
            |u| {
                u["update"]["sessionUpdate"] == "subagent_update"
                    && u["update"]["state"]["state"] == "running"
            },
            WAIT,
        )
        .await;
    let child = running["update"]["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(child, format!("{id}/subagent/a1e3fff4b42d22735"));
    // The stand-in expects claude's `stop_task` for that task, and fails on an interrupt.
    c.cancel(&child).await;
    let stop = answer.await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "the parent's turn went on");
    assert!(c.agent_text(&id).ends_with("Main got the result."));
    let last = subagent_updates(&c, &id).pop().unwrap();
    assert_eq!(
        last["state"],
        json!({"state": "idle", "stopReason": "cancelled"}),
        "{last}"
    );
    let card = c
        .tool_call_state(&id, "toolu_mock_e59e5978bd434fa2a279978c")
        .unwrap();
    assert_eq!(card["status"], "failed", "{card}");
    // A cancel of a subagent that no longer runs, and of an unknown child, reach claude not.
    c.cancel(&child).await;
    c.cancel(&format!("{id}/subagent/nope")).await;
    c.quit(WAIT).await;
    let stops = s
        .received()
        .iter()
        .filter(|m| {
            m["request"]["subtype"] == "stop_task" || m["request"]["subtype"] == "interrupt"
        })
        .count();
    assert_eq!(stops, 1, "{:#?}", s.received());
    assert!(s.problems().is_empty(), "{:?}", s.problems());
}
