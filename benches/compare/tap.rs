//! The tap: this bench binary, started by claude-acp as its `claude`, passing every byte between
//! claude-acp and the real claude through unchanged while it logs when each line passed, on the
//! bench's clock. Its one job is that log, so the bench can tell the adapter's time from claude's.
//!
//! The bench starts claude-acp with `--claude-path` = this binary, [`LOG_VAR`] (the log) and
//! [`CLAUDE_VAR`] (the real claude); claude-acp hands its environment to claude, so the tap sees
//! both, and `main` turns into the tap when [`LOG_VAR`] is set. The tap starts the real claude
//! with the arguments it was given (without the two variables), forwards its stdin to claude's
//! and claude's stdout to its own, one blocking thread per direction, each read written on at
//! once and whole (claude-acp sees claude's writes as they came), and stderr is claude's own.
//!
//! Timestamps (`platform::clock::monotonic_ns`, the clock the bench editor stamps with) are taken
//! where the adapter's part starts or ends: a line to claude when the tap has read it from
//! claude-acp (claude-acp's write has landed), a line from claude just before the tap writes it
//! to claude-acp. The tap's own reading, parsing and logging lie outside; only the pipe hop
//! between the tap and claude-acp is inside, the same kind of hop claude-acp's own pipe to
//! claude is. Each line completed by a read gets that read's time.
//!
//! Records are appended to the log by a thread of their own after the line was passed on, those
//! waiting together: a small header and the line itself, parsed by the bench, not by the tap (see
//! [`read_log`]), so the tap's CPU, which shares the cores with claude-acp, stays small. The tap ends with claude: its stdin closed closes claude's,
//! claude's exit status is its own, and claude dies with it if it is killed (Linux: the parent
//! death signal; claude-acp also kills the process group both are in).

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::{Sender, channel};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::peer::mono_ns;

/// The log the tap appends its records to; set, it makes the bench binary the tap.
pub const LOG_VAR: &str = "COMPARE_TAP_LOG";
/// The real claude the tap starts.
pub const CLAUDE_VAR: &str = "COMPARE_TAP_CLAUDE";

/// What a record is about.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Dir {
    /// The tap's `main` began (its program loaded).
    Start,
    /// The tap's spawn of the real claude returned (claude's program loaded).
    Spawned,
    /// A line claude-acp wrote to claude, stamped when the tap read it.
    ToClaude,
    /// A line claude wrote to claude-acp, stamped just before the tap wrote it on.
    FromClaude,
    /// claude exited (`len` holds the exit code the tap passes on).
    Exited,
}

/// One line of the log: when, which way, how long, and enough of the line to match it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Record {
    pub pid: u32,
    pub dir: Option<Dir>,
    pub at: u64,
    #[serde(default)]
    pub len: usize,
    /// The stream-json `type` (`user`, `stream_event`, `result`, `control_request`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `subtype`, or the control request's or response's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<String>,
    /// A control request's or response's `request_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// A stream event's `event.type`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// A `text_delta`'s text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl Record {
    /// The record of one stream-json line.
    pub fn of_line(pid: u32, dir: Dir, at: u64, line: &[u8]) -> Record {
        let value: Value = serde_json::from_slice(line).unwrap_or(Value::Null);
        let text = |v: &Value| v.as_str().map(str::to_owned);
        let control = if value["type"] == "control_request" {
            &value["request"]
        } else {
            &value["response"]
        };
        let delta = &value["event"]["delta"];
        Record {
            pid,
            dir: Some(dir),
            at,
            len: line.len(),
            kind: text(&value["type"]),
            subtype: text(&value["subtype"]).or_else(|| text(&control["subtype"])),
            request_id: text(&value["request_id"]).or_else(|| text(&control["request_id"])),
            event: text(&value["event"]["type"]),
            text: (delta["type"] == "text_delta")
                .then(|| text(&delta["text"]))
                .flatten(),
        }
    }

    fn mark(pid: u32, dir: Dir, at: u64, len: usize) -> Record {
        Record {
            pid,
            dir: Some(dir),
            at,
            len,
            ..Record::default()
        }
    }
}

/// Runs the tap when [`LOG_VAR`] is set and returns its exit code (claude's); `None` otherwise.
pub fn run_if_asked() -> Option<i32> {
    let started = mono_ns();
    let log = PathBuf::from(std::env::var_os(LOG_VAR)?);
    Some(run(started, log))
}

/// A line passed on (or a mark), for the log thread.
pub type Logged = (Dir, u64, Vec<u8>);

