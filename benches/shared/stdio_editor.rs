//! The benches' editor: the release adapter driven over its stdio, one request at a time, every
//! line timestamped on arrival and every permission ask allowed; and the stand-in run as claude
//! through a wrapper script.

// Each bench uses part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub const ADAPTER: &str = env!("CARGO_BIN_EXE_claude-acp");

/// A script `claude` in `dir` that runs the stand-in on `fixtures/standin/<script>`.
pub fn standin_claude(dir: &Path, script: &str) -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/standin")
        .join(script);
    let path = dir.join("claude");
    let body = format!(
        "#!/bin/sh\nexec '{ADAPTER}' standin --script '{}' \"$@\"\n",
        script.display()
    );
    std::fs::write(&path, body).expect("wrapper");
    claude_acp::platform::files::make_executable(&path).expect("chmod");
    path
}

/// The adapter running `claude` with this idle timeout, in `work`.
pub fn adapter(claude: &Path, idle_timeout: &str, work: &Path) -> Editor {
    let mut command = Command::new(ADAPTER);
    command
        .arg("--claude-path")
        .arg(claude)
        .args(["--idle-timeout", idle_timeout])
        .env_remove("RUST_LOG")
        .current_dir(work);
    Editor::spawn(command)
}

/// An answer to a request: when it was sent, when its first `agent_message_chunk` came, its result.
pub struct Answer {
    pub sent: Instant,
    pub first_chunk: Option<Instant>,
    pub result: Value,
}

/// An editor on the adapter's stdio.
pub struct Editor {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<(Instant, Value)>,
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
                    && tx.send((Instant::now(), value)).is_err()
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

    fn write(&mut self, message: Value) -> Instant {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write to claude-acp");
        stdin.flush().expect("flush");
        Instant::now()
    }

    /// Sends a request and waits for its answer, allowing every permission ask meanwhile.
    pub fn request(&mut self, method: &str, params: Value) -> Answer {
        self.next_id += 1;
        let id = self.next_id;
        let sent =
            self.write(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut first_chunk = None;
        loop {
            let (at, line) = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("{method} answered within a minute"));
            if line["method"] == "session/request_permission" {
                let allow = json!({"outcome": {"outcome": "selected", "optionId": "allow_once"}});
                self.write(json!({"jsonrpc": "2.0", "id": line["id"], "result": allow}));
            } else if line["id"] == id && line.get("method").is_none() {
                assert!(line.get("error").is_none(), "{method}: {line}");
                return Answer {
                    sent,
                    first_chunk,
                    result: line["result"].clone(),
                };
            } else if line["params"]["update"]["sessionUpdate"] == "agent_message_chunk" {
                first_chunk.get_or_insert(at);
            }
        }
    }

    pub fn new_session(&mut self, cwd: &Path) -> String {
        let answer = self.request("session/new", json!({"cwd": cwd, "mcpServers": []}));
        answer.result["sessionId"]
            .as_str()
            .expect("sessionId")
            .to_owned()
    }

    /// One turn with this text.
    pub fn prompt(&mut self, session: &str, text: &str) -> Answer {
        let params = json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]});
        self.request("session/prompt", params)
    }

    /// Polls until `claudes` counts `n` claude processes (starting or ending one is not instant).
    pub fn wait_for_claudes(&self, n: usize, claudes: impl Fn(&Editor) -> usize) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while claudes(self) != n {
            assert!(
                Instant::now() < deadline,
                "{} claude processes, waiting for {n}",
                claudes(self)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Closes the adapter's stdin and waits for it to exit.
    pub fn close(&mut self) -> ExitStatus {
        drop(self.stdin.take());
        self.child.wait().expect("adapter exits")
    }
}

impl Drop for Editor {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}
