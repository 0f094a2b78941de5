//! ACP's plan operations with the real pinned claude on the mock API: an editor that declares
//! `plan` gets claude's task list as `plan_update`s of items and, once every task is deleted,
//! `plan_removed`, and plan mode's plan as a `plan_update` of Markdown with its file's path
//! (schema 1.20); an editor that does not gets the whole `plan` as before.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use super::editor_tools::turn;
use crate::support::acp_client::AcpClient;
use crate::support::json_schema;
use crate::support::mock_api::{Block, MockApi, Reply, Rule};
use crate::support::real_cli::{ClaudeEnv, pinned_version};
use crate::support::real_editor::{STEP, option_names, plan_file, write};

const PLAN_CAPABLE: &str =
    r#"{"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false, "plan": {}}"#;

/// What `params` (a `session/update`'s) breaks of schema 1.20's v1 `SessionNotification`.
fn violations_of_1_20(params: &Value) -> Vec<String> {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/acp/tests/schema_1_20/v1.json"
    );
    let mut schema: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    schema["$ref"] = json!("#/$defs/SessionNotification");
    json_schema::violations(&schema, params)
}

/// Two tasks made, the first started; then, in a second turn, both deleted. The pinned claude
/// offers its task tools only with `CLAUDE_CODE_ENABLE_TODO_TOOLS=1`.
async fn plan_then_clear(capabilities: Value) -> (MockApi, AcpClient, String) {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::for_version(&mock, pinned_version())
        .with_env("CLAUDE_CODE_ENABLE_TODO_TOOLS", "1");
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(STEP);
    let create = |subject: &str| Block::ToolUse {
        name: "TaskCreate".into(),
        input: json!({"subject": subject, "description": subject, "activeForm": subject}),
    };
    let update = |id: &str, status: &str| Block::ToolUse {
        name: "TaskUpdate".into(),
        input: json!({"taskId": id, "status": status}),
    };
    mock.push_rule(Rule::on_prompt(
        "make a plan",
        Reply::blocks(vec![create("Read the code"), create("Write the fix")]),
    ));
    mock.push_rule(Rule::on_tool_result_containing(
        "Task #2 created",
        Reply::blocks(vec![update("1", "in_progress")]),
    ));
    mock.push_rule(Rule::on_prompt(
        "drop the plan",
        Reply::blocks(vec![update("1", "deleted"), update("2", "deleted")]),
    ));
    mock.push_rule(Rule::on_tool_result(Reply::text("Done.")));
    c.initialize_with_capabilities(capabilities).await;
    let id = c.new_session(env.work_dir()).await;
    turn(&c, &id, "make a plan").await;
    turn(&c, &id, "drop the plan").await;
    (mock, c, id)
}

#[tokio::test]
async fn an_editor_that_declares_plan_gets_plan_updates_and_the_plans_removal() {
    let (_mock, c, id) = plan_then_clear(serde_json::from_str(PLAN_CAPABLE).unwrap()).await;
    assert!(
        c.updates_of_kind(&id, "plan").is_empty(),
        "{:#?}",
        c.updates(&id)
    );
    let updates = c.updates_of_kind(&id, "plan_update");
    let started = json!({"sessionUpdate": "plan_update", "plan": {"type": "items",
    "planId": "plan", "entries": [
        {"content": "Read the code", "priority": "medium", "status": "in_progress"},
        {"content": "Write the fix", "priority": "medium", "status": "pending"},
    ]}});
    assert!(
        updates.contains(&started),
        "{updates:#?}\n{}",
        c.diagnostics()
    );
    let removed = c.updates_of_kind(&id, "plan_removed");
    assert_eq!(
        removed,
        [json!({"sessionUpdate": "plan_removed", "planId": "plan"})],
        "{:#?}",
        c.updates(&id)
    );
    // Each is a valid `session/update` of the pinned schema.
    let schema = serde_json::to_value(schemars::schema_for!(
        agent_client_protocol_schema::v1::SessionNotification
    ))
    .unwrap();
    for update in updates.iter().chain(&removed) {
        let params = json!({"sessionId": id, "update": update});
        let found = json_schema::violations(&schema, &params);
        assert!(found.is_empty(), "{update}: {found:?}");
    }
}

#[tokio::test]
async fn an_editor_without_plan_gets_the_whole_plan_as_before() {
    let (_mock, c, id) = plan_then_clear(json!({"fs": {"readTextFile": false,
        "writeTextFile": false}, "terminal": false}))
    .await;
    assert!(c.updates_of_kind(&id, "plan_update").is_empty());
    assert!(c.updates_of_kind(&id, "plan_removed").is_empty());
    let plans = c.updates_of_kind(&id, "plan");
    assert_eq!(
        plans.last(),
        Some(&json!({"sessionUpdate": "plan", "entries": []})),
        "{plans:#?}"
    );
    assert!(plans.len() >= 2, "{plans:#?}");
}

#[tokio::test]
async fn an_editor_that_declares_plan_gets_plan_modes_plan_with_its_file() {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::for_version(&mock, pinned_version());
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(STEP);
    c.initialize_with_capabilities(serde_json::from_str(PLAN_CAPABLE).unwrap())
        .await;
    let id = c.new_session(env.work_dir()).await;
    c.request(
        "session/set_mode",
        json!({"sessionId": id, "modeId": "plan"}),
    )
    .await
    .unwrap();
    c.wait_for_update(
        |u| u["update"]["currentModeId"] == "plan",
        Duration::from_secs(10),
    )
    .await;
    mock.push_rule(Rule::on_prompt("hello", Reply::text("Hi.")).once());
    turn(&c, &id, "hello").await;
    let file = plan_file(&mock);
    let plan = "# Fix\n\n1. Read the code\n2. Write the fix\n";
    mock.push_rule(Rule::on_prompt("plan it", write(Path::new(&file), plan)));
    mock.push_rule(Rule::on_tool_result_containing(
        "File created",
        Reply::tool_use("ExitPlanMode", json!({})),
    ));
    mock.push_rule(Rule::on_tool_result(Reply::text("Plan approved.")));
    c.on_request("session/request_permission", |params| {
        let pick = match option_names(params).contains(&"Yes, and approve each edit".to_owned()) {
            true => "plan_approve_each_edit",
            false => "allow_once",
        };
        Ok(json!({"outcome": {"outcome": "selected", "optionId": pick}}))
    });
    turn(&c, &id, "plan it").await;
    let updates = c.updates_of_kind(&id, "plan_update");
    let expected = json!({"sessionUpdate": "plan_update", "plan": {"type": "markdown",
        "planId": "plan-file", "content": plan, "path": file}});
    assert_eq!(updates, [expected], "{}", c.diagnostics());
    let params = json!({"sessionId": id, "update": updates[0]});
    assert_eq!(violations_of_1_20(&params), Vec::<String>::new());
}
