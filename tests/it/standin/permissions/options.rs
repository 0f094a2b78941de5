//! Every permission option and reply shape through the adapter, and the fail-closed answers:
//! always-allow applies claude's own suggestion, always-reject puts a deny rule in force before
//! the deny, and an unknown option or an unreadable answer is a deny that says why.

use crate::support::acp_client::choose_permission;
use crate::support::standin::Standin;
use serde_json::{Value, json};

fn reply_to_claude(s: &Standin) -> Value {
    s.received()
        .into_iter()
        .find(|l| l["type"] == "control_response")
        .map(|l| l["response"]["response"].clone())
        .expect("claude got an answer to its permission request")
}

async fn ask_and_answer(
    fixture: &str,
    answer: impl Fn(&Value) -> Result<Value, (i64, String)> + Send + Sync + 'static,
) -> (Standin, crate::support::acp_client::AcpClient, String) {
    let s = Standin::new(fixture);
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    c.on_request("session/request_permission", answer);
    c.prompt(&id, "Please create hello.txt").await.unwrap();
    (s, c, id)
}

#[tokio::test]
async fn always_allow_is_named_from_claudes_suggestion_and_answers_with_it() {
    let (s, c, id) = ask_and_answer("write_allow", choose_permission("allow_always")).await;
    let ask = c
        .requests()
        .into_iter()
        .find(|r| r.method == "session/request_permission")
        .unwrap();
    let always = ask.params["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "allow_always")
        .cloned()
        .expect("an always-allow option from the setMode suggestion");
    assert_eq!(always["name"], "Allow all edits in this session");
    let reply = reply_to_claude(&s);
    assert_eq!(reply["behavior"], "allow");
    assert_eq!(
        reply["updatedPermissions"],
        json!([{"type": "setMode", "mode": "acceptEdits", "destination": "session"}])
    );
    assert!(s.work.join("hello.txt").exists());
    let modes: Vec<Value> = c
        .updates_of_kind(&id, "current_mode_update")
        .iter()
        .map(|u| u["currentModeId"].clone())
        .collect();
    assert_eq!(
        modes,
        vec![json!("acceptEdits")],
        "the editor follows the mode change"
    );
}

#[tokio::test]
async fn always_reject_puts_a_deny_rule_in_force_before_the_deny() {
    let (s, _c, _id) = ask_and_answer("write_deny", choose_permission("reject_always")).await;
    let received = s.received();
    let rule_at = received
        .iter()
        .position(|l| l["request"]["subtype"] == "apply_flag_settings")
        .expect("a deny rule was sent");
    let deny_at = received
        .iter()
        .position(|l| l["type"] == "control_response")
        .expect("a deny was sent");
    assert!(
        rule_at < deny_at,
        "the rule is in force before claude reads the deny"
    );
    let rules = &received[rule_at]["request"]["settings"]["permissions"]["deny"];
    let expected = format!("Edit(/{}/hello.txt)", s.work.display());
    assert_eq!(
        rules,
        &json!([expected]),
        "a rule for the same tool and path"
    );
    let reply = reply_to_claude(&s);
    assert_eq!(reply["behavior"], "deny");
    assert!(!reply["message"].as_str().unwrap().is_empty());
}

#[tokio::test]
async fn an_option_that_was_not_offered_is_a_deny_naming_it() {
    let (s, _c, _id) = ask_and_answer("write_deny", |_| {
        Ok(json!({"outcome": {"outcome": "selected", "optionId": "allow_everything_forever"}}))
    })
    .await;
    let reply = reply_to_claude(&s);
    assert_eq!(reply["behavior"], "deny");
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("allow_everything_forever"),
        "{reply}"
    );
    assert!(!s.work.join("hello.txt").exists());
}

#[tokio::test]
async fn an_unreadable_answer_is_a_deny_that_says_so() {
    let (s, _c, _id) = ask_and_answer("write_deny", |_| Ok(json!({"outcome": "yes please"}))).await;
    let reply = reply_to_claude(&s);
    assert_eq!(reply["behavior"], "deny");
    let message = reply["message"].as_str().unwrap();
    assert!(
        message.contains("could not be read"),
        "the deny names the reason: {message}"
    );
    assert!(!s.work.join("hello.txt").exists());
}