fn run(started: u64, log: PathBuf) -> i32 {
    let pid = std::process::id();
    let Some(claude) = std::env::var_os(CLAUDE_VAR) else {
        eprintln!("tap: {CLAUDE_VAR} is not set");
        return 127;
    };
    let file = match std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
    {
        Ok(file) => file,
        Err(e) => {
            eprintln!("tap: cannot open {}: {e}", log.display());
            return 127;
        }
    };
    let (logged, lines) = channel::<Logged>();
    let writer = std::thread::spawn(move || write_log(file, pid, lines));
    let _ = logged.send((Dir::Start, started, Vec::new()));

    let mut command = Command::new(&claude);
    command
        .args(std::env::args_os().skip(1))
        .env_remove(LOG_VAR)
        .env_remove(CLAUDE_VAR)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    die_with_parent(&mut command);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            eprintln!("tap: cannot start {}: {e}", PathBuf::from(claude).display());
            return 127;
        }
    };
    let _ = logged.send((Dir::Spawned, mono_ns(), Vec::new()));
    let (to_claude, from_claude) = (child.stdin.take(), child.stdout.take());
    let (to_claude, from_claude) = (to_claude.expect("piped"), from_claude.expect("piped"));

    let inbound = logged.clone();
    // Ends when claude-acp closes our stdin; dropping `to_claude` then closes claude's.
    std::thread::spawn(move || pump(io::stdin().lock(), to_claude, Dir::ToClaude, &inbound));
    let relayed = pump(from_claude, io::stdout().lock(), Dir::FromClaude, &logged);
    if relayed.is_err() {
        // claude-acp stopped reading: nobody is left to hear claude.
        let _ = child.kill();
    }
    let code = child.wait().map_or(127, |status| exit_code(&status));
    let _ = logged.send((Dir::Exited, mono_ns(), code.to_string().into_bytes()));
    drop(logged);
    let _ = writer.join();
    code
}

/// Copies `from` to `to` read by read, each read written on whole at once; every line a read
/// completes goes to the log with that read's time (taken before the write: see the module doc).
fn pump(mut from: impl Read, mut to: impl Write, dir: Dir, log: &Sender<Logged>) -> io::Result<()> {
    let mut buffer = vec![0u8; 1 << 16];
    let mut partial = Vec::new();
    loop {
        let n = match from.read(&mut buffer) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let at = mono_ns();
        to.write_all(&buffer[..n])?;
        to.flush()?;
        let mut rest = &buffer[..n];
        while let Some(end) = memchr::memchr(b'\n', rest) {
            partial.extend_from_slice(&rest[..end]);
            let _ = log.send((dir, at, std::mem::take(&mut partial)));
            rest = &rest[end + 1..];
        }
        partial.extend_from_slice(rest);
    }
}

/// Lines up to this size go into the log as they are, read by the bench; a longer one is read
/// here and logged as its record alone.
const RAW_LINE_MAX: usize = 64 * 1024;

/// How long the log thread lets lines gather before it writes them.
const LOG_BATCH: std::time::Duration = std::time::Duration::from_millis(2);

/// Appends one log line per logged line: its record's header (pid, direction, time, length) as
/// JSON, then a tab and the line itself, which the bench reads ([`read_log`]), so the tap spends
/// no parse on the lines it passes. The lines waiting are written together, [`LOG_BATCH`] after
/// the first of them.
pub fn write_log(file: std::fs::File, pid: u32, lines: std::sync::mpsc::Receiver<Logged>) {
    let mut out = io::BufWriter::with_capacity(1 << 16, file);
    while let Ok(first) = lines.recv() {
        // Woken by a line, wait a little for those that follow: one wake-up of this thread per
        // burst, not per line (each costs a context switch on the cores claude-acp needs).
        std::thread::sleep(LOG_BATCH);
        for (dir, at, line) in std::iter::once(first).chain(lines.try_iter()) {
            let (record, raw) = match dir {
                Dir::ToClaude | Dir::FromClaude if line.len() > RAW_LINE_MAX => {
                    (Record::of_line(pid, dir, at, &line), &[][..])
                }
                Dir::ToClaude | Dir::FromClaude => {
                    (Record::mark(pid, dir, at, line.len()), &line[..])
                }
                Dir::Exited => {
                    let code = String::from_utf8_lossy(&line).parse::<usize>().unwrap_or(0);
                    (Record::mark(pid, dir, at, code), &[][..])
                }
                Dir::Start | Dir::Spawned => (Record::mark(pid, dir, at, 0), &[][..]),
            };
            let header = serde_json::to_vec(&record).expect("a record serialises");
            let written = out
                .write_all(&header)
                .and_then(|()| out.write_all(b"\t"))
                .and_then(|()| out.write_all(raw))
                .and_then(|()| out.write_all(b"\n"));
            if written.is_err() {
                return;
            }
        }
        if out.flush().is_err() {
            return;
        }
    }
}

/// The records of a tap log, each line's fields read from the line logged with it (a log line
/// not yet complete, or not a record, is skipped).
pub fn read_log(path: &std::path::Path) -> Vec<Record> {
    let log = std::fs::read(path).unwrap_or_default();
    log.split(|b| *b == b'\n')
        .filter_map(|entry| {
            let tab = memchr::memchr(b'\t', entry)?;
            let header: Record = serde_json::from_slice(&entry[..tab]).ok()?;
            let raw = &entry[tab + 1..];
            match header.dir {
                Some(dir) if !raw.is_empty() => {
                    Some(Record::of_line(header.pid, dir, header.at, raw))
                }
                _ => Some(header),
            }
        })
        .collect()
}

/// claude's exit code, or 128 + the signal that ended it, as a shell reports it.
fn exit_code(status: &ExitStatus) -> i32 {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return 128 + signal;
        }
    }
    status.code().unwrap_or(127)
}

/// claude gets SIGKILL when the tap dies, however it dies (Linux's parent death signal).
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: prctl is async-signal-safe; it only sets this child's parent death signal.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Elsewhere claude-acp's process group (or job object) is what ends claude with the tap.
#[cfg(not(target_os = "linux"))]
fn die_with_parent(_command: &mut Command) {}
