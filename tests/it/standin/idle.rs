//! Idle sessions cost nothing: with `--idle-timeout 2`, a session left idle has no claude process,
//! its next prompt starts claude again on the same conversation with the session's mode and rules,
//! and a session with a turn running or a permission ask open keeps its claude.
//!
//! "Never stopped" is checked against a second session of the same adapter opened later: once that
//! one's claude is gone, the busy session's claude, idle-timed from earlier, would have been too.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::{AcpClient, choose_permission};
use crate::support::argv::argv_value;
use crate::support::liveness;
#[cfg(target_os = "linux")]
use crate::support::procs;
use crate::support::standin::Standin;

const TIMEOUT: &str = "2";
/// Long enough for the idle timeout, a clean stop and a busy machine.
const WAIT: Duration = Duration::from_secs(20);

/// Polls until `pid` has exited; panics with what the adapter logged if it does not.
async fn wait_stopped(c: &AcpClient, pid: u32, what: &str) {
    assert!(
        liveness::wait_until_gone(&[pid], WAIT).await,
        "{what}: claude (pid {pid}) still runs\n{}",
        c.diagnostics()
    );
}

/// How the stand-in process `pid` ended (`Some(0)`: it read end of input and exited by itself).
fn exit_code(s: &Standin, pid: u32) -> Option<i64> {
    s.events()
        .iter()
        .find(|e| e["event"] == "exit" && e["pid"] == pid)
        .and_then(|e| e["code"].as_i64())
}

