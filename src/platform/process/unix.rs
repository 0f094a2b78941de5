//! Unix: claude's process group, and the reaper that kills the groups when the adapter dies (see
//! the parent module). POSIX guarantees relied on: a process group id is not reused while any
//! process is in the group, `kill(-pgid)` / `killpg` reaches every member, and a pipe's reader
//! sees end-of-file once every write end is closed, which the kernel does for a dead process.

use std::io::{self, BufRead, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{ExitStatus, Stdio};
use std::sync::Mutex;

/// The hidden subcommand that runs the reaper.
const REAPER_SUBCOMMAND: &str = "reaper";

/// The write end of the reaper's pipe, once started.
static REAPER: Mutex<Option<io::PipeWriter>> = Mutex::new(None);

pub(crate) fn prepare(command: &mut tokio::process::Command) {
    // Its own group, so killing the group also kills the tools and servers claude started.
    command.process_group(0);
}

/// A process group led by claude (pgid = claude's pid).
pub(crate) struct Tree {
    pgid: i32,
}

impl Tree {
    pub(crate) fn adopt(child: &tokio::process::Child) -> io::Result<Tree> {
        let pid = child
            .id()
            .ok_or_else(|| io::Error::other("claude exited before it had a pid"))?;
        let tree = Tree { pgid: pid as i32 };
        tell_reaper(&format!("+{}", tree.pgid));
        Ok(tree)
    }

    pub(crate) fn kill(&self) {
        killpg(self.pgid);
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        tell_reaper(&format!("-{}", self.pgid));
    }
}

fn tell_reaper(line: &str) {
    let mut reaper = REAPER.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(pipe) = reaper.as_mut()
        && let Err(error) = writeln!(pipe, "{line}")
    {
        tracing::warn!(%error, "the reaper is gone: claude's children would outlive a killed adapter");
        *reaper = None;
    }
}

pub(crate) fn remove_if_killed(path: &std::path::Path) {
    if let Some(line) = file_line('+', path) {
        tell_reaper(&line);
    }
}

pub(crate) fn forget_removal(path: &std::path::Path) {
    if let Some(line) = file_line('-', path) {
        tell_reaper(&line);
    }
}

/// `f+<path>` / `f-<path>`; `None` for a path a line cannot carry (not UTF-8, or a line break).
fn file_line(sign: char, path: &std::path::Path) -> Option<String> {
    let text = path.to_str().filter(|t| !t.contains(['\n', '\r']));
    if text.is_none() {
        tracing::warn!(path = %path.display(), "the reaper cannot be told about this file");
    }
    text.map(|text| format!("f{sign}{text}"))
}

pub(crate) fn start_reaper(program: &std::path::Path) -> io::Result<()> {
    let mut reaper = REAPER.lock().unwrap_or_else(|p| p.into_inner());
    if reaper.is_some() {
        return Ok(());
    }
    // Both ends are close-on-exec, so no claude holds the pipe open after we die. The pipe exists
    // from here on: what is written before the reaper runs waits in it for the reaper to read.
    let (input, output) = io::pipe()?;
    *reaper = Some(output);
    let mut command = std::process::Command::new(program);
    command
        .arg(REAPER_SUBCOMMAND)
        .stdin(Stdio::from(input))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .current_dir("/")
        // Its own group: an editor that signals the adapter's group does not take the reaper too.
        .process_group(0);
    // Starting a process holds the starting thread until the new program is loaded (about a
    // millisecond for this executable): not on the way to the editor's first answer.
    std::thread::Builder::new()
        .name("reaper-start".into())
        .spawn(move || match command.spawn() {
            // The reaper ends when we do; nothing waits for it (init reaps it). Our copy of the
            // read end goes with `command`, so the reaper's end-of-file is our death alone.
            Ok(child) => drop(child),
            // The read end is closed with `command`: the next line to the reaper fails and says so.
            Err(error) => tracing::warn!(%error, "cannot start the reaper: a killed adapter may leave claude's children running"),
        })?;
    Ok(())
}

pub(crate) fn run_reaper_if_asked(args: &[String]) -> Option<i32> {
    (args.first().map(String::as_str) == Some(REAPER_SUBCOMMAND)).then(run_reaper)
}

/// The reaper: reads `+pgid` / `-pgid` and `f+path` / `f-path` lines until end-of-file (the adapter
/// is gone), then SIGKILLs every group still listed and removes every file still listed.
fn run_reaper() -> i32 {
    // Signals a terminal sends to a whole foreground group must not end the reaper early.
    for signal in [libc::SIGINT, libc::SIGHUP, libc::SIGQUIT, libc::SIGPIPE] {
        // SAFETY: ignoring a signal has no preconditions.
        unsafe { libc::signal(signal, libc::SIG_IGN) };
    }
    let left = track(io::stdin().lock());
    for pgid in left.groups {
        killpg(pgid);
    }
    for file in left.files {
        let _ = std::fs::remove_file(file);
    }
    0
}

/// What the adapter left to the reaper when its pipe ended.
#[derive(Debug, Default, PartialEq, Eq)]
struct Left {
    groups: std::collections::BTreeSet<i32>,
    files: std::collections::BTreeSet<String>,
}

/// The groups listed by `+pgid` and files by `f+path`, not withdrawn by `-pgid` / `f-path`, when
/// `input` ends.
fn track(input: impl BufRead) -> Left {
    let mut left = Left::default();
    for line in input.lines() {
        let Ok(line) = line else { break };
        let line = line.trim_end_matches('\r');
        if let Some(path) = line.strip_prefix("f+").filter(|p| !p.is_empty()) {
            left.files.insert(path.to_owned());
        } else if let Some(path) = line.strip_prefix("f-") {
            left.files.remove(path);
        } else if let Some(Ok(pgid)) = line.strip_prefix('+').map(str::parse::<i32>) {
            left.groups.insert(pgid);
        } else if let Some(Ok(pgid)) = line.strip_prefix('-').map(str::parse::<i32>) {
            left.groups.remove(&pgid);
        }
    }
    left
}

fn killpg(pgid: i32) {
    // pgid > 1 is checked so this can never mean "every process".
    if pgid <= 1 {
        return;
    }
    // SAFETY: killpg only sends a signal.
    let rc = unsafe { libc::killpg(pgid, libc::SIGKILL) };
    if rc != 0 {
        let err = io::Error::last_os_error();
        // ESRCH: every member is already dead, which is what we wanted.
        if err.raw_os_error() != Some(libc::ESRCH) {
            tracing::warn!(pgid, error = %err, "could not kill claude's process group");
        }
    }
}

pub(crate) async fn wait_exited_keeping_id(pid: u32) -> bool {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name(format!("claude-{pid}-exit"))
        .spawn(move || {
            let exited = loop {
                // SAFETY: a zeroed siginfo_t is a valid out-parameter for waitid.
                let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
                // WNOWAIT leaves the process a zombie: its pid (the group's id) stays reserved.
                let rc = unsafe {
                    libc::waitid(
                        libc::P_PID,
                        pid as libc::id_t,
                        &mut info,
                        libc::WEXITED | libc::WNOWAIT,
                    )
                };
                if rc == 0 {
                    break true;
                }
                if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                    break false;
                }
            };
            let _ = tx.send(exited);
        });
    spawned.is_ok() && rx.await.unwrap_or(false)
}

