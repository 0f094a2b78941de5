//! claude's skills with the real CLI through claude-acp, offline on the mock API: a v2 editor
//! that declared `session.commands.skill` (schema 1.20) gets them as `skill` entries of its
//! command list once claude has named them, and invokes one with a `skill` block; any other
//! editor gets them as the slash commands they are.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::json_schema;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use crate::support::v2_schema::schema_1_20_v2;

const STEP: Duration = Duration::from_secs(60);
/// The project skill's instructions, which reach the model when it is invoked.
const INSTRUCTIONS: &str = "Say hello in the voice of a lighthouse keeper.";

/// A session of a v2 editor that declared `capabilities`, in a project with the skill `greet`,
/// after one turn (claude names its skills at a turn's start): the adapter, the mock, the
/// session's id and the initialize answer.
async fn after_a_turn(capabilities: Value) -> (AcpClient, MockApi, ClaudeEnv, String, Value) {
    let mock = MockApi::start(vec![Rule::always(Reply::text("ok"))]);
    let env = ClaudeEnv::new(&mock);
    let skill = env.work_dir().join(".claude/skills/greet");
    std::fs::create_dir_all(&skill).unwrap();
    let text = format!("---\nname: greet\ndescription: Greets the user\n---\n{INSTRUCTIONS}\n");
    std::fs::write(skill.join("SKILL.md"), text).unwrap();
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(STEP);
    let init = json!({"protocolVersion": 2, "info": {"name": "v2-editor", "version": "1"},
        "capabilities": capabilities});
    let answer = c.request("initialize", init).await.unwrap();
    let opened = c
        .request("session/new", json!({"cwd": env.work_dir()}))
        .await
        .unwrap();
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    prompt(&c, &id, json!([{"type": "text", "text": "hello"}])).await;
    (c, mock, env, id, answer)
}

/// Sends a prompt and waits for its turn's end.
async fn prompt(c: &AcpClient, id: &str, blocks: Value) {
    let from = c.update_count();
    c.request("session/prompt", json!({"sessionId": id, "prompt": blocks}))
        .await
        .unwrap_or_else(|e| panic!("session/prompt: {e}\n{}", c.diagnostics()));
    let idle = |params: &Value| {
        params["update"]["sessionUpdate"] == "state_update" && params["update"]["state"] == "idle"
    };
    c.wait_for_update_from(from, idle, STEP).await;
}

/// The entry named `name` in the session's latest command list that has one.
fn entry(c: &AcpClient, id: &str, name: &str) -> Option<Value> {
    let lists = c.updates_of_kind(id, "available_commands_update");
    lists.iter().rev().find_map(|list| {
        let entries = list["availableCommands"].as_array()?;
        entries.iter().find(|e| e["name"] == name).cloned()
    })
}

#[tokio::test]
async fn a_v2_editor_that_takes_skills_lists_claudes_apart_and_invokes_one_with_a_skill_block() {
    let caps = json!({"session": {"commands": {"skill": {}}}});
    let (c, mock, _env, id, answer) = after_a_turn(caps).await;
    assert_eq!(
        answer["capabilities"]["session"]["prompt"]["skill"],
        json!({}),
        "{answer}"
    );
    let is_greet_skill = |params: &Value| {
        params["update"]["availableCommands"]
            .as_array()
            .is_some_and(|a| {
                a.iter()
                    .any(|e| e["name"] == "greet" && e["type"] == "skill")
            })
    };
    let note = c.wait_for_update(is_greet_skill, STEP).await;
    let faults = json_schema::violations(&schema_1_20_v2("SessionUpdate"), &note["update"]);
    assert!(faults.is_empty(), "{faults:#?}\n{note}");
    let greet = entry(&c, &id, "greet").unwrap();
    assert_eq!(
        greet,
        json!({"type": "skill", "name": "greet",
        "description": "Greets the user (project)"})
    );
    // claude's own commands stay commands.
    assert_eq!(entry(&c, &id, "init").unwrap()["type"], "command");

    prompt(
        &c,
        &id,
        json!([{"type": "skill", "name": "greet"}, {"type": "text", "text": "the crew"}]),
    )
    .await;
    assert!(
        mock.any_request_contains(INSTRUCTIONS),
        "the skill ran: {}",
        c.diagnostics()
    );
}

#[tokio::test]
async fn an_editor_that_takes_no_skills_gets_them_as_commands() {
    let (c, _mock, _env, id, answer) = after_a_turn(json!({})).await;
    assert!(
        answer["capabilities"]["session"]["prompt"]["skill"].is_null(),
        "{answer}"
    );
    let greet = entry(&c, &id, "greet").unwrap_or_else(|| panic!("{}", c.diagnostics()));
    assert_eq!(greet["type"], "command", "{greet}");
    let lists = c.updates_of_kind(&id, "available_commands_update");
    assert_eq!(lists.len(), 1, "told once: {lists:#?}");
}
