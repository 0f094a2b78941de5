//! Unix: claude's process group and its descendants, and the reaper that kills them when the
//! adapter dies (see the parent module). POSIX guarantees relied on: a process group id is not
//! reused while any process is in the group, `kill(-pgid)` / `killpg` reaches every member, a
//! stopped process cannot fork, and a pipe's reader sees end-of-file once every write end is
//! closed, which the kernel does for a dead process.
//!
//! claude starts its Bash shells with `setsid` (a session and group of their own), so its group
//! alone misses them: a tree is ended by freezing (SIGSTOP) claude's group and every descendant
//! found through the process table, again until no new one appears, then SIGKILLing them all.
//! On Linux claude is made a child subreaper, so a process its shells leave behind (`cmd &` in a
//! shell that exits, a daemon's double fork) is reparented to claude, not to init, and is still
//! found below it. The descendants are also remembered before claude is asked to stop, because
//! once claude exits its children are reparented and no longer below it.

use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{ExitStatus, Stdio};
use std::sync::Mutex;

use super::pipe_hold::{self, End};
use super::table::{self, Entry};

/// The hidden subcommand that runs the reaper.
const REAPER_SUBCOMMAND: &str = "reaper";

/// The write end of the reaper's pipe, once started.
static REAPER: Mutex<Option<io::PipeWriter>> = Mutex::new(None);

pub(crate) fn prepare(command: &mut tokio::process::Command) {
    // Its own group, so killing the group also kills the tools and servers claude started.
    command.process_group(0);
    become_subreaper(command);
}

pub(crate) fn detach(command: &mut std::process::Command) {
    // SAFETY: setsid is async-signal-safe; it fails only for a group leader, which a freshly
    // forked child is not.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
}

