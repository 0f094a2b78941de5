//! Every config option in the answer that opens a session: mode, model and effort, from claude's
//! own `initialize` reply the first time (the session waits for it), from the options cache after
//! that; an update follows when claude's reply differs from the cache. Changing effort reaches the
//! running claude (`apply_flag_settings`) and a restarted one (`--effort`).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::{AcpClient, config_option};
use crate::support::argv::argv_value;
use crate::support::standin::Standin;

fn values(option: &Value) -> Vec<String> {
    option["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["value"].as_str().unwrap().to_owned())
        .collect()
}

/// An adapter whose first session waits for claude's models as long as a loaded machine needs
/// (the stand-in's adapters all do; the wait is 1.8 s otherwise): its answer holds them.
fn adapter(s: &Standin) -> AcpClient {
    s.adapter(&[])
}

async fn open(c: &AcpClient, s: &Standin) -> Value {
    c.open_session(&s.work).await
}

/// The options cache file the adapter wrote (there is one per claude executable).
async fn cache_file(s: &Standin) -> PathBuf {
    let dir = s.cache_dir().join("claude-acp");
    for _ in 0..250 {
        // Not the temporary file a write renames into place.
        let written = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .find(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.starts_with("options-") && name.ends_with(".json")
            });
        if let Some(entry) = written {
            return entry.path();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no options cache written in {}", dir.display());
}

#[tokio::test]
async fn the_first_answer_waits_for_claude_and_carries_every_option() {
    let s = Standin::new("text");
    let c = adapter(&s);
    c.initialize().await;
    let opened = open(&c, &s).await;
    let options = &opened["configOptions"];
    let mode = config_option(options, "mode").expect("mode option");
    assert_eq!(mode["currentValue"], "default");
    let model = config_option(options, "model").expect("model option in the answer: {opened}");
    assert_eq!(model["category"], "model");
    assert_eq!(model["currentValue"], "default");
    assert_eq!(
        values(&model),
        ["default", "opus", "fable", "sonnet", "haiku"]
    );
    let described = &model["options"][1];
    assert_eq!(described["name"], "Opus");
    assert!(
        described["description"]
            .as_str()
            .unwrap()
            .contains("Opus 5.5"),
        "{described}"
    );
    let effort = config_option(options, "effort").expect("effort option");
    assert_eq!(effort["category"], "thought_level");
    assert_eq!(effort["currentValue"], "default");
    assert_eq!(
        values(&effort),
        ["default", "low", "medium", "high", "xhigh", "max"]
    );

    let file = cache_file(&s).await;
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the cache is readable by its owner only");
    let id = opened["sessionId"].as_str().unwrap();
    assert_eq!(c.prompt(id, "hi").await.unwrap()["stopReason"], "end_turn");
}

#[tokio::test]
async fn a_later_adapter_answers_from_the_cache_and_updates_what_claude_changed() {
    let s = Standin::new("text");
    let file = {
        let first = adapter(&s);
        first.initialize().await;
        open(&first, &s).await;
        // Written off the session's loop: waited for while that adapter still runs.
        cache_file(&s).await
    };
    // What claude offered has changed since (as after a plan change): the cache says otherwise.
    let mut cached: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    cached["models"][1]["displayName"] = json!("Opus as cached");
    std::fs::write(&file, serde_json::to_vec(&cached).unwrap()).unwrap();

    let c = adapter(&s);
    c.initialize().await;
    let opened = open(&c, &s).await;
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    let model = config_option(&opened["configOptions"], "model").unwrap();
    assert_eq!(
        model["options"][1]["name"], "Opus as cached",
        "the answer comes from the cache, not from claude: {model}"
    );
    assert!(config_option(&opened["configOptions"], "effort").is_some());
    let update = c
        .wait_for_update(
            |u| u["update"]["sessionUpdate"] == "config_option_update",
            Duration::from_secs(10),
        )
        .await;
    let model = config_option(&update["update"]["configOptions"], "model").unwrap();
    assert_eq!(update["sessionId"], id.as_str());
    assert_eq!(
        model["options"][1]["name"], "Opus",
        "claude's own list follows"
    );
    assert_eq!(c.prompt(&id, "hi").await.unwrap()["stopReason"], "end_turn");
}

#[tokio::test]
async fn a_corrupt_cache_is_ignored_and_replaced() {
    let s = Standin::new("text");
    let dir = s.cache_dir().join("claude-acp");
    std::fs::create_dir_all(&dir).unwrap();
    let file = {
        let first = adapter(&s);
        first.initialize().await;
        open(&first, &s).await;
        cache_file(&s).await
    };
    std::fs::write(&file, "{\"format\": 1, \"models\": [tru").unwrap();
    let c = adapter(&s);
    c.initialize().await;
    let opened = open(&c, &s).await;
    let model = config_option(&opened["configOptions"], "model").expect("models from claude");
    assert_eq!(model["options"][1]["name"], "Opus");
    for _ in 0..250 {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        if serde_json::from_str::<Value>(&text).is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the corrupt cache was not rewritten");
}

#[tokio::test]
async fn effort_reaches_the_running_claude_and_a_restarted_one() {
    let s = Standin::new("effort");
    let c = s.adapter(&["--idle-timeout", "1"]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let reply = c
        .request(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "effort", "value": "high"}),
        )
        .await
        .unwrap();
    let effort = config_option(&reply["configOptions"], "effort").unwrap();
    assert_eq!(effort["currentValue"], "high");
    let sent = s
        .received()
        .into_iter()
        .find(|l| l["request"]["subtype"] == "apply_flag_settings")
        .expect("the running claude was told");
    assert_eq!(sent["request"]["settings"], json!({"effortLevel": "high"}));
    assert_eq!(c.prompt(&id, "hi").await.unwrap()["stopReason"], "end_turn");
    assert_eq!(s.argvs().len(), 1, "no restart for an effort change");

    // The idle stop ends that claude; the next prompt starts one with the same effort.
    s.store_conversation(&id, "hi");
    let pid = s.wait_started(1, Duration::from_secs(10)).await[0];
    assert!(
        crate::support::liveness::wait_until_gone(&[pid], Duration::from_secs(20)).await,
        "claude was stopped when idle"
    );
    assert_eq!(
        c.prompt(&id, "again").await.unwrap()["stopReason"],
        "end_turn"
    );
    let argvs = s.argvs();
    assert_eq!(argvs.len(), 2);
    assert_eq!(
        argv_value(&argvs[1], "--effort"),
        Some("high"),
        "the restarted claude keeps the effort: {:?}",
        argvs[1]
    );

    let err = c
        .request(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "effort", "value": "extreme"}),
        )
        .await
        .unwrap_err();
    assert!(err.message.contains("unknown effort"), "{}", err.message);
}

