//! Permissions end to end: the real pinned claude CLI behind the built claude-acp, driven by a scripted
//! editor. Every ask reaches the editor as it would in Zed (a permission prompt or a form), and what the
//! editor answers is what happens on disk and what the model reads in its tool_result. The MCP path
//! (`--permission-transport mcp`) and the automatic switch to it (`auto`) are exercised the same way.

mod real_cli_permissions_support;
mod support;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use real_cli_permissions_support::{
    COLOR, Editor, SIZES, bash, broken_stdio_claude, option_names, pick_by_name, plan_file,
    script_questions, script_write, write,
};
use serde_json::{Value, json};
use support::acp_client::choose_permission;
use support::mock_api::{MockApi, Reply, Rule};
use support::real_cli::ClaudeEnv;

/// Answers the two questions with prompts: Red; then Small and Large, then done.
async fn answer_questions_with_prompts(e: &Editor) {
    script_questions(e);
    e.c.on_request(
        "session/request_permission",
        pick_by_name(&["Red", "Small", "Large", "Done: Small, Large"]),
    );
    e.turn("ask me things").await;
    let asks = e.asks();
    assert_eq!(option_names(&asks[0]), ["Blue", "Red", "Dismiss"]);
    assert_eq!(asks.len(), 4, "one prompt per pick: {asks:#?}");
    assert_answers_reached_the_model(e);
}

fn assert_answers_reached_the_model(e: &Editor) {
    let result = e.tool_result();
    assert!(result.contains(&format!("\"{COLOR}\"=\"Red\"")), "{result}");
    assert!(
        result.contains(&format!("\"{SIZES}\"=\"Small, Large\"")),
        "{result}"
    );
}

/// Allow once: the editor sees the write with its diff, the file is written, the model is told.
async fn allow_once_writes_the_file(args: &[&str]) -> Editor {
    let e = Editor::start(args, false).await;
    let path = script_write(&e, "hello.txt", "Hello\n");
    e.c.on_request(
        "session/request_permission",
        choose_permission("allow_once"),
    );
    e.turn("Please create hello.txt").await;

    let asks = e.asks();
    assert_eq!(asks.len(), 1, "{asks:#?}");
    let call = &asks[0]["toolCall"];
    assert!(
        call["title"].as_str().unwrap().starts_with("Write "),
        "{call}"
    );
    assert!(
        call["title"].as_str().unwrap().ends_with("hello.txt"),
        "{call}"
    );
    assert_eq!(call["kind"], "edit", "{call}");
    let diff = call["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "diff");
    assert_eq!(diff.expect("a diff")["newText"], "Hello\n", "{call}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "Hello\n");
    assert!(
        e.tool_result().contains("File created successfully"),
        "{}",
        e.tool_result()
    );
    e
}

/// Reject once: nothing written, the model reads the rejection.
async fn reject_once_writes_nothing(args: &[&str]) {
    let e = Editor::start(args, false).await;
    let path = script_write(&e, "hello.txt", "Hello\n");
    e.c.on_request(
        "session/request_permission",
        choose_permission("reject_once"),
    );
    e.turn("Please create hello.txt").await;
    assert_eq!(e.asks().len(), 1);
    assert!(!path.exists());
    let result = e.tool_result();
    assert!(
        result.contains("The user rejected this Write call"),
        "{result}"
    );
}

#[tokio::test]
async fn allow_once_writes_the_file_and_the_model_gets_the_result() {
    allow_once_writes_the_file(&[]).await;
}

#[tokio::test]
async fn reject_once_writes_nothing_and_the_model_reads_the_rejection() {
    reject_once_writes_nothing(&[]).await;
}

/// Always allow with claude's suggestion for a command: the second identical call is not asked.
async fn always_allow_spares_the_second_identical_call(args: &[&str]) {
    let e = Editor::start(args, false).await;
    let command = "python3 -c 'print(6*7)'";
    e.mock.push_rule(Rule::on_prompt("first", bash(command)));
    e.mock.push_rule(Rule::on_prompt("second", bash(command)));
    e.mock
        .push_rule(Rule::on_tool_result(Reply::text("Ran it.")));
    e.c.on_request(
        "session/request_permission",
        choose_permission("allow_always"),
    );

    e.turn("first run").await;
    assert_eq!(e.tool_result(), "42");
    let names = option_names(&e.asks()[0]);
    assert!(
        names.iter().any(|n| n.starts_with("Always allow Bash(")),
        "{names:?}"
    );
    e.turn("second run").await;
    assert_eq!(e.tool_result(), "42");
    assert_eq!(e.mock.requests().len(), 4);
    assert_eq!(e.asks().len(), 1, "the identical call is not asked again");
}

/// "Allow all edits": the next write, to another file, is not asked and the editor shows the mode.
async fn allow_all_edits_spares_the_next_write(args: &[&str]) {
    let e = Editor::start(args, false).await;
    let (a, b) = (e.path("a.txt"), e.path("b.txt"));
    e.mock.push_rule(Rule::on_prompt("first", write(&a, "a\n")));
    e.mock
        .push_rule(Rule::on_prompt("second", write(&b, "b\n")));
    e.mock
        .push_rule(Rule::on_tool_result(Reply::text("Written.")));
    e.c.on_request(
        "session/request_permission",
        choose_permission("allow_always"),
    );

    e.turn("first file").await;
    assert_eq!(
        option_names(&e.asks()[0])[1],
        "Allow all edits in this session"
    );
    e.c.wait_for_update(
        |u| u["update"]["currentModeId"] == "acceptEdits",
        Duration::from_secs(5),
    )
    .await;
    e.turn("second file").await;
    assert_eq!(e.asks().len(), 1, "the second write is not asked");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "a\n");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "b\n");
}