/// Linux: the child becomes a child subreaper before it runs claude (the setting survives
/// `execve`), so what its descendants orphan stays below it.
#[cfg(target_os = "linux")]
fn become_subreaper(command: &mut tokio::process::Command) {
    // SAFETY: prctl is async-signal-safe and touches nothing of the parent's; a failure leaves
    // claude as it would be without it (the walk still finds what stays attached).
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn become_subreaper(_command: &mut tokio::process::Command) {}

/// A process group led by claude (pgid = claude's pid), and the descendants seen so far, by pid
/// with their start time.
pub(crate) struct Tree {
    pgid: i32,
    known: Mutex<BTreeMap<i32, u64>>,
}

impl Tree {
    pub(crate) fn adopt(child: &tokio::process::Child) -> io::Result<Tree> {
        let pid = child
            .id()
            .ok_or_else(|| io::Error::other("claude exited before it had a pid"))?;
        let tree = Tree {
            pgid: pid as i32,
            known: Mutex::default(),
        };
        tell_reaper(&format!("+{}", tree.pgid));
        use std::os::fd::AsRawFd;
        let pipes = pipe_hold::describe(&[
            (End::Write, child.stdin.as_ref().map(AsRawFd::as_raw_fd)),
            (End::Read, child.stdout.as_ref().map(AsRawFd::as_raw_fd)),
            (End::Read, child.stderr.as_ref().map(AsRawFd::as_raw_fd)),
        ]);
        if !pipes.is_empty() {
            tell_reaper(&format!("h{}{pipes}", tree.pgid));
        }
        Ok(tree)
    }

    pub(crate) fn release_stdin(&self) {
        tell_reaper(&format!("r{}", self.pgid));
    }

    pub(crate) fn remember(&self) {
        let found = table::descendants(&table::snapshot(), &[self.pgid]);
        let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        known.extend(found.iter().map(|e| (e.pid, e.start)));
    }

    pub(crate) fn kill(&self) {
        let known = self.known.lock().unwrap_or_else(|p| p.into_inner()).clone();
        end_tree(self.pgid, known);
    }
}

/// How often the table is read again for processes that forked while the others were being
/// frozen; each round stops what it finds, so one more round nearly always finds nothing.
const FREEZE_ROUNDS: usize = 8;

/// Ends the group `pgid` (led by claude, alive or an unreaped zombie, so the id is still its
/// own), every live descendant of its leader, every process of `known` (pid to start time) still
/// the same process, their descendants, and the groups those processes lead or sit in.
fn end_tree(pgid: i32, known: BTreeMap<i32, u64>) {
    if pgid <= 1 {
        return;
    }
    signal_group(pgid, libc::SIGSTOP);
    // pid -> the process as first frozen.
    let mut frozen: BTreeMap<i32, Entry> = BTreeMap::new();
    for _ in 0..FREEZE_ROUNDS {
        let snapshot = table::snapshot();
        let same = |pid: i32, start: u64| snapshot.iter().any(|e| e.pid == pid && e.start == start);
        let mut roots: Vec<i32> = vec![pgid];
        roots.extend(known.iter().filter(|&(&p, &s)| same(p, s)).map(|(&p, _)| p));
        roots.extend(
            frozen
                .values()
                .filter(|e| same(e.pid, e.start))
                .map(|e| e.pid),
        );
        let mut found = table::descendants(&snapshot, &roots);
        found.extend(
            snapshot
                .iter()
                .filter(|e| !e.zombie && known.get(&e.pid) == Some(&e.start))
                .copied(),
        );
        let mut new = 0;
        for entry in found {
            if entry.pid > 1 && !frozen.contains_key(&entry.pid) {
                signal(entry.pid, libc::SIGSTOP);
                frozen.insert(entry.pid, entry);
                new += 1;
            }
        }
        if new == 0 {
            break;
        }
    }
    signal_group(pgid, libc::SIGKILL);
    // A group is killed only while a frozen member, checked to be the same process, is in it: a
    // live member keeps the group's id from being reused.
    let mut groups = std::collections::BTreeSet::new();
    for entry in frozen.values() {
        if let Some(now) = table::entry(entry.pid)
            && now.start == entry.start
            && !now.zombie
        {
            groups.insert(now.pgid);
        }
    }
    for group in groups {
        signal_group(group, libc::SIGKILL);
    }
    for entry in frozen.values() {
        if table::entry(entry.pid).is_some_and(|now| now.start == entry.start) {
            signal(entry.pid, libc::SIGKILL);
        }
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
        tracing::debug!(path = %path.display(), "the reaper cannot be told about this file");
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

/// The reaper: reads `+pgid` / `-pgid`, `h<pgid> <pipes>` / `r<pgid>` and `f+path` / `f-path`
/// lines until end-of-file (the adapter is gone), then ends every tree still listed, lets go of
/// claude's pipes and removes every file still listed.
fn run_reaper() -> i32 {
    // Signals a terminal sends to a whole foreground group must not end the reaper early.
    for signal in [libc::SIGINT, libc::SIGHUP, libc::SIGQUIT, libc::SIGPIPE] {
        // SAFETY: ignoring a signal has no preconditions.
        unsafe { libc::signal(signal, libc::SIG_IGN) };
    }
    // SAFETY: getppid has no preconditions. The adapter started us; its descriptors are read
    // through /proc while it lives.
    let adapter = unsafe { libc::getppid() };
    let mut held: BTreeMap<i32, Vec<std::fs::File>> = BTreeMap::new();
    let left = track(io::stdin().lock(), |hold| match hold {
        Hold::Pipes(pgid, spec) => {
            held.entry(pgid)
                .or_default()
                .extend(pipe_hold::open(adapter, spec));
        }
        Hold::Release(pgid) => {
            held.remove(&pgid);
        }
    });
    // claude is still alive (this reaper holds its pipes, so it has not seen the adapter go), and
    // so its shells are still its descendants: frozen first, then killed.
    wait_reparented(adapter, &left.groups);
    for pgid in left.groups {
        end_tree(pgid, BTreeMap::new());
    }
    // Only now may claude see its pipes close.
    drop(held);
    for file in left.files {
        let _ = std::fs::remove_file(file);
    }
    0
}

/// How long the reaper waits for the dead adapter's children to be handed on.
const REPARENT_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Waits until the kernel has finished the adapter's exit: its children (this reaper and every
/// claude) have another parent. The pipe's end-of-file comes earlier in that exit, and a claude
/// stopped before its group is orphaned gets SIGHUP then (POSIX's rule for orphaned groups with
/// stopped members): it would die before its tree is walked, leaving its shells outside it.
fn wait_reparented(adapter: i32, groups: &std::collections::BTreeSet<i32>) {
    let deadline = std::time::Instant::now() + REPARENT_WAIT;
    // SAFETY: getppid has no preconditions.
    while (unsafe { libc::getppid() } == adapter
        || groups
            .iter()
            .any(|&pgid| table::entry(pgid).is_some_and(|e| e.ppid == adapter)))
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// What a line asks of the pipes the reaper holds for claude (see `pipe_hold`).
#[derive(Debug, PartialEq, Eq)]
enum Hold<'a> {
    /// `h<pgid> <pipes>`: hold copies of these pipes of that claude.
    Pipes(i32, &'a str),
    /// `r<pgid>`, and `-pgid`: let them go.
    Release(i32),
}

/// What the adapter left to the reaper when its pipe ended.
#[derive(Debug, Default, PartialEq, Eq)]
struct Left {
    groups: std::collections::BTreeSet<i32>,
    files: std::collections::BTreeSet<String>,
}

/// The groups listed by `+pgid` and files by `f+path`, not withdrawn by `-pgid` / `f-path`, when
/// `input` ends.
fn track(input: impl BufRead, mut hold: impl FnMut(Hold<'_>)) -> Left {
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
            hold(Hold::Release(pgid));
        } else if let Some(Ok(pgid)) = line.strip_prefix('r').map(str::parse::<i32>) {
            hold(Hold::Release(pgid));
        } else if let Some((pgid, pipes)) = line.strip_prefix('h').and_then(|l| l.split_once(' '))
            && let Ok(pgid) = pgid.parse::<i32>()
        {
            hold(Hold::Pipes(pgid, pipes));
        }
    }
    left
}

fn signal_group(pgid: i32, signal: i32) {
    // pgid > 1 is checked so this can never mean "every process".
    if pgid <= 1 {
        return;
    }
    // SAFETY: killpg only sends a signal.
    let rc = unsafe { libc::killpg(pgid, signal) };
    if rc != 0 {
        let err = io::Error::last_os_error();
        // ESRCH: every member is already dead, which is what we wanted.
        if err.raw_os_error() != Some(libc::ESRCH) {
            tracing::info!(pgid, error = %err, "could not signal a process group of claude's");
        }
    }
}

fn signal(pid: i32, signal: i32) {
    if pid <= 1 {
        return;
    }
    // SAFETY: kill only sends a signal; pid > 1 names one process.
    unsafe { libc::kill(pid, signal) };
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
    use super::{Hold, track};

    #[test]
    fn the_reaper_holds_claudes_pipes_until_told_to_let_go() {
        let input = "+7\nh7 w5:11 r6:12\nr7\nh8 w9:13\n-8\nhx w1:1\n";
        let mut seen = Vec::new();
        track(input.as_bytes(), |hold| {
            seen.push(match hold {
                Hold::Pipes(pgid, pipes) => format!("hold {pgid} {pipes}"),
                Hold::Release(pgid) => format!("release {pgid}"),
            })
        });
        assert_eq!(
            seen,
            vec![
                "hold 7 w5:11 r6:12",
                "release 7",
                "hold 8 w9:13",
                "release 8"
            ]
        );
    }

    #[test]
    fn the_reaper_kills_the_groups_listed_and_not_withdrawn() {
        let input = "+100\n+200\n-100\n+300\r\ngarbage\n-\n+x\n";
        assert_eq!(
            track(input.as_bytes(), |_| {})
                .groups
                .into_iter()
                .collect::<Vec<_>>(),
            vec![200, 300]
        );
    }

    #[test]
    fn the_reaper_removes_the_files_listed_and_not_withdrawn() {
        let input = "f+/tmp/a b.json\nf+/tmp/c.json\r\n+5\nf-/tmp/c.json\nf+\n";
        let left = track(input.as_bytes(), |_| {});
        assert_eq!(
            left.files.into_iter().collect::<Vec<_>>(),
            vec!["/tmp/a b.json"]
        );
        assert_eq!(left.groups.into_iter().collect::<Vec<_>>(), vec![5]);
    }
}
