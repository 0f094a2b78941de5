//! Permissions end to end: the real pinned claude CLI behind the built claude-acp, driven by a scripted
//! editor. Every ask reaches the editor as it would in Zed (a permission prompt or a form), and what the
//! editor answers is what happens on disk and what the model reads in its tool_result. The MCP path
//! (`--permission-transport mcp`) and the automatic switch to it (`auto`) are exercised the same way.

use crate::on_each_claude;
use std::path::Path;
use std::time::Duration;

use super::scenarios::{
    allow_all_edits_spares_the_next_write, allow_once_writes_the_file,
    always_allow_spares_the_second_identical_call,
    always_reject_denies_the_same_write_later_without_asking, answer_questions_with_a_form,
    answer_questions_with_prompts, cancel_while_asked_writes_nothing, reject_once_writes_nothing,
};
use crate::support::acp_client::choose_permission;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::{ClaudeEnv, pinned_version};
use crate::support::real_editor::{
    Editor, broken_stdio_claude, option_names, plan_file, script_write, write,
};
use serde_json::json;

// The scenarios that matter most, on every claude CI runs.
on_each_claude! {
    allow_once_writes_the_file_and_the_model_gets_the_result => |v| async move {
        allow_once_writes_the_file(v, &[]).await;
    };
    reject_once_writes_nothing_and_the_model_reads_the_rejection => |v| reject_once_writes_nothing(v, &[]);
    always_allow_a_command_spares_the_second_identical_call => |v| always_allow_spares_the_second_identical_call(v, &[]);
    ask_user_question_without_forms_asks_each_question_as_a_prompt => |v| async move {
        answer_questions_with_prompts(&Editor::start_on(v, &[], false).await).await;
    };
    ask_user_question_with_forms_is_one_form_whose_answers_reach_the_model => |v| answer_questions_with_a_form(v, &[]);
    cancel_while_asked_ends_the_turn_cancelled_and_writes_nothing => |v| cancel_while_asked_writes_nothing(v, &[]);
    over_mcp_allow_writes_the_file => |v| async move {
        allow_once_writes_the_file(v, &MCP).await;
    };
    auto_recovers_from_a_broken_stdio_channel_and_asks_the_editor => auto_recovers_from_a_broken_stdio_channel;
}

/// Forces the MCP permission path.
const MCP: [&str; 2] = ["--permission-transport", "mcp"];

// Every answer carries who decided it (`decisionClassification`): every claude of the range
// takes it, the ones before it was named too.
crate::on_each_claude! {
    always_reject_denies_the_same_write_later =>
        |version| always_reject_denies_the_same_write_later_without_asking(version, &[]);
    allow_all_edits_spares_the_next_write_and_shows_the_mode =>
        |version| allow_all_edits_spares_the_next_write(version, &[]);
}

#[tokio::test]
async fn over_mcp_always_reject_denies_the_same_write_later() {
    always_reject_denies_the_same_write_later_without_asking(pinned_version(), &MCP).await;
}

#[tokio::test]
async fn over_mcp_ask_user_question_with_forms_reaches_the_model() {
    answer_questions_with_a_form(pinned_version(), &MCP).await;
}

#[tokio::test]
async fn over_mcp_cancel_while_asked_ends_the_turn_cancelled_and_writes_nothing() {
    cancel_while_asked_writes_nothing(pinned_version(), &MCP).await;
}

#[tokio::test]
async fn approving_a_plan_with_auto_accept_switches_to_accept_edits() {
    let e = Editor::start(&[], false).await;
    e.switch_mode("session/set_mode", "plan").await;
    e.mock
        .push_rule(Rule::on_prompt("hello", Reply::text("Hi.")).once());
    e.turn("hello").await;
    let plan = "1. Write done.txt\n2. Stop";
    let done = e.path("done.txt");
    e.mock.push_rule(Rule::on_prompt(
        "plan it",
        write(Path::new(&plan_file(&e.mock)), plan),
    ));
    e.mock.push_rule(Rule::on_tool_result_containing(
        "File created",
        Reply::tool_use("ExitPlanMode", json!({})),
    ));
    e.mock.push_rule(Rule::on_tool_result_containing(
        "approved",
        Reply::text("Plan approved."),
    ));
    e.mock
        .push_rule(Rule::on_prompt("now write", write(&done, "done\n")));
    e.mock
        .push_rule(Rule::on_tool_result(Reply::text("Written.")));
    // The plan file itself may be asked for; the plan is approved with auto-accept.
    e.c.on_request("session/request_permission", |params| {
        let names = option_names(params);
        let pick = if names.contains(&"Yes, and auto-accept edits".to_owned()) {
            "plan_accept_edits"
        } else {
            "allow_once"
        };
        Ok(json!({"outcome": {"outcome": "selected", "optionId": pick}}))
    });

    let cursor = e.c.update_count();
    e.turn("plan it").await;
    let plan_ask = e
        .asks()
        .into_iter()
        .find(|a| option_names(a).contains(&"No, keep planning".to_owned()))
        .expect("ExitPlanMode was put before the user");
    assert_eq!(
        option_names(&plan_ask),
        [
            "Yes, and auto-accept edits",
            "Yes, and approve each edit",
            "No, keep planning"
        ]
    );
    assert!(
        plan_ask["toolCall"]
            .to_string()
            .contains("1. Write done.txt"),
        "{plan_ask}"
    );
    e.c.wait_for_update_from(
        cursor,
        |u| u["update"]["currentModeId"] == "acceptEdits",
        Duration::from_secs(5),
    )
    .await;

    let asked = e.asks().len();
    e.turn("now write the file").await;
    assert_eq!(e.asks().len(), asked, "acceptEdits: the write is not asked");
    assert_eq!(std::fs::read_to_string(&done).unwrap(), "done\n");
}

