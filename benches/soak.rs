//! Soak: the release adapter over 1,000 turns of one session and with 50 sessions open, on the
//! stand-in (`fixtures/standin/soak_turn.jsonl`: each turn streams text, asks to Write a file, the
//! bench allows it, claude writes it and answers). Printed, never asserted: the adapter's own
//! resident memory (VmRSS), open file descriptors and threads at checkpoints, which should stay
//! flat as turns go by, grow by a fixed amount per open session, and return to the one-session
//! figures once sessions are closed.
//!
//! Run: `cargo bench --bench soak`; `SOAK_TURNS` and `SOAK_SESSIONS` change the counts
//! (defaults 1000 and 50).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const ADAPTER: &str = env!("CARGO_BIN_EXE_claude-acp");

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("soak: run with `cargo bench --bench soak`");
        return;
    }
    let turns = count("SOAK_TURNS", 1000);
    let sessions = count("SOAK_SESSIONS", 50);
    let claude = StandIn::new();
    println!("claude-acp soak on the stand-in (soak_turn.jsonl), adapter process only\n");
    println!(
        "{:<34} {:>9} {:>9} {:>5} {:>7} {:>8}",
        "checkpoint", "RSS KiB", "peak KiB", "fds", "threads", "claudes"
    );
    soak_turns(&claude, turns);
    println!();
    soak_sessions(&claude, sessions);
}

fn count(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One session prompted `turns` times.
fn soak_turns(claude: &StandIn, turns: usize) {
    let mut editor = claude.adapter();
    editor.sample("started, initialized");
    let id = editor.new_session(&claude.work);
    let started = Instant::now();
    let mut failed = 0;
    for turn in 1..=turns {
        if editor.prompt(&id) != "end_turn" {
            failed += 1;
        }
        if [1, 10, 100, 500].contains(&turn) || turn % 1000 == 0 || turn == turns {
            editor.sample(&format!("turn {turn}"));
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "  {turns} turns in {seconds:.1} s ({:.1} ms a turn, each with a permission round trip); \
         turns not ending end_turn: {failed}",
        seconds * 1000.0 / turns as f64
    );
    editor.finish();
}

/// Sessions opened one by one (each prompted once) up to `sessions`, closed, then opened and
/// closed again one at a time.
fn soak_sessions(claude: &StandIn, sessions: usize) {
    let mut editor = claude.adapter();
    let mut open = Vec::new();
    for n in 1..=sessions {
        let id = editor.new_session(&claude.work);
        assert_eq!(editor.prompt(&id), "end_turn");
        open.push(id);
        if [1, 10, 50, sessions].contains(&n) {
            editor.wait_for_claudes(n);
            editor.sample(&format!("{n} sessions open"));
        }
    }
    for id in open.drain(..) {
        editor.request("session/close", json!({"sessionId": id}));
    }
    editor.wait_for_claudes(0);
    editor.sample(&format!("all {sessions} closed"));
    for _ in 0..sessions {
        let id = editor.new_session(&claude.work);
        assert_eq!(editor.prompt(&id), "end_turn");
        editor.request("session/close", json!({"sessionId": id}));
    }
    editor.wait_for_claudes(0);
    editor.sample(&format!("{sessions} more opened, closed"));
    editor.finish();
}

/// A wrapper script that runs the stand-in as claude, and the directory sessions work in.
struct StandIn {
    _dir: tempfile::TempDir,
    path: PathBuf,
    work: PathBuf,
}

impl StandIn {
    fn new() -> StandIn {
        let dir = tempfile::tempdir().expect("temp dir");
        let work = dir.path().join("work");
        std::fs::create_dir(&work).expect("work dir");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/standin/soak_turn.jsonl");
        let path = dir.path().join("claude");
        let body = format!(
            "#!/bin/sh\nexec '{ADAPTER}' standin --script '{}' \"$@\"\n",
            script.display()
        );
        std::fs::write(&path, body).expect("wrapper");
        claude_acp::platform::files::make_executable(&path).expect("chmod");
        StandIn {
            _dir: dir,
            path,
            work,
        }
    }

    fn adapter(&self) -> Editor {
        let mut command = Command::new(ADAPTER);
        command
            .arg("--claude-path")
            .arg(&self.path)
            .args(["--idle-timeout", "0"])
            .env_remove("RUST_LOG")
            .current_dir(&self.work);
        Editor::spawn(command)
    }
}

/// An editor on the adapter's stdio that allows every permission ask.
struct Editor {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    next_id: u64,
}

impl Editor {
    fn spawn(mut command: Command) -> Editor {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start claude-acp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(value) = serde_json::from_str(&line)
                    && tx.send(value).is_err()
                {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut editor = Editor {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        editor.request(
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": {}}),
        );
        editor
    }

    fn write(&mut self, message: Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write to claude-acp");
        stdin.flush().expect("flush");
    }

    /// Sends a request and returns its result, allowing every permission ask meanwhile.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.write(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("{method} answered within a minute"));
            if line["method"] == "session/request_permission" {
                let allow = json!({"outcome": {"outcome": "selected", "optionId": "allow_once"}});
                self.write(json!({"jsonrpc": "2.0", "id": line["id"], "result": allow}));
            } else if line["id"] == id && line.get("method").is_none() {
                assert!(line.get("error").is_none(), "{method}: {line}");
                return line["result"].clone();
            }
        }
    }

    fn new_session(&mut self, cwd: &Path) -> String {
        let result = self.request("session/new", json!({"cwd": cwd, "mcpServers": []}));
        result["sessionId"].as_str().expect("sessionId").to_owned()
    }

    /// One turn; its stop reason.
    fn prompt(&mut self, session: &str) -> String {
        let params =
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "make a file"}]});
        let result = self.request("session/prompt", params);
        result["stopReason"].as_str().unwrap_or_default().to_owned()
    }

    /// The adapter's children that are the stand-in (not its reaper process).
    fn claudes(&self) -> usize {
        let pid = self.child.id();
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
            .unwrap_or_default()
            .split_whitespace()
            .filter(|child| {
                let cmd = std::fs::read(format!("/proc/{child}/cmdline")).unwrap_or_default();
                String::from_utf8_lossy(&cmd).contains("soak_turn.jsonl")
            })
            .count()
    }

    /// Polls until the adapter runs `n` claude processes (closing one is not instant).
    fn wait_for_claudes(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.claudes() != n {
            assert!(
                Instant::now() < deadline,
                "{} claudes, not {n}",
                self.claudes()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn sample(&self, checkpoint: &str) {
        let pid = self.child.id();
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let field = |name: &str| -> u64 {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
                .unwrap_or(0)
        };
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .map(|d| d.count())
            .unwrap_or(0);
        println!(
            "{checkpoint:<34} {:>9} {:>9} {fds:>5} {:>7} {:>8}",
            field("VmRSS:"),
            field("VmHWM:"),
            field("Threads:"),
            self.claudes()
        );
    }

    /// Closes stdin and waits for the adapter to exit; says whether any claude outlived it.
    fn finish(mut self) {
        let pid = self.child.id();
        drop(self.stdin.take());
        let status = self.child.wait().expect("adapter exits");
        let orphans = orphans_of(pid);
        println!("  adapter exited ({status}); claude processes left behind: {orphans}");
    }
}

/// Stand-in processes still running (the adapter `pid` itself is not one).
fn orphans_of(pid: u32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| *p != pid)
        .filter(|p| {
            let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
            let cmd = String::from_utf8_lossy(&cmd);
            cmd.contains("soak_turn.jsonl")
        })
        .count()
}