/// Always reject: the same write later is denied by claude without asking, and never written.
async fn always_reject_denies_the_same_write_later_without_asking(args: &[&str]) {
    let e = Editor::start(args, false).await;
    let path = e.path("never.txt");
    e.mock
        .push_rule(Rule::on_prompt("write", write(&path, "x\n")));
    e.mock
        .push_rule(Rule::on_tool_result(Reply::text("Noted.")));
    e.c.on_request(
        "session/request_permission",
        choose_permission("reject_always"),
    );

    e.turn("write it").await;
    let first = e.tool_result();
    assert!(first.contains("rejected this Write call"), "{first}");
    e.turn("write it again").await;
    assert_eq!(
        e.asks().len(),
        1,
        "a rejected-always call is not asked again"
    );
    let second = e.tool_result();
    assert!(second.contains("denied"), "{second}");
    assert!(!path.exists());
}

#[tokio::test]
async fn always_reject_denies_the_same_write_later() {
    always_reject_denies_the_same_write_later_without_asking(&[]).await;
}

#[tokio::test]
async fn over_mcp_always_reject_denies_the_same_write_later() {
    always_reject_denies_the_same_write_later_without_asking(&["--permission-transport", "mcp"])
        .await;
}

#[tokio::test]
async fn always_allow_a_command_spares_the_second_identical_call() {
    always_allow_spares_the_second_identical_call(&[]).await;
}

#[tokio::test]
async fn allow_all_edits_spares_the_next_write_and_shows_the_mode() {
    allow_all_edits_spares_the_next_write(&[]).await;
}

#[tokio::test]
async fn ask_user_question_without_forms_asks_each_question_as_a_prompt() {
    let e = Editor::start(&[], false).await;
    answer_questions_with_prompts(&e).await;
}

#[tokio::test]
async fn ask_user_question_with_forms_is_one_form_whose_answers_reach_the_model() {
    let e = Editor::start(&[], true).await;
    script_questions(&e);
    let forms = Arc::new(Mutex::new(Vec::<Value>::new()));
    let seen = forms.clone();
    e.c.on_request("elicitation/create", move |params| {
        seen.lock().unwrap().push(params.clone());
        Ok(json!({"action": "accept",
                  "content": {"question_1": "Red", "question_2": ["Small", "Large"]}}))
    });
    e.turn("ask me things").await;

    let forms = forms.lock().unwrap().clone();
    assert_eq!(forms.len(), 1);
    let fields = &forms[0]["requestedSchema"]["properties"];
    assert_eq!(fields["question_1"]["title"], COLOR);
    assert_eq!(fields["question_2"]["title"], SIZES);
    assert!(e.asks().is_empty(), "no permission prompt besides the form");
    assert_answers_reached_the_model(&e);
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
async fn over_mcp_allow_writes_the_file() {
    allow_once_writes_the_file(&["--permission-transport", "mcp"]).await;
}

#[tokio::test]
async fn over_mcp_reject_writes_nothing() {
    reject_once_writes_nothing(&["--permission-transport", "mcp"]).await;
}

#[tokio::test]
async fn over_mcp_always_allow_a_command_spares_the_second_identical_call() {
    always_allow_spares_the_second_identical_call(&["--permission-transport", "mcp"]).await;
}

#[tokio::test]
async fn over_mcp_allow_all_edits_spares_the_next_write() {
    allow_all_edits_spares_the_next_write(&["--permission-transport", "mcp"]).await;
}

#[tokio::test]
async fn over_mcp_ask_user_question_answers_reach_the_model() {
    let e = Editor::start(&["--permission-transport", "mcp"], false).await;
    answer_questions_with_prompts(&e).await;
}

#[tokio::test]
async fn auto_recovers_from_a_broken_stdio_channel_and_asks_the_editor() {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    let wrapper = broken_stdio_claude(&env.home_dir());
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
    assert!(text.contains("[claude-acp] "), "the user is told: {text}");
    assert_eq!(e.asks().len(), 1, "the retried Write reached the editor");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "Hello\n");
    assert!(text.ends_with("Done."), "{text}");
    let retry = e
        .mock
        .requests()
        .into_iter()
        .find(|r| r.prompt_text().is_some_and(|p| p.contains("Please retry")));
    assert!(
        retry
            .expect("claude was asked to retry")
            .contains("Please create hello.txt"),
        "the restarted claude resumed the conversation"
    );
    let prompt_responses =
        e.c.transcript()
            .iter()
            .filter(|m| m["result"]["stopReason"].is_string())
            .count();
    assert_eq!(prompt_responses, 1, "one prompt, one response");
}
