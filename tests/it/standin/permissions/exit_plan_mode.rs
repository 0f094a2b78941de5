//! ExitPlanMode through the adapter: the plan is in the permission prompt, the three ways on are
//! offered, and the editor's mode follows the answer.

use crate::support::acp_client::{AcpClient, config_option};
use crate::support::standin::Standin;
use serde_json::{Value, json};

async fn plan_session(s: &Standin, choice: &'static str) -> (AcpClient, String) {
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    // claude's initialize reply carries its mode; let it land before the mode changes.
    c.wait_for_commands(c.timeout()).await;
    c.request(
        "session/set_mode",
        json!({"sessionId": id, "modeId": "plan"}),
    )
    .await
    .unwrap();
    c.on_request("session/request_permission", move |_| {
        Ok(json!({"outcome": {"outcome": "selected", "optionId": choice}}))
    });
    let stop = c.prompt(&id, "make a plan").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    (c, id)
}

fn modes(c: &AcpClient, id: &str) -> Vec<String> {
    c.updates_of_kind(id, "current_mode_update")
        .iter()
        .map(|u| u["currentModeId"].as_str().unwrap().to_owned())
        .collect()
}

fn claude_reply(s: &Standin) -> Value {
    s.received()
        .into_iter()
        .find(|l| l["type"] == "control_response")
        .map(|l| l["response"]["response"].clone())
        .expect("claude got an answer")
}

#[tokio::test]
async fn the_plan_is_in_the_prompt_and_approving_it_leaves_plan_mode() {
    let s = Standin::new("exit_plan_mode");
    let (c, id) = plan_session(&s, "plan_approve_each_edit").await;

    let ask = c
        .requests()
        .into_iter()
        .find(|r| r.method == "session/request_permission")
        .expect("the plan was put before the user");
    assert_eq!(
        ask.params["toolCall"]["content"][0]["content"]["text"],
        "1. Create hello.txt\n2. Say hello"
    );
    let names: Vec<&str> = ask.params["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "Yes, and auto-accept edits",
            "Yes, and approve each edit",
            "No, keep planning"
        ]
    );
    let reply = claude_reply(&s);
    assert_eq!(reply["behavior"], "allow");
    assert_eq!(
        reply["updatedPermissions"],
        json!([{"type": "setMode", "mode": "default", "destination": "session"}])
    );
    assert_eq!(modes(&c, &id), ["plan", "default"]);
    let options = c.updates_of_kind(&id, "config_option_update");
    let last = options.last().expect("config options follow the mode");
    let mode = config_option(&last["configOptions"], "mode").unwrap();
    assert_eq!(mode["currentValue"], "default");
}

#[tokio::test]
async fn keep_planning_denies_with_a_message_and_stays_in_plan_mode() {
    let s = Standin::new("exit_plan_mode");
    let (c, id) = plan_session(&s, "plan_keep_planning").await;

    let reply = claude_reply(&s);
    assert_eq!(reply["behavior"], "deny");
    assert!(reply["message"].as_str().unwrap().contains("keep planning"));
    assert_eq!(modes(&c, &id), ["plan"]);
    assert!(c.agent_text(&id).contains("staying in plan mode"));
}
