//! The model picker tells the truth for the whole session: a model chosen up front by the client
//! (`_meta.claudeCode.options.model`, i.e. `--model`) is the one the picker shows, and a model
//! chosen in the picker is kept when claude has to be started again.

use std::time::Duration;

use crate::support::acp_client::config_option;
use crate::support::argv::argv_value;
use crate::support::standin::Standin;
use serde_json::{Value, json};

/// The model option of a `configOptions` list.
fn model_option(options: &Value) -> Value {
    config_option(options, "model")
        .unwrap_or_else(|| panic!("no model option in {options}"))
        .clone()
}

#[tokio::test]
async fn a_model_chosen_in_meta_is_the_one_the_picker_shows() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;
    let opened = c
        .request(
            "session/new",
            json!({"cwd": s.work, "mcpServers": [],
                   "_meta": {"claudeCode": {"options": {"model": "opus"}}}}),
        )
        .await
        .unwrap();
    s.wait_started(1, Duration::from_secs(10)).await;
    assert_eq!(argv_value(&s.argvs()[0], "--model"), Some("opus"));
    let model = model_option(&opened["configOptions"]);
    assert_eq!(
        model["currentValue"], "opus",
        "claude runs opus, the picker must say so: {model}"
    );
}

#[tokio::test]
async fn a_model_chosen_in_the_picker_survives_a_claude_restart() {
    let s = Standin::new("crash_then_resume");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let reply = c
        .request(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "model", "value": "opus"}),
        )
        .await
        .unwrap();
    assert_eq!(
        model_option(&reply["configOptions"])["currentValue"],
        "opus"
    );

    c.prompt(&id, "do something").await.unwrap_err();
    // claude had stored the conversation before it died (the stand-in does not write one itself).
    s.store_conversation(&id, "do something");
    let stop = c.prompt(&id, "try again").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    let argvs = s.argvs();
    assert_eq!(argvs.len(), 2, "claude was started again");
    assert_eq!(
        argv_value(&argvs[1], "--model"),
        Some("opus"),
        "the restarted claude runs the chosen model: {:?}",
        argvs[1]
    );
    assert!(
        c.updates_of_kind(&id, "config_option_update")
            .iter()
            .all(|u| model_option(&u["configOptions"])["currentValue"] == "opus"),
        "no update says otherwise after the restart"
    );
}
