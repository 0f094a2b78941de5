//! The process groups of live claude children, so one claude (with everything it started) or all of
//! them can be killed, and none outlives the adapter.
//!
//! A group is registered from spawn until its leader (claude) has exited but before it is reaped: a
//! pid, and so a pgid, cannot be reused while the unreaped leader holds it, so a registered pgid is
//! never someone else's group.

use std::collections::BTreeSet;
use std::io;
use std::sync::{Mutex, MutexGuard};

static LIVE_GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

fn live_groups() -> MutexGuard<'static, BTreeSet<i32>> {
    // A panic elsewhere while holding the lock leaves the set itself intact.
    LIVE_GROUPS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `spawn` (which must put the child in its own group, pgid = pid) and registers the group under
/// the same lock, so `kill_all_children` cannot miss a child that is being born.
pub(crate) fn spawn_registered<T>(
    spawn: impl FnOnce() -> io::Result<(T, u32)>,
) -> io::Result<(T, u32)> {
    let mut groups = live_groups();
    let (child, pid) = spawn()?;
    groups.insert(pid as i32);
    Ok((child, pid))
}

/// SIGKILLs the group if it is still registered; a group already gone is fine.
pub(crate) fn kill_group(pgid: i32) {
    let groups = live_groups();
    if groups.contains(&pgid) {
        killpg(pgid);
    }
}

/// Called once the leader has exited and before it is reaped: kills whatever it left running in its
/// group (no orphans) and forgets the group.
pub(crate) fn retire_group(pgid: i32) {
    let mut groups = live_groups();
    if groups.remove(&pgid) {
        killpg(pgid);
    }
}

/// Whether the group is still registered (its leader not yet exited and retired).
#[cfg(test)]
pub(crate) fn is_live(pgid: i32) -> bool {
    live_groups().contains(&pgid)
}

/// SIGKILLs every live claude process group, for the adapter's own exit (SIGTERM, SIGINT, stdin EOF)
/// while sessions are still running. Returns how many groups were signalled.
pub fn kill_all_children() -> usize {
    let groups = live_groups();
    for &pgid in groups.iter() {
        killpg(pgid);
    }
    groups.len()
}

fn killpg(pgid: i32) {
    // SAFETY: killpg only sends a signal; pgid > 1 is checked so this can never mean "every process".
    if pgid <= 1 {
        return;
    }
    let rc = unsafe { libc::killpg(pgid, libc::SIGKILL) };
    if rc != 0 {
        let err = io::Error::last_os_error();
        // ESRCH: every member is already dead, which is what we wanted.
        if err.raw_os_error() != Some(libc::ESRCH) {
            tracing::warn!(pgid, error = %err, "could not kill claude's process group");
        }
    }
}
