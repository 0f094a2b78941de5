//! ACP's plan operations with the real pinned claude on the mock API: an editor that declares
//! `plan` gets claude's task list as `plan_update`s of items and, once every task is deleted,
//! `plan_removed`; an editor that does not gets the whole `plan` as before.

use serde_json::{Value, json};

use super::editor_tools::turn;
use crate::support::acp_client::AcpClient;
use crate::support::json_schema;
use crate::support::mock_api::{Block, MockApi, Reply, Rule};
use crate::support::real_cli::{ClaudeEnv, pinned_version};
use crate::support::real_editor::STEP;

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
    let (_mock, c, id) = plan_then_clear(json!({"fs": {"readTextFile": false,
        "writeTextFile": false}, "terminal": false, "plan": {}}))
    .await;
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
