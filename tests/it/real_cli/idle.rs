//! Idle sessions with the real claude (`--idle-timeout 2`): once idle, the session has no claude
//! process; the next prompt brings it back on the same conversation (the model's request carries
//! the earlier turns), in the session's mode, with its "always reject" rule in force.

use std::time::Duration;

use crate::support::acp_client::choose_permission;
use crate::support::liveness;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::procs;
use crate::support::real_cli::ClaudeEnv;
use crate::support::real_editor::{Editor, bash, write};
use crate::support::real_session::claude_pid;

const FIRST_PROMPT: &str = "Remember the secret word pineapple.";
const FIRST_ANSWER: &str = "Noted: pineapple.";
const COMMAND: &str = "node -e 'console.log(6*7)'";

/// Polls until the session's claude has been stopped for being idle.
async fn wait_idle_stop(e: &Editor) {
    let pid = claude_pid(e.c.pid()).expect("claude runs while the session is fresh from a turn");
    assert!(
        liveness::wait_until_gone(&[pid], Duration::from_secs(30)).await,
        "claude (pid {pid}) still runs after the idle timeout\n{}",
        e.c.diagnostics()
    );
    assert_eq!(
        claude_pid(e.c.pid()),
        None,
        "an idle session has no claude process"
    );
}

#[tokio::test]
async fn an_idle_sessions_claude_stops_and_comes_back_with_history_mode_and_rules() {
    let mock = MockApi::start(vec![
        Rule::on_prompt("secret word pineapple", Reply::text(FIRST_ANSWER)),
        Rule::on_prompt("run it", bash(COMMAND)),
    ]);
    let env = ClaudeEnv::new(&mock);
    let e = Editor::start_in(mock, env, &["--idle-timeout", "2"], false).await;
    let created = e.path("created.txt");
    e.mock
        .push_rule(Rule::on_prompt("create", write(&created, "made\n")));
    e.mock
        .push_rule(Rule::on_tool_result(Reply::text("Noted.")));
    e.c.on_request(
        "session/request_permission",
        choose_permission("reject_always"),
    );

    e.turn(FIRST_PROMPT).await;
    e.switch_mode("session/set_mode", "acceptEdits").await;
    e.turn("run it").await;
    assert_eq!(e.asks().len(), 1, "the command was asked about once");
    wait_idle_stop(&e).await;

    e.turn("Which word? And run it again.").await;
    let last = e
        .mock
        .requests()
        .into_iter()
        .rev()
        .find(|r| r.prompt_text().is_some());
    let last = last.expect("the prompt reached the model");
    assert!(
        last.contains(FIRST_PROMPT) && last.contains(FIRST_ANSWER),
        "the model sees the earlier turns: {}",
        serde_json::to_string(last.messages()).unwrap()
    );
    assert_eq!(
        e.asks().len(),
        1,
        "the session's always-reject rule holds in the restarted claude"
    );
    let result = e.tool_result();
    assert!(result.contains("denied"), "{result}");

    wait_idle_stop(&e).await;
    e.turn("Please create the file.").await;
    assert_eq!(e.asks().len(), 1, "acceptEdits: the write is not asked");
    assert_eq!(std::fs::read_to_string(&created).unwrap(), "made\n");
}

/// The processes under `pid` whose command line contains `needle`.
fn descendants_running(pid: u32, needle: &str) -> Vec<u32> {
    procs::children_of(pid)
        .into_iter()
        .filter(|&p| procs::cmdline(p).is_some_and(|line| line.contains(needle)))
        .collect()
}

#[tokio::test]
async fn a_background_command_still_running_keeps_its_claude() {
    let mock = MockApi::start(vec![Rule::on_prompt(
        "in the background",
        Reply::tool_use(
            "Bash",
            serde_json::json!({"command": "sleep 8", "description": "Wait",
                               "run_in_background": true}),
        ),
    )]);
    let env = ClaudeEnv::new(&mock);
    let e = Editor::start_in(mock, env, &["--idle-timeout", "2"], false).await;
    e.mock
        .push_rule(Rule::on_tool_result(Reply::text("Started.")));
    e.mock.push_rule(Rule::always(Reply::text("Fine.")));
    e.c.on_request(
        "session/request_permission",
        choose_permission("allow_once"),
    );
    e.turn("Wait 8 seconds in the background.").await;
    let claude = claude_pid(e.c.pid()).expect("claude runs");
    let command = descendants_running(claude, "sleep 8");
    assert!(!command.is_empty(), "the background command runs");

    // For as long as the command runs (four idle timeouts), so does its claude; a claude stopped
    // meanwhile would take the command with it, so it must still be there when the command ends.
    while command.iter().any(|&pid| liveness::is_alive(pid)) {
        assert!(
            liveness::is_alive(claude),
            "the claude of a running background command was stopped\n{}",
            e.c.diagnostics()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        liveness::is_alive(claude),
        "claude was stopped with its background command\n{}",
        e.c.diagnostics()
    );
    // Once the command is done, nothing keeps the session up.
    assert!(
        liveness::wait_until_gone(&[claude], Duration::from_secs(40)).await,
        "claude still runs after its background command ended\n{}",
        e.c.diagnostics()
    );
}
