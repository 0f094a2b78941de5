//! The process trees of live claude children (see `platform::process`), so one claude (with
//! everything it started) or all of them can be killed, and none outlives the adapter.
//!
//! A tree is registered from spawn until its leader (claude) has exited but before it is reaped: a
//! pid, and so a Unix pgid, cannot be reused while the unreaped leader holds it, so a registered
//! tree is never someone else's processes.

use std::collections::BTreeMap;
use std::io;
use std::sync::{Mutex, MutexGuard};

use crate::platform::process::ProcessTree;

static LIVE_GROUPS: Mutex<BTreeMap<u32, ProcessTree>> = Mutex::new(BTreeMap::new());

fn live_groups() -> MutexGuard<'static, BTreeMap<u32, ProcessTree>> {
    // A panic elsewhere while holding the lock leaves the set itself intact.
    LIVE_GROUPS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `spawn` (which returns the child, its pid and its tree) and registers the tree under the
/// same lock, so `kill_all_children` cannot miss a child that is being born.
pub(crate) fn spawn_registered<T>(
    spawn: impl FnOnce() -> io::Result<(T, u32, ProcessTree)>,
) -> io::Result<(T, u32)> {
    let mut groups = live_groups();
    let (child, pid, tree) = spawn()?;
    groups.insert(pid, tree);
    Ok((child, pid))
}

/// Kills the tree if it is still registered; a tree already gone is fine.
pub(crate) fn kill_group(pid: u32) {
    if let Some(tree) = live_groups().get(&pid) {
        tree.kill();
    }
}

/// Notes the tree's processes now (before claude is asked to stop), so they are killed with it
/// even once claude has exited and they are no longer below it.
pub(crate) fn remember_group(pid: u32) {
    if let Some(tree) = live_groups().get(&pid) {
        tree.remember();
    }
}

/// Lets claude see its stdin close: see `ProcessTree::release_stdin`.
pub(crate) fn release_stdin(pid: u32) {
    if let Some(tree) = live_groups().get(&pid) {
        tree.release_stdin();
    }
}

/// Called once the leader has exited and before it is reaped: kills whatever it left running in its
/// tree (no orphans) and forgets the tree.
pub(crate) fn retire_group(pid: u32) {
    if let Some(tree) = live_groups().remove(&pid) {
        tree.kill();
    }
}

/// Whether the tree is still registered (its leader not yet exited and retired).
#[cfg(test)]
pub(crate) fn is_live(pid: u32) -> bool {
    live_groups().contains_key(&pid)
}

/// Kills every live claude tree, for the adapter's own exit (a termination signal, stdin EOF)
/// while sessions are still running. Returns how many trees were killed.
pub(crate) fn kill_all_children() -> usize {
    let groups = live_groups();
    for tree in groups.values() {
        tree.kill();
    }
    groups.len()
}
