//! ACP's `subagents` with the real pinned claude on the mock API: a subagent is announced to a
//! client that declared the capability, and `session/cancel` on its child session stops that
//! subagent only (claude's `stop_task`): its Task call fails, the turn goes on to `end_turn`.

use std::time::Duration;

use serde_json::json;

use super::editor_tools::adapter_on_mock;
use crate::support::mock_api::{Reply, Rule};

const WAIT: Duration = Duration::from_secs(30);

#[tokio::test]
async fn cancelling_a_subagents_session_stops_it_and_the_turn_goes_on() {
    let (mock, env, c) = adapter_on_mock(&[]);
    // The subagent's own request answers slowly (about 12 s), so it is still at work when cancelled.
    mock.push_rule(Rule::on_prompt(
        "SUBAGENT-PROMPT",
        Reply::text("subagent-report: this takes a long while to write out")
            .chunk_chars(2)
            .chunk_delay(Duration::from_millis(400)),
    ));
    mock.push_rule(Rule::on_prompt(
        "start the helper",
        Reply::tool_use(
            "Agent",
            json!({"description": "Look around", "prompt": "SUBAGENT-PROMPT: look around",
                "subagent_type": "general-purpose", "run_in_background": false}),
        ),
    ));
    mock.push_rule(Rule::on_tool_result(Reply::text("Main got the result.")));
    c.allow_permissions();
    c.initialize_with_capabilities(
        json!({"fs": {"readTextFile": false, "writeTextFile": false},
        "terminal": false, "subagents": {}}),
    )
    .await;
    let id = c.new_session(env.work_dir()).await;
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
    let update = &running["update"];
    assert_eq!(update["title"], "Look around", "{update}");
    assert_eq!(update["description"], "general-purpose", "{update}");
    assert_eq!(update["capabilities"], json!({"cancel": {}}), "{update}");
    let child = update["sessionId"].as_str().unwrap().to_owned();
    assert!(child.starts_with(&format!("{id}/subagent/")), "{child}");
    // Once the subagent's request reached the model, cancel the subagent alone.
    let deadline = tokio::time::Instant::now() + WAIT;
    while !mock.requests().iter().any(|r| {
        r.prompt_text()
            .is_some_and(|p| p.contains("SUBAGENT-PROMPT"))
    }) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the subagent never asked the model"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    c.cancel(&child).await;
    let stop = tokio::time::timeout(WAIT, answer)
        .await
        .expect("the turn ends")
        .unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "the parent's turn went on");
    assert!(
        c.agent_text(&id).ends_with("Main got the result."),
        "{}",
        c.agent_text(&id)
    );
    let ended = c
        .wait_for_update(
            |u| {
                u["update"]["sessionUpdate"] == "subagent_update"
                    && u["update"]["state"]["state"] == "idle"
            },
            WAIT,
        )
        .await["update"]
        .clone();
    assert_eq!(
        ended["state"],
        json!({"state": "idle", "stopReason": "cancelled"}),
        "{ended}"
    );
    // The model got the interrupted Task call's result, well before the report would have ended.
    let result = mock.last_tool_result_text().unwrap();
    assert!(result.contains("interrupted"), "{result}");
    let agent = c
        .tool_calls(&id)
        .into_iter()
        .find(|call| call["kind"] == "think")
        .unwrap();
    let agent = c
        .tool_call_state(&id, agent["toolCallId"].as_str().unwrap())
        .unwrap();
    assert_eq!(agent["status"], "failed", "{agent}");
}
