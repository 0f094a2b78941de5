//! The process lifecycle: output in order, one exit, kills that leave no orphans, spawn options.

use std::time::Duration;

use super::*;

#[tokio::test]
async fn messages_arrive_in_order_then_one_exit_with_code_and_stderr() {
    let (_process, _handle, mut events) = ClaudeProcess::spawn(sh(r#"
        echo '{"type":"system","subtype":"init","session_id":"s1"}'
        echo 'garbage that is not json'
        echo '{"type":"some_future_type"}'
        echo '{"type":"result","subtype":"success","result":"done"}'
        echo 'Error: sk-ant-api03-TOPSECRET is invalid' >&2
        exit 3
    "#))
    .unwrap();
    let (messages, exit) = until_exit(&mut events).await;
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(matches!(&messages[0], ClaudeMessage::System(s) if s.subtype == "init"));
    assert!(
        matches!(&messages[1], ClaudeMessage::Result(r) if r.result.as_deref() == Some("done"))
    );
    assert_eq!(exit.status, "exit code 3");
    assert_eq!(exit.code, Some(3));
    assert_eq!(exit.stderr_tail, "Error: sk-ant-[REDACTED] is invalid\n");
}

#[tokio::test]
async fn a_20_mib_line_arrives_whole() {
    let (_process, _handle, mut events) = ClaudeProcess::spawn(node(
        r#"
const text = "x".repeat(20 << 20);
process.stdout.write(JSON.stringify({type: "assistant", message: {content: [{type: "text", text}]}}) + "\n");
process.stdout.write('{"type":"result","subtype":"success"}\n');
"#,
    ))
    .unwrap();
    let (messages, exit) = until_exit(&mut events).await;
    let ClaudeMessage::Assistant(a) = &messages[0] else {
        panic!("{:?}", messages[0])
    };
    let ContentBlock::Text { text } = &a.message.content[0] else {
        panic!()
    };
    assert_eq!(text.len(), 20 << 20);
    assert!(matches!(messages[1], ClaudeMessage::Result(_)));
    assert_eq!(exit.code, Some(0));
}

#[tokio::test]
async fn kill_takes_down_claudes_children_too() {
    let (process, _handle, mut events) = ClaudeProcess::spawn(sh(WITH_GRANDCHILD)).unwrap();
    let grandchild = system_field(&next_message(&mut events).await, "pid")
        .as_u64()
        .unwrap() as u32;
    assert!(!is_dead(grandchild), "the grandchild runs before the kill");
    process.kill();
    let (_, exit) = until_exit(&mut events).await;
    assert_eq!(exit.status, "killed by signal 9");
    assert_eq!(exit.code, None);
    assert!(
        wait_dead(grandchild).await,
        "grandchild {grandchild} survived"
    );
    assert!(
        !group::is_live(process.pid()),
        "a reaped group leaves the registry"
    );
    process.kill(); // again, after reaping: a no-op
}

#[tokio::test]
async fn dropping_the_process_leaves_no_orphans() {
    let (process, _handle, mut events) = ClaudeProcess::spawn(sh(WITH_GRANDCHILD)).unwrap();
    let grandchild = system_field(&next_message(&mut events).await, "pid")
        .as_u64()
        .unwrap() as u32;
    let pid = process.pid();
    drop(process);
    let (_, exit) = until_exit(&mut events).await;
    assert_eq!(exit.status, "killed by signal 9");
    assert!(wait_dead(pid).await && wait_dead(grandchild).await);
}

// Signals are Unix's; on Windows nothing but our own kill ends claude this way.
#[cfg(unix)]
#[tokio::test]
async fn a_child_killed_by_someone_else_is_reported_and_kill_still_works() {
    let (process, _handle, mut events) = ClaudeProcess::spawn(sh("exec sleep 1000")).unwrap();
    // SAFETY: signals our own child.
    assert_eq!(
        unsafe { libc::kill(process.pid() as i32, libc::SIGTERM) },
        0
    );
    let (_, exit) = until_exit(&mut events).await;
    assert_eq!(exit.status, format!("killed by signal {}", libc::SIGTERM));
    process.kill();
    process.kill();
}

#[tokio::test]
async fn shutdown_closes_stdin_first_and_kills_only_if_claude_lingers() {
    let (mut polite, _h, _events) = ClaudeProcess::spawn(sh("cat >/dev/null; exit 0")).unwrap();
    let exit = polite.shutdown(Duration::from_secs(2)).await;
    assert_eq!(exit.code, Some(0));

    let (mut stubborn, _h, _events) = ClaudeProcess::spawn(sh("exec sleep 1000")).unwrap();
    let exit = stubborn.shutdown(Duration::from_millis(100)).await;
    assert_eq!(exit.status, "killed by signal 9");
    assert_eq!(
        stubborn.wait().await,
        exit,
        "the exit is kept for later waits"
    );
}

#[tokio::test]
async fn cwd_extra_env_and_the_adapters_env_reach_claude() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = sh(
        r#"printf '{"type":"system","subtype":"env","foo":"%s","home":"%s","cwd":"%s"}\n' "$FOO" "$HOME" "$(pwd -P)""#,
    );
    opts.cwd = dir.path().to_path_buf();
    opts.extra_env = vec![("FOO".into(), "bar".into())];
    let (_process, _handle, mut events) = ClaudeProcess::spawn(opts).unwrap();
    let m = next_message(&mut events).await;
    assert_eq!(system_field(&m, "foo"), "bar");
    assert_eq!(
        system_field(&m, "home"),
        std::env::var("HOME").unwrap_or_default().as_str()
    );
    assert_eq!(
        system_field(&m, "cwd"),
        dir.path().canonicalize().unwrap().to_str().unwrap()
    );
}

#[tokio::test]
async fn a_missing_program_is_a_spawn_error_naming_it() {
    let opts = program("/nonexistent/claude", "--x", "");
    let err = ClaudeProcess::spawn(opts).err().expect("spawn fails");
    assert!(matches!(err, ClaudeError::Spawn { .. }));
    assert!(err.to_string().contains("/nonexistent/claude"), "{err}");
}

/// `kill_all_children` kills every claude in the process, so it runs in a child test process of its
/// own, where it cannot hit other tests' children.
#[test]
fn kill_all_children_kills_every_live_claude() {
    let run = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "claude::tests::process::kill_all_children_in_own_process",
        ])
        .env("CLAUDE_ACP_KILL_ALL_TEST", "1")
        .output()
        .unwrap();
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        run.status.success() && report.contains("1 passed"),
        "{report}"
    );
}