#[tokio::test]
async fn accept_edits_chosen_as_a_config_option_writes_without_asking() {
    let e = Editor::start(&[], false).await;
    e.switch_mode("session/set_config_option", "acceptEdits")
        .await;
    let path = script_write(&e, "hello.txt", "Hello\n");
    e.turn("Please create hello.txt").await;
    assert!(e.asks().is_empty(), "{:#?}", e.asks());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "Hello\n");
}

#[tokio::test]
async fn over_mcp_reject_writes_nothing() {
    reject_once_writes_nothing(pinned_version(), &MCP).await;
}

#[tokio::test]
async fn over_mcp_always_allow_a_command_spares_the_second_identical_call() {
    always_allow_spares_the_second_identical_call(pinned_version(), &MCP).await;
}

#[tokio::test]
async fn over_mcp_allow_all_edits_spares_the_next_write() {
    allow_all_edits_spares_the_next_write(pinned_version(), &MCP).await;
}

#[tokio::test]
async fn over_mcp_ask_user_question_answers_reach_the_model() {
    let e = Editor::start(&MCP, false).await;
    answer_questions_with_prompts(&e).await;
}

/// With `auto`, a claude whose stdio permission channel is gone is switched to the MCP path, and
/// the denied call is retried and reaches the editor.
async fn auto_recovers_from_a_broken_stdio_channel(version: &str) {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::for_version(&mock, version);
    let wrapper = broken_stdio_claude(&env);
    let path = env.work_dir().join("hello.txt");
    // The retry the adapter sends after the switch: claude calls Write again.
    mock.push_rule(Rule::on_prompt("Please retry", write(&path, "Hello\n")));
    mock.push_rule(Rule::on_prompt("create", write(&path, "Hello\n")));
    mock.push_rule(Rule::on_tool_result_containing(
        "File created",
        Reply::text("Done."),
    ));
    mock.push_rule(Rule::on_tool_result(Reply::text("Could not write it.")));
    let wrapper_arg = wrapper.display().to_string();
    let e = Editor::start_in(mock, env, &["--claude-path", &wrapper_arg], false).await;
    e.c.on_request(
        "session/request_permission",
        choose_permission("allow_once"),
    );

    e.turn("Please create hello.txt").await;

    let text = e.c.agent_text(&e.id);
    let diagnostics = e.c.diagnostics();
    assert!(
        text.contains("[claude-acp] "),
        "the user is told: {text}\n{diagnostics}"
    );
    assert_eq!(
        e.asks().len(),
        1,
        "the retried Write reached the editor\n{diagnostics}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).ok().as_deref(),
        Some("Hello\n"),
        "{diagnostics}"
    );
    assert!(text.ends_with("Done."), "{text}\n{diagnostics}");
    let retry = e
        .mock
        .requests()
        .into_iter()
        .find(|r| r.prompt_text().is_some_and(|p| p.contains("Please retry")));
    assert!(
        retry
            .expect("claude was asked to retry")
            .contains("Please create hello.txt"),
        "the restarted claude resumed the conversation\n{diagnostics}"
    );
    let prompt_responses =
        e.c.transcript()
            .iter()
            .filter(|m| m["result"]["stopReason"].is_string())
            .count();
    assert_eq!(prompt_responses, 1, "one prompt, one response");
}

/// claude's plan mode hands a command that writes to its safety check, which does not run here
/// (no account): claude refuses the call unjudged and says so in the turn's `permission_denials`
/// (`auto_mode_unchecked`). The call's card tells the user it was not found unsafe and that
/// another mode asks instead, where it showed the text meant for the model.
#[tokio::test]
async fn a_call_refused_without_claudes_safety_check_says_so_on_its_card() {
    let e = Editor::start(&[], false).await;
    e.switch_mode("session/set_mode", "plan").await;
    e.mock.push_rule(
        Rule::on_prompt(
            "touch it",
            crate::support::real_editor::bash("touch touched.txt"),
        )
        .once(),
    );
    e.mock
        .push_rule(Rule::on_tool_result(Reply::text("Blocked.")));
    let _ = e.c.prompt(&e.id, "touch it").await;
    assert!(!e.path("touched.txt").exists());
    assert!(e.asks().is_empty(), "{:#?}", e.asks());
    let cards: Vec<String> =
        e.c.updates_of_kind(&e.id, "tool_call_update")
            .iter()
            .map(|u| u["content"].to_string())
            .collect();
    let last = cards.last().cloned().unwrap_or_default();
    assert!(
        last.contains("it was not found unsafe") && last.contains("does not run in this session"),
        "the card's last word: {last}\n{cards:#?}"
    );
}
