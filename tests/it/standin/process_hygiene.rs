//! No claude is ever left behind: closing stdin, SIGTERM, session/close, a crash of claude, and an
//! editor that kills the whole tree. Checked in the process table, not only by exit codes.

use std::time::Duration;

use crate::support::acp_client::AcpClient;
use crate::support::liveness;
#[cfg(target_os = "linux")]
use crate::support::procs;
#[cfg(target_os = "linux")]
use crate::support::session_end::{End, assert_tree_gone};
use crate::support::standin::Standin;
use serde_json::json;

async fn running(fixture: &str) -> (Standin, AcpClient, String, u32) {
    let s = Standin::new(fixture);
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let pid = s.wait_started(1, Duration::from_secs(10)).await[0];
    assert!(liveness::is_alive(pid));
    (s, c, id, pid)
}

#[tokio::test]
async fn closing_stdin_ends_the_adapter_and_every_claude_within_two_seconds() {
    let (_s, c, _id, claude) = running("text").await;
    let adapter = c.pid();
    c.close_stdin().await;
    let status = c
        .wait_exit(Duration::from_secs(2))
        .await
        .expect("adapter exited within 2 s");
    assert!(status.success(), "{status:?}");
    assert!(
        liveness::wait_until_gone(&[claude, adapter], Duration::from_secs(1)).await,
        "claude left running"
    );
}

#[tokio::test]
async fn closing_stdin_mid_turn_leaves_nothing_running() {
    let (s, c, id, claude) = running("hang").await;
    let prompt = json!({"jsonrpc": "2.0", "id": 77, "method": "session/prompt",
        "params": {"sessionId": id, "prompt": [{"type": "text", "text": "hang"}]}});
    c.send_raw(&prompt.to_string()).await.unwrap();
    s.wait_received(|l| l["type"] == "user", Duration::from_secs(10))
        .await;
    c.close_stdin().await;
    assert!(
        c.wait_exit(Duration::from_secs(2)).await.is_some(),
        "adapter exited within 2 s"
    );
    assert!(liveness::wait_until_gone(&[claude], Duration::from_secs(1)).await);
}

/// The adapter gets `signal` while its claude (which ignores its stdin closing) runs: it must
/// kill that claude and exit with 128 + the signal number, the status of death by that signal.
async fn a_signal_stops_the_adapter_and_kills_claude(signal: i32) {
    let (_s, c, _id, claude) = running("text_ignoring_eof").await;
    c.signal(signal);
    let status = c
        .wait_exit(Duration::from_secs(2))
        .await
        .expect("the adapter exited within 2 s");
    assert_eq!(status.code(), Some(128 + signal), "{status:?}");
    assert!(
        liveness::wait_until_gone(&[claude], Duration::from_secs(1)).await,
        "claude left running"
    );
}

#[tokio::test]
async fn sigterm_stops_the_adapter_with_status_143_and_kills_claude() {
    a_signal_stops_the_adapter_and_kills_claude(libc::SIGTERM).await;
}

#[tokio::test]
async fn sigint_stops_the_adapter_with_status_130_and_kills_claude() {
    a_signal_stops_the_adapter_and_kills_claude(libc::SIGINT).await;
}

// Linux-only: the adapter's children are read from /proc.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn an_editor_killing_the_whole_tree_right_after_closing_stdin_is_survived() {
    // claude outlives its stdin closing, so it is still there when the editor's kill arrives.
    let (_s, c, _id, claude) = running("text_ignoring_eof").await;
    c.close_stdin().await;
    let tree = procs::children_of(c.pid());
    assert!(
        tree.contains(&claude),
        "claude {claude} is not among the adapter's children {tree:?}: nothing to kill"
    );
    // The editor SIGTERMs the adapter and its children at once: claude dies under the adapter.
    for pid in tree {
        unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    }
    c.signal(libc::SIGTERM);
    assert!(c.wait_exit(Duration::from_secs(2)).await.is_some());
    assert!(liveness::wait_until_gone(&[claude], Duration::from_secs(1)).await);
}

