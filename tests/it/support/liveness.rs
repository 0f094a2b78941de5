//! Whether a process still runs, asked the same way on every Unix: the stand-ins' verdict waits
//! on it, and the tests that claude is stopped (closed, deleted, idle, replaced) or kept.
//!
//! On Linux it is read from /proc ([`super::procs`]), where an exited process its parent has not
//! reaped yet (a zombie) counts as gone: an orphan's new parent may never reap it (a container's
//! init). Elsewhere it is kill(2) with signal 0, which counts a process as running until it is
//! reaped: claude-acp reaps the claudes it stops, and launchd reaps orphans.

use std::time::Duration;

/// Whether `pid` is running.
#[cfg(target_os = "linux")]
pub fn is_alive(pid: u32) -> bool {
    super::procs::is_alive(pid)
}

/// Whether `pid` is running.
#[cfg(not(target_os = "linux"))]
pub fn is_alive(pid: u32) -> bool {
    // SAFETY: signal 0 is no signal: kill(2) only says whether the pid exists (EPERM: it does, run
    // by another user).
    let exists = unsafe { libc::kill(pid as libc::pid_t, 0) } == 0;
    exists || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Polls until none of `pids` is alive; `false` if some still are after `timeout`.
pub async fn wait_until_gone(pids: &[u32], timeout: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if !pids.iter().any(|&pid| is_alive(pid)) {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}
