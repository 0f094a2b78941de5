//! Process-table checks read from /proc: which processes a test's adapter left behind, their
//! command lines and environments, their memory.
//!
//! Linux only (the module is declared for Linux alone), and so is every test using it; whether a
//! process still runs is asked on every system through [`super::liveness`]. The one home of
//! /proc in the tests (`tidy.rs` holds it here).
#![allow(dead_code)]

use std::collections::HashMap;
use std::time::Duration;

/// Every live process: pid -> parent pid.
fn parent_map() -> HashMap<u32, u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return HashMap::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, stat(pid)?.1)))
        .collect()
}

/// `(state, ppid)` from /proc/<pid>/stat; `None` once the process is gone.
fn stat(pid: u32) -> Option<(char, u32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name sits in parentheses and may itself contain spaces or ')'.
    let after_name = &text[text.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((state, ppid))
}

/// The process state letter (`R`, `S`, `Z`...), `None` once the process is gone.
pub fn state(pid: u32) -> Option<char> {
    stat(pid).map(|(state, _)| state)
}

/// All descendants of `pid` (children, grandchildren...), found through parent links.
pub fn children_of(pid: u32) -> Vec<u32> {
    let parents = parent_map();
    let mut found = Vec::new();
    let mut frontier = vec![pid];
    while let Some(parent) = frontier.pop() {
        for (&child, &child_parent) in &parents {
            if child_parent == parent && child != pid && !found.contains(&child) {
                found.push(child);
                frontier.push(child);
            }
        }
    }
    found.sort_unstable();
    found
}

/// The command line of `pid` with arguments joined by spaces; `None` once the process is gone.
pub fn cmdline(pid: u32) -> Option<String> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let args: Vec<String> = raw
        .split(|b| *b == 0)
        .filter(|arg| !arg.is_empty())
        .map(|arg| String::from_utf8_lossy(arg).into_owned())
        .collect();
    Some(args.join(" "))
}

/// The environment of `pid` (`KEY=value` entries joined by NULs), as its owner can read it.
pub fn environ(pid: u32) -> Option<String> {
    let raw = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    Some(String::from_utf8_lossy(&raw).into_owned())
}

/// Every process's command line (this test process's too) that holds `needle`: what any local
/// user can read.
pub fn command_lines_holding(needle: &str) -> Vec<String> {
    parent_map()
        .into_keys()
        .filter_map(cmdline)
        .filter(|line| line.contains(needle))
        .collect()
}

/// A field of `pid`'s /proc status in KiB (`VmRSS`, `VmHWM`); 0 once the process is gone.
pub fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Whether some thread of `pid` is blocked writing to a full pipe.
pub fn blocked_writing_a_pipe(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.filter_map(Result::ok).any(|task| {
        std::fs::read_to_string(task.path().join("wchan")).is_ok_and(|w| w.contains("pipe_write"))
    })
}

/// Live processes (not this test process) whose command line contains `needle`. Use a needle
/// unique to the test, such as its temporary directory, since tests run in parallel.
pub fn pids_with_cmdline_containing(needle: &str) -> Vec<u32> {
    let own = std::process::id();
    let mut pids: Vec<u32> = parent_map()
        .into_keys()
        .filter(|&pid| pid != own && is_alive(pid))
        .filter(|&pid| cmdline(pid).is_some_and(|line| line.contains(needle)))
        .collect();
    pids.sort_unstable();
    pids
}

/// Whether `pid` is running; a zombie (exited, not yet reaped) counts as gone. Tests ask
/// [`super::liveness::is_alive`].
pub(super) fn is_alive(pid: u32) -> bool {
    matches!(state(pid), Some(state) if state != 'Z' && state != 'X')
}

/// When `pid` started (clock ticks since boot): with the pid, names one process for good, since a
/// pid may be reused once its process is gone.
pub fn start_time(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    text[text.rfind(')')? + 1..]
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()
}

/// The session id of `pid` (the pid of the session's leader).
pub fn session_of(pid: u32) -> Option<u32> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    text[text.rfind(')')? + 1..]
        .split_whitespace()
        .nth(3)?
        .parse()
        .ok()
}

/// `pid` and all its descendants now, each with its start time.
pub fn tree_of(pid: u32) -> Vec<(u32, u64)> {
    std::iter::once(pid)
        .chain(children_of(pid))
        .filter_map(|p| Some((p, start_time(p)?)))
        .collect()
}

/// The processes of `tree` still running (the same pid with the same start time, not a zombie),
/// with their command lines.
pub fn still_running(tree: &[(u32, u64)]) -> Vec<(u32, String)> {
    tree.iter()
        .filter(|&&(pid, start)| is_alive(pid) && start_time(pid) == Some(start))
        .map(|&(pid, _)| (pid, cmdline(pid).unwrap_or_default()))
        .collect()
}

/// Polls until no process of `tree` runs; what still runs after `timeout` otherwise.
pub async fn wait_tree_gone(
    tree: &[(u32, u64)],
    timeout: Duration,
) -> Result<(), Vec<(u32, String)>> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let left = still_running(tree);
        if left.is_empty() {
            return Ok(());
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(left);
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// SIGKILLs what a failed test left of `tree`, so it does not outlive the test run.
pub fn kill_left(left: &[(u32, String)]) {
    for &(pid, _) in left {
        // SAFETY: kill(2) of a process the test saw start under its own adapter.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    }
}
