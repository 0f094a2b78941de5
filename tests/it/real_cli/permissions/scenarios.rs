//! The permission scenarios of `real_cli/permissions/adapter.rs`, each run with the adapter
//! arguments it is given, so the stdio and the MCP permission transports go through the same steps.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::choose_permission;
use crate::support::mock_api::{Reply, Rule};
use crate::support::real_editor::{
    COLOR, Editor, SIZES, bash, option_names, pick_by_name, script_questions, script_write, write,
};

/// Answers the two questions with prompts: Red; then Small and Large, then done.
pub async fn answer_questions_with_prompts(e: &Editor) {
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

pub fn assert_answers_reached_the_model(e: &Editor) {
    let result = e.tool_result();
    assert!(result.contains(&format!("\"{COLOR}\"=\"Red\"")), "{result}");
    assert!(
        result.contains(&format!("\"{SIZES}\"=\"Small, Large\"")),
        "{result}"
    );
}

/// Allow once: the editor sees the write with its diff, the file is written, the model is told.
pub async fn allow_once_writes_the_file(version: &str, args: &[&str]) -> Editor {
    let e = Editor::start_on(version, args, false).await;
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
    let written = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("{err}: {}\n{}", e.tool_result(), e.c.diagnostics()));
    assert_eq!(written, "Hello\n");
    assert!(
        e.tool_result().contains("File created successfully"),
        "{}",
        e.tool_result()
    );
    e
}

/// Reject once: nothing written, the model reads the rejection.
pub async fn reject_once_writes_nothing(version: &str, args: &[&str]) {
    let e = Editor::start_on(version, args, false).await;
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

/// Always allow with claude's suggestion for a command: the second identical call is not asked.
pub async fn always_allow_spares_the_second_identical_call(version: &str, args: &[&str]) {
    let e = Editor::start_on(version, args, false).await;
    let command = "node -e 'console.log(6*7)'";
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
pub async fn allow_all_edits_spares_the_next_write(version: &str, args: &[&str]) {
    let e = Editor::start_on(version, args, false).await;
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
pub async fn always_reject_denies_the_same_write_later_without_asking(
    version: &str,
    args: &[&str],
) {
    let e = Editor::start_on(version, args, false).await;
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

/// With form elicitation: one form carries both questions, and its answers reach the model.
pub async fn answer_questions_with_a_form(version: &str, args: &[&str]) {
    let e = Editor::start_on(version, args, true).await;
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

/// `session/cancel` while the editor is asked: the turn ends cancelled, nothing is written, a late
/// "allow" from the editor changes nothing, and the next prompt works.
pub async fn cancel_while_asked_writes_nothing(version: &str, args: &[&str]) {
    let e = Editor::start_on(version, args, false).await;
    // claude puts the next prompt in the same user message as the interrupted call's tool_result.
    e.mock.push_rule(Rule::when(
        "the prompt after the cancel",
        |r| {
            r.last_user_message()
                .is_some_and(|m| m.to_string().contains("hello again"))
        },
        Reply::text("Hi again."),
    ));
    let path = script_write(&e, "hello.txt", "Hello\n");
    e.c.hold_requests("session/request_permission");
    let (stop, ask) = tokio::join!(e.c.prompt(&e.id, "Please create hello.txt"), async {
        let ask = e.c.next_request("session/request_permission").await;
        e.c.cancel(&e.id).await;
        ask
    });
    assert_eq!(stop.unwrap()["stopReason"], "cancelled");
    e.c.respond(
        &ask.id,
        json!({"outcome": {"outcome": "selected", "optionId": "allow_once"}}),
    )
    .await;
    e.turn("hello again").await;
    assert!(
        e.c.agent_text(&e.id).ends_with("Hi again."),
        "{}",
        e.c.agent_text(&e.id)
    );
    assert!(!path.exists(), "a cancelled ask is never allowed");
    assert_eq!(
        e.mock.requests().len(),
        2,
        "the cancelled turn did not call the model again"
    );
}