#[tokio::test]
async fn an_effort_chosen_in_meta_is_the_one_the_option_shows() {
    let s = Standin::new("text");
    let c = adapter(&s);
    c.initialize().await;
    let opened = c
        .request(
            "session/new",
            json!({"cwd": s.work, "mcpServers": [],
                   "_meta": {"claudeCode": {"options": {"effort": "low"}}}}),
        )
        .await
        .unwrap();
    let effort = config_option(&opened["configOptions"], "effort").unwrap();
    assert_eq!(effort["currentValue"], "low");
    s.wait_started(1, Duration::from_secs(10)).await;
    assert_eq!(argv_value(&s.argvs()[0], "--effort"), Some("low"));
    let id = opened["sessionId"].as_str().unwrap();
    assert_eq!(c.prompt(id, "hi").await.unwrap()["stopReason"], "end_turn");
    assert_eq!(
        c.prompt(id, "again").await.unwrap()["stopReason"],
        "end_turn"
    );
}

#[tokio::test]
async fn a_custom_agent_is_offered_and_picked_before_the_first_prompt() {
    let s = Standin::new("agent_picker");
    let c = s.adapter(&[]);
    c.initialize().await;
    let opened = open(&c, &s).await;
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    // claude's own agents are not personas: Default and the project's reviewer.
    let agent = config_option(&opened["configOptions"], "agent").expect("an Agent option");
    assert_eq!(values(&agent), ["default", "reviewer"]);
    assert_eq!(agent["currentValue"], "default");
    assert_eq!(agent["options"][1]["description"], "Reviews diffs for bugs");
    let pick = |value: &str| {
        c.request(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "agent", "value": value}),
        )
    };
    let bad = pick("nobody").await.unwrap_err();
    assert!(
        bad.message.contains("unknown agent `nobody`") && bad.message.contains("reviewer"),
        "{}",
        bad.message
    );
    let reply = pick("reviewer").await.unwrap();
    assert_eq!(
        config_option(&reply["configOptions"], "agent").unwrap()["currentValue"],
        "reviewer"
    );
    // The claude started with the session is stopped; the first prompt's runs as the reviewer.
    assert_eq!(c.prompt(&id, "hi").await.unwrap()["stopReason"], "end_turn");
    let argvs = s.argvs();
    assert_eq!(argvs.len(), 2, "{argvs:?}");
    assert_eq!(argv_value(&argvs[0], "--agent"), None);
    assert_eq!(argv_value(&argvs[1], "--agent"), Some("reviewer"));
    // Once the conversation has begun, its agent stays, and the editor is told why.
    let late = pick("default").await.unwrap_err();
    assert!(
        late.message.contains("before the first prompt"),
        "{}",
        late.message
    );
    assert!(s.problems().is_empty(), "{:?}", s.problems());
}
