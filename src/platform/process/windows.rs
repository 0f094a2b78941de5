//! Windows: one Job object per claude, killed on close (see the parent module).
//!
//! Documented behaviour relied on (Microsoft Learn, "Job Objects" and
//! `JOBOBJECT_BASIC_LIMIT_INFORMATION`): with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`, all processes
//! of the job end when its last handle is closed, and the system closes a dead process's handles;
//! processes created by a process in a job belong to that job (no breakaway flag is set); since
//! Windows 8 a process may be in nested jobs, so an editor that runs the adapter in a job of its
//! own does not stop us assigning claude to ours.

use std::io;
use std::process::ExitStatus;

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, STILL_ACTIVE};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject,
};
use windows_sys::Win32::System::Threading::{
    CREATE_NEW_PROCESS_GROUP, DETACHED_PROCESS, GetExitCodeProcess, OpenProcess,
    PROCESS_QUERY_LIMITED_INFORMATION,
};

/// The exit code of processes ended by `kill` (the same as `TerminateProcess` users commonly pick).
const KILLED_EXIT_CODE: u32 = 1;

pub(crate) fn prepare(command: &mut tokio::process::Command) {
    command.creation_flags(CREATE_NEW_PROCESS_GROUP);
}

pub(crate) fn detach(command: &mut std::process::Command) {
    use std::os::windows::process::CommandExt;
    command.creation_flags(CREATE_NEW_PROCESS_GROUP | DETACHED_PROCESS);
}

/// An owned job handle.
pub(crate) struct Tree {
    job: HANDLE,
}

// SAFETY: a job handle may be used and closed from any thread.
unsafe impl Send for Tree {}
unsafe impl Sync for Tree {}

impl Tree {
    pub(crate) fn adopt(child: &tokio::process::Child) -> io::Result<Tree> {
        let process = child
            .raw_handle()
            .ok_or_else(|| io::Error::other("claude exited before it could join its job"))?;
        // SAFETY: null attributes and name ask for an unnamed job with default security.
        let job = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if job.is_null() {
            return Err(io::Error::last_os_error());
        }
        let tree = Tree { job };
        // SAFETY: a zeroed JOBOBJECT_EXTENDED_LIMIT_INFORMATION is "no limits"; we set one flag.
        let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        // SAFETY: the pointer and size describe `limits`, which outlives the call.
        let set = unsafe {
            SetInformationJobObject(
                tree.job,
                JobObjectExtendedLimitInformation,
                (&raw const limits).cast(),
                size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            )
        };
        if set == 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both handles are open; the child's is owned by `child`, which outlives the call.
        if unsafe { AssignProcessToJobObject(tree.job, process as HANDLE) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(tree)
    }

    pub(crate) fn release_stdin(&self) {
        // Nothing holds claude's stdin but the adapter.
    }

    pub(crate) fn remember(&self) {
        // The job holds every process claude starts, whoever its parent is now.
    }

    pub(crate) fn kill(&self) {
        // SAFETY: the job handle is open until drop.
        if unsafe { TerminateJobObject(self.job, KILLED_EXIT_CODE) } == 0 {
            tracing::warn!(
                error = %io::Error::last_os_error(),
                "could not end claude's job: its processes may still run (end them in Task Manager)"
            );
        }
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        // SAFETY: we own the handle and close it once. Closing it kills what is left in the job.
        unsafe { CloseHandle(self.job) };
    }
}

pub(crate) fn start_reaper(_program: &std::path::Path) -> io::Result<()> {
    // The Job objects' kill-on-close needs no helper process.
    Ok(())
}

pub(crate) fn remove_if_killed(_path: &std::path::Path) {
    // Nothing runs after TerminateProcess; the next start's sweep removes the file.
}

pub(crate) fn forget_removal(_path: &std::path::Path) {}

pub(crate) fn run_reaper_if_asked(_args: &[String]) -> Option<i32> {
    None
}

pub(crate) async fn wait_exited_keeping_id(_pid: u32) -> bool {
    false
}

pub(crate) fn describe_exit(status: &ExitStatus) -> (String, Option<i32>) {
    match status.code() {
        Some(code) => (format!("exit code {code}"), Some(code)),
        None => (status.to_string(), None),
    }
}

pub(crate) fn is_alive(pid: u32) -> bool {
    // SAFETY: OpenProcess returns null or a handle we close below.
    let process = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if process.is_null() {
        // Access denied means it exists (another user's); anything else, that it does not.
        return io::Error::last_os_error().raw_os_error() == Some(5);
    }
    let mut code = 0u32;
    // SAFETY: `process` is open; `code` is a valid out-parameter.
    let ok = unsafe { GetExitCodeProcess(process, &mut code) } != 0;
    // SAFETY: opened above, closed once.
    unsafe { CloseHandle(process) };
    !ok || code == STILL_ACTIVE as u32
}

pub(crate) fn running_as_root() -> bool {
    false
}