#[tokio::test]
async fn session_close_ends_that_claude_and_the_adapter_serves_on() {
    // A claude that ignores its stdin closing: only the adapter's kill can end it.
    let (s, c, id, claude) = running("text_ignoring_eof").await;
    c.request("session/close", json!({"sessionId": id}))
        .await
        .unwrap();
    assert!(
        liveness::wait_until_gone(&[claude], Duration::from_secs(2)).await,
        "claude still running after close"
    );
    let err = c.prompt(&id, "hi").await.unwrap_err();
    assert!(err.message.contains("unknown session"), "{}", err.message);
    let id2 = c.new_session(&s.work).await;
    assert_ne!(id, id2);
}

#[tokio::test]
async fn a_crash_mid_turn_is_an_error_with_status_and_stderr_and_the_next_prompt_resumes() {
    let (s, c, id, claude) = running("crash_then_resume").await;
    let err = c.prompt(&id, "do something").await.unwrap_err();
    assert!(
        err.message.contains("exit code 1"),
        "names the exit status: {}",
        err.message
    );
    assert!(
        err.message.contains("simulated crash"),
        "carries claude's stderr: {}",
        err.message
    );
    assert!(liveness::wait_until_gone(&[claude], Duration::from_secs(1)).await);
    // claude had stored the conversation before it died (the stand-in does not write one itself).
    s.store_conversation(&id, "do something");

    let stop = c.prompt(&id, "try again").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    let argvs = s.argvs();
    assert_eq!(argvs.len(), 2, "claude was started again");
    assert!(
        argvs[1].join(" ").contains(&format!("--resume {id}")),
        "{:?}",
        argvs[1]
    );
    assert!(
        c.agent_text(&id).contains("Resumed"),
        "{}",
        c.agent_text(&id)
    );
}

#[tokio::test]
async fn two_sessions_run_side_by_side_each_with_its_own_claude() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;
    let a = c.new_session(&s.work).await;
    let b = c.new_session(&s.work).await;
    let (ra, rb) = tokio::join!(c.prompt(&a, "hi"), c.prompt(&b, "hi"));
    assert_eq!(ra.unwrap()["stopReason"], "end_turn");
    assert_eq!(rb.unwrap()["stopReason"], "end_turn");
    assert_eq!(c.agent_text(&a), "Hello from the mock model!");
    assert_eq!(c.agent_text(&b), "Hello from the mock model!");
    let pids = s.wait_started(2, Duration::from_secs(5)).await;
    assert_ne!(pids[0], pids[1]);
    c.close_stdin().await;
    assert!(c.wait_exit(Duration::from_secs(2)).await.is_some());
    assert!(liveness::wait_until_gone(&pids, Duration::from_secs(1)).await);
}

#[tokio::test]
async fn a_trimmed_environment_without_anthropic_variables_still_works() {
    let s = Standin::new("text");
    let mut cmd = tokio::process::Command::new(crate::support::adapter());
    cmd.env_clear()
        .env("PATH", "/usr/bin:/bin")
        .arg("--claude-path")
        .arg(&s.claude)
        .envs(s.env())
        .current_dir(s.dir());
    let c = AcpClient::from_command(cmd);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    assert_eq!(c.prompt(&id, "hi").await.unwrap()["stopReason"], "end_turn");
    assert_eq!(c.agent_text(&id), "Hello from the mock model!");
}

#[tokio::test]
async fn claude_gets_the_adapters_environment_unchanged_and_runs_in_the_session_cwd() {
    let s = Standin::new("text");
    let dump = s.dir().join("claude.env");
    let wrapper = s.dir().join("claude-env-dump");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nenv > '{}'\npwd >> '{}'\nexec '{}' standin \"$@\"\n",
            dump.display(),
            dump.display(),
            s.claude.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("/usr/bin:/bin:{}", s.dir().display());
    let mut cmd = tokio::process::Command::new(crate::support::adapter());
    cmd.env_clear()
        .env("PATH", &path)
        .env("MY_EDITOR_SETTING", "kept as is")
        .envs(s.env())
        .arg("--claude-path")
        .arg(&wrapper)
        .current_dir(s.dir());
    let c = AcpClient::from_command(cmd);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    c.prompt(&id, "hi").await.unwrap();
    let seen = std::fs::read_to_string(&dump).unwrap();
    assert!(seen.lines().any(|l| l == format!("PATH={path}")), "{seen}");
    assert!(
        seen.lines().any(|l| l == "MY_EDITOR_SETTING=kept as is"),
        "{seen}"
    );
    assert_eq!(
        seen.lines().last().unwrap(),
        s.work.canonicalize().unwrap().to_str().unwrap()
    );
}