#[tokio::test]
async fn an_idle_session_has_no_claude_and_its_next_prompt_resumes_the_conversation() {
    let s = Standin::new("resume");
    let c = s.adapter(&["--idle-timeout", TIMEOUT]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let first = c.prompt(&id, "Remember the word banana.").await.unwrap();
    assert_eq!(first["stopReason"], "end_turn");
    // claude stores the conversation with its first turn (the stand-in stores none itself).
    s.store_conversation(&id, "Remember the word banana.");
    let pid = s.wait_started(1, WAIT).await[0];

    wait_stopped(&c, pid, "after the idle timeout").await;
    // No other claude either: the adapter's children are read from /proc, on Linux.
    #[cfg(target_os = "linux")]
    {
        let claudes: Vec<u32> = procs::children_of(c.pid())
            .into_iter()
            .filter(|&p| procs::cmdline(p).is_some_and(|l| l.contains("standin")))
            .collect();
        assert!(
            claudes.is_empty(),
            "an idle session keeps no claude: {claudes:?}"
        );
    }
    assert_eq!(
        exit_code(&s, pid),
        Some(0),
        "stopped cleanly: {:?}",
        s.events()
    );

    let second = c.prompt(&id, "Which word was it?").await.unwrap();
    assert_eq!(second["stopReason"], "end_turn", "{}", c.diagnostics());
    assert_eq!(
        c.agent_text(&id),
        "The word was banana.The word was banana."
    );
    let argvs = s.argvs();
    assert_eq!(argvs.len(), 2, "claude was started again, once: {argvs:?}");
    assert_eq!(
        argv_value(&argvs[1], "--resume"),
        Some(id.as_str()),
        "the same conversation: {:?}",
        argvs[1]
    );
}

#[tokio::test]
async fn a_session_never_prompted_is_stopped_and_started_afresh_under_its_id() {
    let s = Standin::new("resume");
    let c = s.adapter(&["--idle-timeout", TIMEOUT]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let pid = s.wait_started(1, WAIT).await[0];
    wait_stopped(&c, pid, "an unused session").await;

    let stop = c.prompt(&id, "Hello?").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    let argvs = s.argvs();
    assert_eq!(argvs.len(), 2);
    assert_eq!(argv_value(&argvs[1], "--session-id"), Some(id.as_str()));
    assert_eq!(argv_value(&argvs[1], "--resume"), None, "{:?}", argvs[1]);
}

#[tokio::test]
async fn a_turn_running_past_the_timeout_keeps_its_claude() {
    let s = Standin::new("slow_turn");
    let c = s.adapter(&["--idle-timeout", TIMEOUT]);
    c.initialize().await;
    let busy = c.new_session(&s.work).await;
    let busy_pid = s.wait_started(1, WAIT).await[0];
    let (stop, ()) = tokio::join!(c.prompt(&busy, "Take your time."), async {
        // The turn is under way (claude has the prompt) before the other session opens.
        wait_received_prompts(&s, 1).await;
        let idle = c.new_session(&s.work).await;
        let idle_pid = s.wait_started(2, WAIT).await[1];
        wait_stopped(&c, idle_pid, "the idle session").await;
        assert!(
            liveness::is_alive(busy_pid),
            "the claude of a running turn was stopped\n{}",
            c.diagnostics()
        );
        let _ = idle;
    });
    assert_eq!(
        stop.unwrap()["stopReason"],
        "end_turn",
        "{}",
        c.diagnostics()
    );
    assert_eq!(c.agent_text(&busy), "The word was banana.");
    // Once the turn is over, the session is idle like any other.
    wait_stopped(&c, busy_pid, "after the turn").await;
}

#[tokio::test]
async fn a_pending_permission_keeps_its_claude() {
    let s = Standin::new("write_allow");
    let c = s.adapter(&["--idle-timeout", TIMEOUT]);
    c.initialize().await;
    let busy = c.new_session(&s.work).await;
    let busy_pid = s.wait_started(1, WAIT).await[0];
    c.hold_requests("session/request_permission");
    let (stop, ()) = tokio::join!(c.prompt(&busy, "Please create hello.txt"), async {
        let ask = c.next_request("session/request_permission").await;
        c.new_session(&s.work).await;
        let idle_pid = s.wait_started(2, WAIT).await[1];
        wait_stopped(&c, idle_pid, "the idle session").await;
        assert!(
            liveness::is_alive(busy_pid),
            "the claude of an open permission ask was stopped\n{}",
            c.diagnostics()
        );
        let allow = choose_permission("allow_once")(&ask.params).unwrap();
        c.respond(&ask.id, allow).await;
    });
    assert_eq!(
        stop.unwrap()["stopReason"],
        "end_turn",
        "{}",
        c.diagnostics()
    );
    assert!(s.work.join("hello.txt").exists(), "the allowed write ran");
}

#[tokio::test]
async fn the_mode_and_the_always_rules_survive_the_stop() {
    let s = Standin::new("mode_then_write_deny");
    let c = s.adapter(&["--idle-timeout", TIMEOUT]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    c.on_request(
        "session/request_permission",
        choose_permission("reject_always"),
    );
    c.request(
        "session/set_mode",
        json!({"sessionId": id, "modeId": "acceptEdits"}),
    )
    .await
    .unwrap();
    let stop = c.prompt(&id, "Please create hello.txt").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    s.store_conversation(&id, "Please create hello.txt");
    let pid = s.wait_started(1, WAIT).await[0];
    wait_stopped(&c, pid, "after the idle timeout").await;

    let stop = c.prompt(&id, "Please create hello.txt").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    let argvs = s.argvs();
    assert_eq!(argvs.len(), 2);
    assert_eq!(argv_value(&argvs[1], "--resume"), Some(id.as_str()));
    assert_eq!(
        argv_value(&argvs[1], "--permission-mode"),
        Some("acceptEdits"),
        "the restarted claude is in the session's mode: {:?}",
        argvs[1]
    );
    let second = second_process_lines(&s);
    let rules = second
        .iter()
        .find(|l| l["request"]["subtype"] == "apply_flag_settings")
        .map(|l| l["request"]["settings"]["permissions"]["deny"].clone());
    let expected = format!("Edit(/{}/hello.txt)", s.work.display());
    assert_eq!(
        rules,
        Some(json!([expected])),
        "the restarted claude gets the session's deny rule: {second:#?}"
    );
    let modes: Vec<Value> = c
        .updates_of_kind(&id, "current_mode_update")
        .iter()
        .map(|u| u["currentModeId"].clone())
        .collect();
    assert_eq!(
        modes,
        [json!("acceptEdits")],
        "the editor saw no other mode"
    );
}

/// Waits until the stand-in has received `n` prompts in all.
async fn wait_received_prompts(s: &Standin, n: usize) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while s.received().iter().filter(|l| l["type"] == "user").count() < n {
        assert!(tokio::time::Instant::now() < deadline, "{:?}", s.events());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// What the second claude process received.
fn second_process_lines(s: &Standin) -> Vec<Value> {
    let second = s.pids()[1];
    s.events()
        .into_iter()
        .filter(|e| e["event"] == "recv" && e["pid"] == second)
        .map(|e| e["line"].clone())
        .collect()
}

#[tokio::test]
async fn close_and_quit_work_as_usual_with_a_stopped_claude() {
    let s = Standin::new("resume");
    let c = s.adapter(&["--idle-timeout", TIMEOUT]);
    c.initialize().await;
    let closed = c.new_session(&s.work).await;
    let kept = c.new_session(&s.work).await;
    let pids = s.wait_started(2, WAIT).await;
    for &pid in &pids {
        wait_stopped(&c, pid, "after the idle timeout").await;
    }

    c.request("session/close", json!({"sessionId": closed}))
        .await
        .unwrap_or_else(|e| panic!("session/close of a stopped session: {e}"));
    c.prompt(&closed, "Hello?")
        .await
        .expect_err("a closed session takes no prompt");
    assert_eq!(s.argvs().len(), 2, "closing started no claude");

    c.close_stdin().await;
    let status = c.wait_exit(Duration::from_secs(5)).await;
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "the adapter exits 0 at EOF with a stopped session ({kept})\n{}",
        c.diagnostics()
    );
    assert_eq!(s.argvs().len(), 2, "quitting started no claude");
}
