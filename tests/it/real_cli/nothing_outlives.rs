//! Nothing a session started outlives it, with the real claude: claude runs a Bash command in the
//! background (`tail -f`, which never ends by itself) and another in the foreground (`sleep`), each
//! in a shell of its own session and process group, and the session ends while both run. However
//! it ends (the editor's `session/close`, its closing claude-acp's stdin, SIGTERM, or SIGKILL of
//! claude-acp), no process of the session's tree runs 3 s later. Processes are named by pid and
//! start time, so a pid reused meanwhile is not mistaken for a survivor.

use std::time::Duration;

use serde_json::json;

use crate::support::acp_client::choose_permission;
use crate::support::mock_api::{Reply, Rule};
use crate::support::procs;
use crate::support::real_editor::Editor;
use crate::support::real_session::claude_pid;
use crate::support::session_end::{End, assert_tree_gone};

/// Polls until claude's tree has a process whose command line holds each of `needles`.
async fn tree_running(claude: u32, needles: &[&str], e: &Editor) -> Vec<(u32, u64)> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(40);
    loop {
        let tree = procs::tree_of(claude);
        let has = |needle: &str| {
            tree.iter()
                .any(|&(p, _)| procs::cmdline(p).is_some_and(|l| l.contains(needle)))
        };
        if needles.iter().all(|n| has(n)) {
            return tree;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "claude's tree never ran {needles:?}: {:?}\nthe model was asked: {:?}\n{}",
            tree.iter()
                .map(|&(p, _)| procs::cmdline(p))
                .collect::<Vec<_>>(),
            e.mock
                .requests()
                .iter()
                .map(|r| (
                    r.prompt_text(),
                    r.tool_results()
                        .iter()
                        .map(|t| t.text.clone())
                        .collect::<Vec<_>>()
                ))
                .collect::<Vec<_>>(),
            e.c.diagnostics()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn background_and_foreground_commands_end_with_the_session(end: End) {
    let e = Editor::start(&[], false).await;
    let log = e.path("watched.log");
    std::fs::write(&log, "first line\n").unwrap();
    let tail = format!("tail -f {}", log.display());
    e.mock.push_rule(Rule::on_prompt(
        "watch the log",
        Reply::tool_use(
            "Bash",
            json!({"command": tail, "description": "Watch the log", "run_in_background": true}),
        ),
    ));
    e.mock.push_rule(Rule::on_prompt(
        "wait a while",
        Reply::tool_use(
            "Bash",
            json!({"command": "echo waiting && sleep 300", "description": "Wait"}),
        ),
    ));
    e.mock
        .push_rule(Rule::on_tool_result(Reply::text("Watching.")));
    e.c.on_request(
        "session/request_permission",
        choose_permission("allow_once"),
    );
    e.turn("Please watch the log.").await;
    let claude = claude_pid(e.c.pid()).expect("claude runs");
    tree_running(claude, &[&tail], &e).await;

    let prompt = json!({"jsonrpc": "2.0", "id": 4242, "method": "session/prompt",
        "params": {"sessionId": e.id, "prompt": [{"type": "text", "text": "Now wait a while."}]}});
    e.c.send_raw(&prompt.to_string()).await.unwrap();
    let tree = tree_running(claude, &[&tail, "sleep 300"], &e).await;
    let detached = tree
        .iter()
        .filter(|&&(p, _)| procs::session_of(p) != procs::session_of(claude))
        .count();
    assert!(
        detached >= 2,
        "claude starts its shells in sessions of their own: {tree:?}"
    );

    end.end(&e.c, &e.id).await;
    assert_tree_gone(&tree, end, || e.c.diagnostics()).await;
}

#[tokio::test]
async fn claudes_commands_end_with_session_close() {
    background_and_foreground_commands_end_with_the_session(End::Close).await;
}

#[tokio::test]
async fn claudes_commands_end_when_the_editor_closes_stdin() {
    background_and_foreground_commands_end_with_the_session(End::Eof).await;
}

#[tokio::test]
async fn claudes_commands_end_on_sigterm() {
    background_and_foreground_commands_end_with_the_session(End::Sigterm).await;
}

#[tokio::test]
async fn claudes_commands_end_even_when_the_adapter_is_sigkilled() {
    background_and_foreground_commands_end_with_the_session(End::Sigkill).await;
}