#[tokio::test]
async fn even_a_sigkilled_adapter_leaves_no_claude_behind() {
    // A claude busy in a long tool call does not notice its stdin closing, so only the kernel can
    // take it down with an adapter killed outright: this one never reads stdin at all.
    let dir = tempfile::tempdir().unwrap();
    let deaf = dir.path().join("claude");
    // It writes its pid (the shell's, kept by `exec`) where the test reads it.
    let pid_file = dir.path().join("claude.pid");
    std::fs::write(
        &deaf,
        format!(
            "#!/bin/sh\necho $$ > '{}'\nexec sleep 1000\n",
            pid_file.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&deaf, std::fs::Permissions::from_mode(0o755)).unwrap();
    let c = AcpClient::spawn(&["--claude-path", deaf.to_str().unwrap()], &[], dir.path());
    c.initialize().await;
    c.new_session(dir.path()).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let claude = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|text| text.trim().parse().ok())
        {
            break pid;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "claude did not start"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    c.signal(libc::SIGKILL);
    assert!(c.wait_exit(Duration::from_secs(2)).await.is_some());
    let gone = liveness::wait_until_gone(&[claude], Duration::from_secs(2)).await;
    if !gone {
        unsafe { libc::kill(claude as i32, libc::SIGKILL) };
    }
    assert!(gone, "claude was orphaned by a SIGKILLed adapter");
}

/// The stand-in starts a background and a foreground command each in a session of its own, as
/// claude does, and the session ends `end`: nothing of claude's tree runs 3 s later. Linux-only,
/// like the tests below: claude's process tree and its sessions are read from /proc.
#[cfg(target_os = "linux")]
async fn detached_shells_end_with_the_session(end: End) {
    let s = Standin::new("background_shells");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let prompt = json!({"jsonrpc": "2.0", "id": 77, "method": "session/prompt",
        "params": {"sessionId": id, "prompt": [{"type": "text", "text": "run them"}]}});
    c.send_raw(&prompt.to_string()).await.unwrap();
    let claude = s.wait_started(1, Duration::from_secs(10)).await[0];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let tree = loop {
        let tree = procs::tree_of(claude);
        let running = |needle: &str| {
            tree.iter()
                .any(|&(p, _)| procs::cmdline(p).is_some_and(|l| l.contains(needle)))
        };
        if running("standin-background-marker") && running("sleep 300") {
            break tree;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the shells did not start: {tree:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // The shells are in sessions of their own: claude's group alone does not reach them.
    let own_session = tree
        .iter()
        .filter(|&&(p, _)| p != claude && procs::session_of(p) != procs::session_of(claude))
        .count();
    assert!(own_session >= 2, "the shells are detached: {tree:?}");
    end.end(&c, &id).await;
    assert_tree_gone(&tree, end, || c.diagnostics()).await;
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn detached_shells_end_with_session_close() {
    detached_shells_end_with_the_session(End::Close).await;
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn detached_shells_end_when_the_editor_closes_stdin() {
    detached_shells_end_with_the_session(End::Eof).await;
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn detached_shells_end_with_session_delete() {
    detached_shells_end_with_the_session(End::Delete).await;
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn detached_shells_end_on_sigterm() {
    detached_shells_end_with_the_session(End::Sigterm).await;
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn detached_shells_end_on_sigint() {
    detached_shells_end_with_the_session(End::Sigint).await;
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn detached_shells_end_on_sighup() {
    detached_shells_end_with_the_session(End::Sighup).await;
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn detached_shells_end_even_when_the_adapter_is_sigkilled() {
    detached_shells_end_with_the_session(End::Sigkill).await;
}
