//! Config options with the real claude: every option in the `session/new` answer, from claude
//! itself the first time and from the options cache afterwards; an effort chosen in the editor
//! reaches the model's requests (`output_config.effort`) on the running claude, and on the one
//! started again after an idle stop.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::{AcpClient, config_option};
#[cfg(target_os = "linux")]
use crate::support::liveness;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
#[cfg(target_os = "linux")]
use crate::support::real_session::claude_pid;

fn option(options: &Value, id: &str) -> Value {
    config_option(options, id)
        .unwrap_or_else(|| panic!("no {id} option in {options}"))
        .clone()
}

fn adapter(env: &ClaudeEnv, args: &[&str]) -> AcpClient {
    let mut command = env.command(crate::support::adapter());
    command.args(args);
    let c = AcpClient::from_command(command);
    c.set_timeout(Duration::from_secs(60));
    c
}

async fn open(c: &AcpClient, env: &ClaudeEnv) -> Value {
    c.initialize().await;
    let params = json!({"cwd": env.work_dir(), "mcpServers": []});
    c.request("session/new", params).await.unwrap()
}

#[tokio::test]
async fn every_option_is_in_the_answer_first_from_claude_then_from_the_cache() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("ok"))]);
    let env = ClaudeEnv::new(&mock);
    let first = adapter(&env, &[]);
    let started = std::time::Instant::now();
    let opened = open(&first, &env).await;
    let answered = started.elapsed();
    // The first session may wait for claude at most OPTIONS_WAIT (1.8 s): a claude starting cold
    // takes longer, and its options then come in the update that follows.
    let options = first.options_holding(&opened, "model").await;
    eprintln!(
        "first session/new answered in {answered:?}, models in it: {}",
        options == opened["configOptions"]
    );
    assert!(
        answered < Duration::from_secs(10),
        "the wait is bounded: {answered:?}"
    );
    let model = option(&options, "model");
    let names: Vec<&str> = model["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["value"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"default") && names.contains(&"opus"),
        "{names:?}"
    );
    assert_eq!(model["currentValue"], "default");
    let effort = option(&options, "effort");
    assert_eq!(effort["category"], "thought_level");
    assert!(
        effort["options"].to_string().contains("\"high\""),
        "claude's levels for its default model: {effort}"
    );
    // Written off the session's loop once claude answered.
    let dir = env.home_dir().join(".cache/claude-acp");
    let mut file = None;
    for _ in 0..500 {
        file = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "json"));
        if file.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let file = file.unwrap_or_else(|| panic!("no options cache in {}", dir.display()));
    drop(first);
    let mut cached: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(
        cached["claude_code_version"],
        crate::support::real_cli::pinned_version()
    );
    cached["models"][0]["displayName"] = json!("Default, as cached");
    std::fs::write(&file, serde_json::to_vec(&cached).unwrap()).unwrap();

    let second = adapter(&env, &[]);
    let opened = open(&second, &env).await;
    let model = option(&opened["configOptions"], "model");
    assert_eq!(
        model["options"][0]["name"], "Default, as cached",
        "a later adapter answers from the cache: {model}"
    );
    let update = second
        .wait_for_update(
            |u| u["update"]["sessionUpdate"] == "config_option_update",
            Duration::from_secs(30),
        )
        .await;
    let model = option(&update["update"]["configOptions"], "model");
    assert_ne!(
        model["options"][0]["name"], "Default, as cached",
        "claude's own list follows"
    );
}

// Linux-only: claude's process, kept and then stopped, is found in /proc.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn an_effort_chosen_in_the_editor_reaches_the_model_and_survives_a_restart() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("ok"))]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env, &["--idle-timeout", "2"]);
    let opened = open(&c, &env).await;
    let id = opened["sessionId"].as_str().unwrap().to_owned();

    c.prompt(&id, "first").await.unwrap();
    let before = mock.requests().last().unwrap().body["output_config"]["effort"].clone();
    assert_ne!(
        before,
        json!("low"),
        "the test needs a default other than low"
    );
    let reply = c
        .request(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "effort", "value": "low"}),
        )
        .await
        .unwrap();
    assert_eq!(
        option(&reply["configOptions"], "effort")["currentValue"],
        "low"
    );
    let pid = claude_pid(c.pid()).expect("claude runs");
    c.prompt(&id, "second").await.unwrap();
    assert_eq!(
        mock.requests().last().unwrap().body["output_config"]["effort"],
        "low",
        "the running claude asks the model with the new effort"
    );
    assert_eq!(claude_pid(c.pid()), Some(pid), "without a restart");

    assert!(
        liveness::wait_until_gone(&[pid], Duration::from_secs(30)).await,
        "claude stops when idle"
    );
    c.prompt(&id, "third").await.unwrap();
    assert_eq!(
        mock.requests().last().unwrap().body["output_config"]["effort"],
        "low",
        "the claude started again keeps the effort"
    );
}
