//! One child process spoken to in JSON lines over stdio, with every line it prints stamped on
//! arrival (CLOCK_MONOTONIC, comparable across processes) by a reader thread. The child leads its
//! own process group, killed whole when the peer is dropped, so no claude outlives a run.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// How long any single wait may take before the bench gives up.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Nanoseconds on a machine-wide monotonic clock: the same clock in the bench, the tap and every
/// child process.
pub fn mono_ns() -> u64 {
    claude_acp::platform::clock::monotonic_ns()
}

/// A line the child printed, parsed, with the time the reader had it in full.
pub struct Line {
    pub at: u64,
    pub value: Value,
}

pub struct Peer {
    /// When `spawn` returned: the child's program was loaded (exec had succeeded). Start-up figures
    /// count from here, not from before the spawn: the bench forks itself to enter the mock's network
    /// namespace (tens of MiB of page tables, 15+ ms), a cost of the bench alone, paid alike by every
    /// backend started in that namespace and by none of the others.
    pub spawned_at: u64,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    next_id: i64,
}

impl Peer {
    /// Spawns `command` with piped stdin/stdout (stderr discarded, as nothing here reads it).
    pub fn spawn(mut command: Command) -> Peer {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        lead_own_group(&mut command);
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn {command:?}: {e}"));
        let spawned_at = mono_ns();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 16, stdout);
            let mut buffer = Vec::new();
            loop {
                buffer.clear();
                match reader.read_until(b'\n', &mut buffer) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                let at = mono_ns();
                if let Ok(value) = serde_json::from_slice(&buffer)
                    && sender.send(Line { at, value }).is_err()
                {
                    return;
                }
            }
        });
        Peer {
            spawned_at,
            child,
            stdin,
            lines,
            next_id: 1,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes `value` as one line; returns the time just before the write.
    pub fn send(&mut self, value: &Value) -> u64 {
        let mut line = value.to_string();
        line.push('\n');
        let stdin = self.stdin.as_mut().expect("stdin still open");
        let at = mono_ns();
        stdin.write_all(line.as_bytes()).expect("write to child");
        stdin.flush().expect("flush child stdin");
        at
    }

    /// The next line the child printed; panics after [`TIMEOUT`] or when it closed stdout.
    pub fn recv(&mut self) -> Line {
        match self.lines.recv_timeout(TIMEOUT) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => {
                panic!("no line from pid {} in {TIMEOUT:?}", self.pid())
            }
            Err(RecvTimeoutError::Disconnected) => panic!("pid {} closed its stdout", self.pid()),
        }
    }

    /// Sends a JSON-RPC request and reads until its response. Returns the send time, the
    /// response line and every other line read meanwhile (notifications). A permission request
    /// from the child is answered with its allow-once option; other requests are refused.
    pub fn request(&mut self, method: &str, params: Value) -> (u64, Line, Vec<Line>) {
        self.try_request(method, params)
            .unwrap_or_else(|error| panic!("{method} failed: {error}"))
    }

    /// [`Peer::request`], with an error answer returned rather than a panic.
    pub fn try_request(
        &mut self,
        method: &str,
        params: Value,
    ) -> Result<(u64, Line, Vec<Line>), Value> {
        let id = self.next_id;
        self.next_id += 1;
        let sent =
            self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut others = Vec::new();
        loop {
            let line = self.recv();
            if line.value.get("method").is_some() && line.value.get("id").is_some() {
                let answer = answer_request(&line.value);
                self.send(&answer);
                others.push(line);
                continue;
            }
            if line.value.get("method").is_none() && line.value["id"] == json!(id) {
                if let Some(error) = line.value.get("error") {
                    return Err(error.clone());
                }
                return Ok((sent, line, others));
            }
            others.push(line);
        }
    }

    /// Reads until a line of stream-json `type` (direct stand-in driving); returns it and the
    /// lines before it.
    pub fn recv_type(&mut self, kind: &str) -> (Line, Vec<Line>) {
        let mut before = Vec::new();
        loop {
            let line = self.recv();
            if line.value["type"] == kind {
                return (line, before);
            }
            before.push(line);
        }
    }

    /// Nanoseconds the child's live threads have spent on a CPU (sum of
    /// /proc/<pid>/task/*/schedstat): the adapter's own work, whatever the load on the machine.
    pub fn cpu_ns(&self) -> u64 {
        self.schedstat(0)
    }

    /// Nanoseconds the child's live threads have spent runnable but waiting for a CPU (the
    /// second field of schedstat): time the machine, not the adapter, made it lose.
    pub fn cpu_wait_ns(&self) -> u64 {
        self.schedstat(1)
    }

    fn schedstat(&self, field: usize) -> u64 {
        schedstat(self.pid(), field).expect("read the child's task dir")
    }

    /// `(VmRSS, VmHWM)` in KiB from /proc/<pid>/status.
    pub fn memory_kib(&self) -> (u64, u64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .expect("read /proc/<pid>/status");
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
                .unwrap_or_else(|| panic!("no {name} in /proc/<pid>/status"))
        };
        (field("VmRSS:"), field("VmHWM:"))
    }
}

