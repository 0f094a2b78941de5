//! ACP's `subagents` with the real pinned claude on the mock API: a subagent is announced to a
//! client that declared the capability, its own words and tool calls are its child session's and
//! its report comes back to the parent as a `session_message` from the child (a client without
//! the capability sees only its tool calls, on the parent), and `session/cancel`
//! on its child session stops that subagent only (claude's `stop_task`): its Task call fails,
//! the turn goes on to `end_turn`.

use std::time::Duration;

use serde_json::{Value, json};

use super::editor_tools::{adapter_on_mock, asks};
use crate::support::acp_client::AcpClient;
use crate::support::json_schema;
use crate::support::mock_api::{Block, MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use crate::support::v2_schema::violations_1_20_v1;

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

/// A foreground subagent that thinks, says something and writes a file (asked of the user),
/// started by the main agent, whose turn ends once the subagent reports.
async fn run_a_writing_subagent(capabilities: Value) -> (MockApi, ClaudeEnv, AcpClient, String) {
    let (mock, env, c) = adapter_on_mock(&[]);
    let notes = env.work_dir().join("notes.txt");
    mock.push_rule(Rule::on_prompt(
        "SUBAGENT-PROMPT",
        Reply::blocks(vec![
            Block::Thinking("SUB-THINKING about the notes".into()),
            Block::Text("SUB-TEXT: writing the notes".into()),
            Block::ToolUse {
                name: "Write".into(),
                input: json!({"file_path": notes, "content": "noted\n"}),
            },
        ]),
    ));
    // The main agent's Agent result holds the subagent's report; the subagent's Write result not.
    mock.push_rule(Rule::on_tool_result_containing(
        "SUB-REPORT",
        Reply::text("Main got the result."),
    ));
    mock.push_rule(Rule::on_tool_result(Reply::text(
        "SUB-REPORT: notes written",
    )));
    mock.push_rule(Rule::on_prompt(
        "start the helper",
        Reply::tool_use(
            "Agent",
            json!({"description": "Write notes", "prompt": "SUBAGENT-PROMPT: write the notes",
                "subagent_type": "general-purpose", "run_in_background": false}),
        ),
    ));
    c.allow_permissions();
    c.initialize_with_capabilities(capabilities).await;
    let id = c.new_session(env.work_dir()).await;
    let stop = c.prompt(&id, "start the helper").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "noted\n");
    (mock, env, c, id)
}

#[tokio::test]
async fn a_subagents_words_and_tool_calls_are_its_child_sessions() {
    let (_mock, _env, c, id) = run_a_writing_subagent(
        json!({"fs": {"readTextFile": false, "writeTextFile": false},
        "terminal": false, "subagents": {}}),
    )
    .await;
    let announced = c.updates_of_kind(&id, "subagent_update");
    let child = announced[0]["sessionId"].as_str().unwrap().to_owned();
    let on_child = c.updates(&child);
    // Its instructions, as the message its parent sent it.
    let message = on_child
        .iter()
        .find(|u| u["sessionUpdate"] == "session_message")
        .unwrap_or_else(|| panic!("no session_message: {on_child:#?}"));
    assert_eq!(message["senderSessionId"], id.as_str(), "{message}");
    assert_eq!(message["recipientSessionId"], child.as_str(), "{message}");
    assert_eq!(
        message["content"],
        json!([{"type": "text", "text": "SUBAGENT-PROMPT: write the notes"}])
    );
    // Its thinking and text, report included, on the child only.
    assert_eq!(c.thought_text(&child), "SUB-THINKING about the notes");
    assert_eq!(
        c.agent_text(&child),
        "SUB-TEXT: writing the notesSUB-REPORT: notes written"
    );
    assert!(!c.agent_text(&id).contains("SUB-"), "{}", c.agent_text(&id));
    assert!(!c.thought_text(&id).contains("SUB-"));
    // Its report comes back to the parent as the message the parent received from the child
    // (claude's hand-back frame left out), after the subagent's card ended.
    let reports = c.updates_of_kind(&id, "session_message");
    assert_eq!(reports.len(), 1, "{:#?}", c.updates(&id));
    let report = &reports[0];
    assert_eq!(report["senderSessionId"], child.as_str(), "{report}");
    assert_eq!(report["recipientSessionId"], id.as_str(), "{report}");
    assert_eq!(
        report["content"],
        json!([{"type": "text", "text": "SUB-REPORT: notes written"}])
    );
    let notification = json!({"sessionId": id, "update": report});
    assert_eq!(
        violations_1_20_v1("SessionNotification", &notification),
        Vec::<String>::new()
    );
    // Its Write is the child's card, ended there; the parent keeps the subagent's own card.
    let write = c.tool_calls(&child);
    assert_eq!(write.len(), 1, "{write:#?}");
    assert_eq!(write[0]["kind"], "edit", "{}", write[0]);
    let write_id = write[0]["toolCallId"].as_str().unwrap();
    assert_eq!(
        c.tool_call_state(&child, write_id).unwrap()["status"],
        "completed"
    );
    let parent_calls = c.tool_calls(&id);
    assert_eq!(parent_calls.len(), 1, "{parent_calls:#?}");
    assert_eq!(parent_calls[0]["kind"], "think", "{}", parent_calls[0]);
    // The Write was asked on the child session, where its card is.
    let asked = asks(&c);
    assert_eq!(asked.len(), 1, "{asked:#?}");
    assert_eq!(asked[0]["sessionId"], child.as_str(), "{}", asked[0]);
    assert_eq!(asked[0]["toolCall"]["toolCallId"], write_id);
    // Every child update is a valid `session/update` of the pinned schema.
    let schema = serde_json::to_value(schemars::schema_for!(
        agent_client_protocol_schema::v1::SessionNotification
    ))
    .unwrap();
    for update in &on_child {
        let params = json!({"sessionId": child, "update": update});
        let found = json_schema::violations(&schema, &params);
        assert!(found.is_empty(), "{update}: {found:?}");
    }
}

#[tokio::test]
async fn without_the_capability_a_subagent_shows_only_its_tool_calls_on_the_parent() {
    let (mock, _env, c, id) = run_a_writing_subagent(
        json!({"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false}),
    )
    .await;
    assert!(
        c.updates_of_kind(&id, "subagent_update").is_empty(),
        "{:#?}",
        c.updates(&id)
    );
    // Only the session's own updates: nothing went to a child session.
    let sessions: std::collections::BTreeSet<String> = c
        .transcript()
        .iter()
        .filter(|n| n["method"] == "session/update")
        .filter_map(|n| n["params"]["sessionId"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(sessions.into_iter().collect::<Vec<_>>(), [id.as_str()]);
    assert_eq!(c.agent_text(&id), "Main got the result.");
    assert_eq!(c.thought_text(&id), "");
    assert!(c.updates_of_kind(&id, "session_message").is_empty());
    let calls = c.tool_calls(&id);
    let kinds: Vec<&Value> = calls.iter().map(|call| &call["kind"]).collect();
    assert_eq!(kinds, [&json!("think"), &json!("edit")], "{calls:#?}");
    // The subagent's call is linked to the Agent call that runs it.
    assert_eq!(
        calls[1]["_meta"]["claudeCode"]["parentToolUseId"], calls[0]["toolCallId"],
        "{}",
        calls[1]
    );
    assert_eq!(asks(&c)[0]["sessionId"], id.as_str());
    assert!(mock.any_request_contains("SUBAGENT-PROMPT"));
}
