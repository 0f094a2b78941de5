//! Tests that spawn real (small) child processes in place of claude.

mod process;
mod requests;

use std::time::Duration;

use super::EventReceiver;
use serde_json::Value;

use super::wire::{ClaudeMessage, ContentBlock, OutboundControl};
use super::*;

pub(super) const EVENT_WAIT: Duration = Duration::from_secs(5);

pub(super) fn program(program: &str, flag: &str, script: &str) -> SpawnOptions {
    SpawnOptions {
        command: ClaudeCommand {
            program: program.into(),
            prefix_args: vec![flag.into(), script.into()],
        },
        cwd: std::env::temp_dir(),
        args: vec![],
        extra_env: vec![],
    }
}

pub(super) fn sh(script: &str) -> SpawnOptions {
    program("sh", "-c", script)
}

/// A node script: node comes with npm, which the tests need anyway (README, "Tests"); nothing
/// assumes Python.
pub(super) fn node(script: &str) -> SpawnOptions {
    program("node", "-e", script)
}

/// Every message, then the one exit; checks nothing follows the exit.
pub(super) async fn until_exit(events: &mut EventReceiver) -> (Vec<ClaudeMessage>, ExitInfo) {
    let mut messages = Vec::new();
    loop {
        match tokio::time::timeout(EVENT_WAIT, events.recv())
            .await
            .expect("an event in time")
        {
            Some(ClaudeEvent::Message(m)) => messages.push(m),
            Some(ClaudeEvent::Exited(info)) => {
                let after = tokio::time::timeout(EVENT_WAIT, events.recv())
                    .await
                    .expect("the channel closes");
                assert_eq!(after, None, "nothing after Exited");
                return (messages, info);
            }
            None => panic!("channel closed without Exited"),
        }
    }
}

pub(super) async fn next_message(events: &mut EventReceiver) -> ClaudeMessage {
    match tokio::time::timeout(EVENT_WAIT, events.recv())
        .await
        .expect("an event in time")
    {
        Some(ClaudeEvent::Message(m)) => m,
        other => panic!("expected a message, got {other:?}"),
    }
}

pub(super) fn system_field(message: &ClaudeMessage, key: &str) -> Value {
    let ClaudeMessage::System(s) = message else {
        panic!("not a system message: {message:?}")
    };
    s.rest.get(key).cloned().unwrap_or(Value::Null)
}

/// Dead means gone from /proc, or a zombie nobody reaped yet (pid 1 in a container may not reap).
pub(super) fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

pub(super) async fn wait_dead(pid: u32) -> bool {
    for _ in 0..100 {
        if is_dead(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// A child that starts `sleep 1000` in the background, reports its pid, and waits.
pub(super) const WITH_GRANDCHILD: &str =
    r#"sleep 1000 & echo "{\"type\":\"system\",\"subtype\":\"child\",\"pid\":$!}"; wait"#;
