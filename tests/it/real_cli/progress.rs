//! Signs of life with the real claude: a command that runs for over 30 s shows that it runs (in
//! progress once claude starts it) and how long it has run (claude 2.1.332's `tool_progress`
//! heartbeat, every 30 s), then its result.

use std::time::Duration;

use crate::support::acp_client::choose_permission;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use crate::support::real_editor::{Editor, bash};

/// claude refuses a plain `sleep 35` (it wants Monitor for waiting): a program that takes 35 s.
const COMMAND: &str = "node -e 'setTimeout(() => {}, 35000)'; echo finally";

#[tokio::test]
async fn a_long_command_shows_progress_while_it_runs() {
    let mock = MockApi::start(vec![
        Rule::on_prompt("run the slow one", bash(COMMAND)),
        Rule::on_tool_result(Reply::text("It finished.")),
    ]);
    let env = ClaudeEnv::new(&mock);
    let e = Editor::start_in(mock, env, &[], false).await;
    e.c.on_request(
        "session/request_permission",
        choose_permission("allow_once"),
    );
    e.c.set_timeout(Duration::from_secs(120));
    e.turn("run the slow one").await;

    let call =
        e.c.tool_calls(&e.id)
            .into_iter()
            .find(|c| c["rawInput"]["command"] == COMMAND)
            .expect("the command's tool call");
    let id = call["toolCallId"].as_str().unwrap();
    let updates: Vec<_> =
        e.c.updates_of_kind(&e.id, "tool_call_update")
            .into_iter()
            .filter(|u| u["toolCallId"] == id)
            .collect();
    assert_eq!(
        updates[0]["status"], "in_progress",
        "in progress as soon as claude starts it: {updates:#?}"
    );
    let progress: Vec<_> = updates
        .iter()
        .filter(|u| u["_meta"]["claudeCode"]["elapsedSeconds"].is_number())
        .collect();
    assert!(
        !progress.is_empty(),
        "progress while the command ran: {updates:#?}"
    );
    let first = progress[0];
    assert_eq!(first["status"], "in_progress");
    assert_eq!(first["_meta"]["claudeCode"]["elapsedSeconds"], 30.0);
    assert_eq!(
        first["content"][0]["content"]["text"], "Running for 30 s…",
        "{first}"
    );
    let last = updates.last().unwrap();
    assert_eq!(last["status"], "completed", "the result comes last: {last}");
    assert!(last["content"].to_string().contains("finally"), "{last}");
}