pub(crate) fn describe_exit(status: &ExitStatus) -> (String, Option<i32>) {
    match (status.code(), status.signal()) {
        (Some(code), _) => (format!("exit code {code}"), Some(code)),
        (None, Some(signal)) => (format!("killed by signal {signal}"), None),
        (None, None) => (status.to_string(), None),
    }
}

pub(crate) fn is_alive(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only asks whether the process exists.
    let exists = unsafe { libc::kill(pid, 0) } == 0;
    // EPERM: it exists but belongs to another user.
    exists || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

pub(crate) fn running_as_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(test)]
mod tests {
    use super::track;

    #[test]
    fn the_reaper_kills_the_groups_listed_and_not_withdrawn() {
        let input = "+100\n+200\n-100\n+300\r\ngarbage\n-\n+x\n";
        assert_eq!(
            track(input.as_bytes())
                .groups
                .into_iter()
                .collect::<Vec<_>>(),
            vec![200, 300]
        );
    }

    #[test]
    fn the_reaper_removes_the_files_listed_and_not_withdrawn() {
        let input = "f+/tmp/a b.json\nf+/tmp/c.json\r\n+5\nf-/tmp/c.json\nf+\n";
        let left = track(input.as_bytes());
        assert_eq!(
            left.files.into_iter().collect::<Vec<_>>(),
            vec!["/tmp/a b.json"]
        );
        assert_eq!(left.groups.into_iter().collect::<Vec<_>>(), vec![5]);
    }
}