/// `field` of /proc/<pid>/task/*/schedstat summed over the live threads of `pid` (0: ns on a CPU,
/// 1: ns runnable, waiting for one); `None` once the process is gone.
pub fn schedstat(pid: u32, field: usize) -> Option<u64> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let sum = tasks
        .filter_map(|task| {
            let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
            stat.split_whitespace().nth(field)?.parse::<u64>().ok()
        })
        .sum();
    Some(sum)
}

/// The bench editor's answer to a request from the adapter: allow once; files read from and
/// written to the disk (an editor with no unsaved buffers); anything else "not supported".
fn answer_request(request: &Value) -> Value {
    let params = &request["params"];
    let path = params["path"].as_str().unwrap_or_default();
    let served = match request["method"].as_str() {
        Some("fs/read_text_file") => Some(match std::fs::read_to_string(path) {
            Ok(content) => Ok(json!({"content": content})),
            Err(e) => Err(e.to_string()),
        }),
        Some("fs/write_text_file") => Some(
            std::fs::write(path, params["content"].as_str().unwrap_or_default())
                .map(|()| Value::Null)
                .map_err(|e| e.to_string()),
        ),
        _ => None,
    };
    match served {
        Some(Ok(result)) => return json!({"jsonrpc": "2.0", "id": request["id"], "result": result}),
        Some(Err(message)) => {
            return json!({"jsonrpc": "2.0", "id": request["id"],
                "error": {"code": -32603, "message": message}});
        }
        None => {}
    }
    let allow = (request["method"] == "session/request_permission")
        .then(|| request["params"]["options"].as_array())
        .flatten()
        .and_then(|options| options.iter().find(|o| o["kind"] == "allow_once"))
        .map(|option| option["optionId"].clone());
    match allow {
        Some(id) => json!({"jsonrpc": "2.0", "id": request["id"],
            "result": {"outcome": {"outcome": "selected", "optionId": id}}}),
        None => json!({"jsonrpc": "2.0", "id": request["id"],
            "error": {"code": -32601, "message": "not supported by the bench client"}}),
    }
}

impl Drop for Peer {
    /// Closes stdin, as an editor does, and reaps the child (killing it if it lingers), then
    /// kills what is left of its process group.
    fn drop(&mut self) {
        drop(self.stdin.take());
        let mut exited = false;
        for _ in 0..300 {
            if let Ok(Some(_)) = self.child.try_wait() {
                exited = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        kill_group(&mut self.child);
        if !exited {
            let _ = self.child.wait();
        }
    }
}

/// Makes the child lead a process group of its own (Unix), so [`kill_group`] reaches all it starts.
#[cfg(unix)]
fn lead_own_group(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
}

/// Windows has no process groups to lead; the child alone is killed there.
#[cfg(not(unix))]
fn lead_own_group(_command: &mut Command) {}

/// Kills what is left of the group the child leads.
#[cfg(unix)]
fn kill_group(child: &mut Child) {
    // SAFETY: kill(2) on the process group this peer's child leads (lead_own_group).
    unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
}

/// Kills the child (what it started is not tracked on Windows; the bench runs on Unix).
#[cfg(not(unix))]
fn kill_group(child: &mut Child) {
    let _ = child.kill();
}
