//! Modes and config options: the editor changes the mode either way (`session/set_mode` or
//! `session/set_config_option`), claude is told with `set_permission_mode`, and after any change,
//! the editor's or claude's own, both `current_mode_update` and `config_option_update` arrive.
//! The model picker works the same way with `set_model`.

use std::time::Duration;

use crate::support::acp_client::config_option;
use crate::support::standin::Standin;
use serde_json::{Value, json};

fn mode_updates(c: &crate::support::acp_client::AcpClient, id: &str) -> Vec<String> {
    c.updates_of_kind(id, "current_mode_update")
        .iter()
        .map(|u| u["currentModeId"].as_str().unwrap().to_owned())
        .collect()
}

fn mode_option(update: &Value) -> Value {
    config_option(&update["configOptions"], "mode").unwrap()
}

#[tokio::test]
async fn set_mode_and_set_config_option_both_change_claudes_mode_and_notify_both_ways() {
    let s = Standin::new("permission_mode");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    c.wait_for_commands(Duration::from_secs(5)).await;

    c.request(
        "session/set_mode",
        json!({"sessionId": id, "modeId": "acceptEdits"}),
    )
    .await
    .unwrap();
    let sent: Vec<Value> = s
        .received()
        .into_iter()
        .filter(|l| l["request"]["subtype"] == "set_permission_mode")
        .collect();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["request"]["mode"], "acceptEdits");
    assert_eq!(mode_updates(&c, &id), vec!["acceptEdits"]);
    let options = c.updates_of_kind(&id, "config_option_update");
    assert_eq!(
        mode_option(options.last().unwrap())["currentValue"],
        "acceptEdits"
    );

    c.allow_permissions();
    assert_eq!(
        c.prompt(&id, "write one.txt").await.unwrap()["stopReason"],
        "end_turn"
    );

    let reply = c
        .request(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "mode", "value": "default"}),
        )
        .await
        .unwrap();
    assert_eq!(mode_option(&reply)["currentValue"], "default");
    assert_eq!(mode_updates(&c, &id).last().unwrap(), "default");
    let modes_sent: Vec<Value> = s
        .received()
        .into_iter()
        .filter(|l| l["request"]["subtype"] == "set_permission_mode")
        .map(|l| l["request"]["mode"].clone())
        .collect();
    assert_eq!(modes_sent, vec![json!("acceptEdits"), json!("default")]);
}

/// claude takes 12 s to start (it reads nothing before), longer than a control request's 10 s:
/// the mode the editor chooses as the session opens (answered after the product's 1.8 s wait for
/// claude's models) takes effect once claude answers, and claude's models then reach the session.
#[tokio::test]
async fn a_mode_chosen_while_claude_is_slow_to_start_takes_effect_and_its_models_arrive() {
    let s = Standin::new("slow_start");
    let c = s.adapter_with_env(&[], &[("CLAUDE_ACP_OPTIONS_WAIT_MS", "1800")]);
    c.set_timeout(Duration::from_secs(60));
    c.initialize().await;
    let opened = c.open_session(&s.work).await;
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    let reply = c
        .request(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "mode", "value": "acceptEdits"}),
        )
        .await
        .unwrap_or_else(|e| panic!("the mode change: {e}"));
    assert_eq!(mode_option(&reply)["currentValue"], "acceptEdits");
    let options = c.options_holding(&opened, "model").await;
    assert!(config_option(&options, "model").is_some(), "{options}");
}

#[tokio::test]
async fn an_unknown_mode_is_refused_clearly_and_nothing_is_sent() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let err = c
        .request(
            "session/set_mode",
            json!({"sessionId": id, "modeId": "yolo"}),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, -32602);
    assert!(
        err.message.contains("unknown mode `yolo`"),
        "{}",
        err.message
    );
    assert!(
        !s.received()
            .iter()
            .any(|l| l["request"]["subtype"] == "set_permission_mode")
    );
    assert_eq!(c.prompt(&id, "hi").await.unwrap()["stopReason"], "end_turn");
}

#[tokio::test]
async fn the_model_picker_lists_claudes_models_and_applies_the_choice() {
    let s = Standin::new("set_model");
    let c = s.adapter(&[]);
    c.initialize().await;
    let opened = c.open_session(&s.work).await;
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    // The answer carries the model picker: the first session waits for claude's models.
    let model = config_option(&opened["configOptions"], "model").unwrap();
    assert_eq!(model["category"], "model");
    let values: Vec<&str> = model["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["value"].as_str().unwrap())
        .collect();
    assert!(
        values.contains(&"opus") && values.contains(&"default"),
        "{values:?}"
    );

    let reply = c
        .request(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "model", "value": "opus"}),
        )
        .await
        .unwrap();
    let chosen = config_option(&reply["configOptions"], "model").unwrap();
    assert_eq!(chosen["currentValue"], "opus");
    let sent = s
        .received()
        .into_iter()
        .find(|l| l["request"]["subtype"] == "set_model")
        .expect("set_model sent");
    assert_eq!(sent["request"]["model"], "opus");
    assert_eq!(c.prompt(&id, "hi").await.unwrap()["stopReason"], "end_turn");

    let err = c
        .request(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "model", "value": "gpt-9"}),
        )
        .await
        .unwrap_err();
    assert!(err.message.contains("unknown model"), "{}", err.message);
}

#[tokio::test]
async fn bypass_permissions_is_offered_only_where_claude_accepts_it() {
    // claude refuses bypassPermissions as root unless IS_SANDBOX is set.
    let is_root = unsafe { libc::geteuid() } == 0;
    for sandbox in [false, true] {
        let s = Standin::new("set_permission_mode");
        let mut cmd = tokio::process::Command::new(crate::support::adapter());
        cmd.arg("--claude-path")
            .arg(&s.claude)
            .envs(s.env())
            .env_remove("IS_SANDBOX")
            .current_dir(s.dir());
        if sandbox {
            cmd.env("IS_SANDBOX", "1");
        }
        let c = crate::support::acp_client::AcpClient::from_command(cmd);
        c.initialize().await;
        let opened = c.open_session(&s.work).await;
        let offered = opened["modes"]["availableModes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"] == "bypassPermissions");
        assert_eq!(
            offered,
            sandbox || !is_root,
            "root={is_root} IS_SANDBOX={sandbox}"
        );
        let id = opened["sessionId"].as_str().unwrap();
        let result = c
            .request(
                "session/set_mode",
                json!({"sessionId": id, "modeId": "bypassPermissions"}),
            )
            .await;
        assert_eq!(result.is_ok(), offered, "{result:?}");
        let sent: Vec<Value> = s
            .received()
            .into_iter()
            .filter(|l| l["request"]["subtype"] == "set_permission_mode")
            .map(|l| l["request"]["mode"].clone())
            .collect();
        let expected = if offered {
            vec![json!("bypassPermissions")]
        } else {
            vec![]
        };
        assert_eq!(sent, expected, "claude is asked exactly when it accepts");
    }
}