/// Kills every claude of its process, so it does its work only where
/// `kill_all_children_kills_every_live_claude` started it alone (`--include-ignored` runs it in
/// the shared test process too, where it does nothing).
#[tokio::test]
#[ignore = "run by kill_all_children_kills_every_live_claude in its own process"]
async fn kill_all_children_in_own_process() {
    if std::env::var("CLAUDE_ACP_KILL_ALL_TEST").as_deref() != Ok("1") {
        return;
    }
    let (_a, _ha, mut a_events) = ClaudeProcess::spawn(sh(WITH_GRANDCHILD)).unwrap();
    let (_b, _hb, mut b_events) = ClaudeProcess::spawn(sh(WITH_GRANDCHILD)).unwrap();
    let a_grandchild = system_field(&next_message(&mut a_events).await, "pid")
        .as_u64()
        .unwrap() as u32;
    let b_grandchild = system_field(&next_message(&mut b_events).await, "pid")
        .as_u64()
        .unwrap() as u32;
    assert_eq!(kill_all_children(), 2);
    assert_eq!(
        until_exit(&mut a_events).await.1.status,
        "killed by signal 9"
    );
    assert_eq!(
        until_exit(&mut b_events).await.1.status,
        "killed by signal 9"
    );
    assert!(wait_dead(a_grandchild).await && wait_dead(b_grandchild).await);
    assert_eq!(kill_all_children(), 0, "reaped groups are forgotten");
}
