//! Starting claude so that claude and everything it starts (its Bash tool's shells and commands, the
//! MCP servers it spawns) can be killed as one, and are killed when the adapter dies, even outright.
//!
//! - Unix (Linux, macOS): claude leads a process group of its own, which its children inherit,
//!   but its Bash shells start sessions of their own (`setsid`), so a tree is more than the group:
//!   ending it freezes the group and every descendant of claude found in the process table, then
//!   kills them all (on Linux claude is a child subreaper, so what its shells orphan stays below
//!   it). The descendants are remembered before claude is asked to stop, since once claude exits
//!   they are no longer below it. A reaper, `claude-acp reaper` (a hidden subcommand), is started
//!   once per adapter in a group of its own and told every claude group on a pipe. When the
//!   adapter is gone for any reason, SIGKILL included, the kernel closes that pipe: the reaper
//!   reads end-of-file and ends every tree it was told about and not told to forget (claude is
//!   still alive then, so its descendants are still below it), then removes the files it was told
//!   about (the session's private `--mcp-config` file).
//! - Windows: each claude is put into a Job object created with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`;
//!   processes claude starts join its job. The adapter holds the job's only handle: killing one
//!   claude is `TerminateJobObject`, and when the adapter dies, however it dies, the system closes
//!   the handle and ends every process in the job.

use std::io;
use std::process::ExitStatus;

#[cfg(unix)]
mod pipe_hold;
#[cfg(unix)]
mod table;
#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as imp;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as imp;

/// The processes of one claude, killable as one. Dropping it forgets the tree (on Windows, closing
/// the job also kills whatever is left in it).
pub(crate) struct ProcessTree(imp::Tree);

impl ProcessTree {
    /// Sets up `command` (before it is spawned) to start a new tree: a new process group on Unix, a
    /// new console process group on Windows (so the editor's Ctrl-C reaches the adapter, which
    /// decides, not claude directly).
    pub(crate) fn prepare(command: &mut tokio::process::Command) {
        imp::prepare(command);
    }

    /// Takes charge of a freshly spawned child and everything it will start.
    pub(crate) fn adopt(child: &tokio::process::Child) -> io::Result<ProcessTree> {
        imp::Tree::adopt(child).map(ProcessTree)
    }

    /// Notes the processes of the tree now, so they are still killed with it after claude, their
    /// ancestor, has exited (its children are then reparented). Done before claude is asked to stop.
    pub(crate) fn remember(&self) {
        self.0.remember();
    }

    /// Lets claude see its stdin close (on Unix the reaper holds a copy of it, so that an adapter
    /// killed outright does not end claude before the reaper ends its tree). Before the polite stop.
    pub(crate) fn release_stdin(&self) {
        self.0.release_stdin();
    }

    /// Kills every process of the tree now (and every one remembered). Idempotent.
    pub(crate) fn kill(&self) {
        self.0.kill();
    }
}

/// Sets up `command` to start detached from its parent, as claude starts its Bash tool's shells:
/// a session and process group of its own on Unix (`setsid`), no console and a process group of
/// its own on Windows (where it stays in its parent's job). For the stand-in, which shows that.
pub(crate) fn detach(command: &mut std::process::Command) {
    imp::detach(command);
}

/// Starts the helper that kills every tree when the adapter dies outright, where one is needed
/// (the reaper on Unix; nothing on Windows, where the Job objects do it). `program` is this
/// executable. Trees adopted before this call are not covered.
pub(crate) fn start_reaper(program: &std::path::Path) -> io::Result<()> {
    imp::start_reaper(program)
}

/// Has the file at `path` (a secret the adapter removes when it exits) removed if the adapter is
/// killed outright before it can: the reaper removes it on Unix. On Windows nothing can run after a
/// TerminateProcess; the next start's sweep removes it there.
pub(crate) fn remove_if_killed(path: &std::path::Path) {
    imp::remove_if_killed(path);
}

/// Withdraws [`remove_if_killed`] once the adapter removed the file itself.
pub(crate) fn forget_removal(path: &std::path::Path) {
    imp::forget_removal(path);
}

/// Runs the reaper if this process was started as one (`args` after the program name begin with
/// its subcommand) and returns its exit code; `None` otherwise.
pub fn run_reaper_if_asked(args: &[String]) -> Option<i32> {
    imp::run_reaper_if_asked(args)
}

/// Waits until process `pid` has exited, without releasing its id, so the id (the process group's
/// on Unix) cannot be reused while what it left behind is killed. Returns false where the wait
/// could not be done (the caller then reaps first) or is not needed (Windows: the job handle, not
/// the id, names the tree).
pub(crate) async fn wait_exited_keeping_id(pid: u32) -> bool {
    imp::wait_exited_keeping_id(pid).await
}

/// "exit code 1" or "killed by signal 9", and the exit code if there is one.
pub(crate) fn describe_exit(status: &ExitStatus) -> (String, Option<i32>) {
    imp::describe_exit(status)
}

/// Whether a process with this id is running (for sweeping files of adapters that are gone).
pub(crate) fn is_alive(pid: u32) -> bool {
    imp::is_alive(pid)
}

/// Whether the adapter runs with root's powers, where claude refuses `bypassPermissions` (Unix
/// root; Windows has no such check in claude).
pub(crate) fn running_as_root() -> bool {
    imp::running_as_root()
}
