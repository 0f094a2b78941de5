//! The stand-in backend: `claude-acp` with the claude stand-in behind a wrapper script, the
//! stand-in alone (the floor for the adapter's own cost), and the looping fixtures of N deltas
//! the bench writes for itself (too big to keep in the repository).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::peer::{Line, Peer};

pub const ADAPTER: &str = env!("CARGO_BIN_EXE_claude-acp");

/// A fixture kept in `fixtures/standin/`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/standin")
        .join(format!("{name}.jsonl"))
}

/// A `claude` for the adapter: a wrapper script running the stand-in on one script.
pub struct Claude {
    dir: tempfile::TempDir,
    wrapper: PathBuf,
}

impl Claude {
    /// `exec claude-acp standin --script <script> "$@"`, as the integration tests do.
    pub fn standin(script: &Path) -> Claude {
        assert!(script.exists(), "missing {}", script.display());
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join("work")).expect("work dir");
        let wrapper = dir.path().join("claude");
        let body = format!(
            "#!/bin/sh\nexec '{ADAPTER}' standin --script '{}' \"$@\"\n",
            script.display()
        );
        std::fs::write(&wrapper, body).expect("write wrapper");
        claude_acp::platform::files::make_executable(&wrapper).expect("chmod");
        Claude { dir, wrapper }
    }

    /// The directory sessions are opened in.
    pub fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    /// The adapter's command line, as an editor starts it (no RUST_LOG: default logging).
    pub fn adapter_command(&self) -> Command {
        let mut command = Command::new(ADAPTER);
        command
            .arg("--claude-path")
            .arg(&self.wrapper)
            .current_dir(self.dir.path())
            .env_remove("RUST_LOG");
        command
    }

    /// The stand-in alone on the same script, started as the adapter starts it (the same wrapper,
    /// so both paths pay the same shell) with the flags the adapter gives claude.
    pub fn direct(&self) -> Direct {
        Direct::start(&self.wrapper, &self.work())
    }
}

/// The stand-in alone, after the `initialize` control handshake the adapter also makes.
pub struct Direct {
    pub peer: Peer,
    session_id: String,
}

impl Direct {
    fn start(wrapper: &Path, cwd: &Path) -> Direct {
        let session_id = uuid::Uuid::new_v4().to_string();
        let mut command = Command::new(wrapper);
        command
            .args([
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
            ])
            .args(["--verbose", "--include-partial-messages"])
            .args([
                "--permission-prompt-tool",
                "stdio",
                "--session-id",
                &session_id,
            ])
            .current_dir(cwd);
        let mut peer = Peer::spawn(command);
        peer.send(
            &json!({"type": "control_request", "request_id": "bench-init",
            "request": {"subtype": "initialize"}}),
        );
        peer.recv_type("control_response");
        Direct { peer, session_id }
    }

    /// Writes a user message; returns the write time, the `result` line and the lines before it.
    pub fn turn(&mut self, text: &str) -> (u64, Line, Vec<Line>) {
        let sent = self.peer.send(&user_message(&self.session_id, text));
        let (result, before) = self.peer.recv_type("result");
        (sent, result, before)
    }
}

/// A stream-json user message, as the adapter writes it.
pub fn user_message(session_id: &str, text: &str) -> Value {
    json!({"type": "user",
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
        "parent_tool_use_id": null, "session_id": session_id})
}

/// Writes a looping script into `dir`: every user message gets `deltas` text deltas back to back
/// (texts `tN `), the assistant message and a success result, shaped as in `bench_turn.jsonl`.
pub fn write_delta_script(dir: &Path, deltas: usize) -> PathBuf {
    let template = std::fs::read_to_string(fixture("bench_short")).expect("bench_short fixture");
    let steps: Vec<Value> = template
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).expect("bench_short step"))
        .collect();
    let is_delta = |s: &Value| s["emit"]["event"]["delta"]["type"] == "text_delta";
    let delta = steps
        .iter()
        .find(|s| is_delta(s))
        .expect("a text delta")
        .clone();
    let texts: Vec<String> = (0..deltas).map(|i| format!("t{i} ")).collect();
    let whole: String = texts.concat();
    let mut out = String::new();
    for step in &steps {
        if is_delta(step) {
            for (i, text) in texts.iter().enumerate() {
                let mut d = delta.clone();
                d["emit"]["event"]["delta"]["text"] = json!(text);
                d["emit"]["uuid"] = json!(format!("${{msg}}-d{i}"));
                out.push_str(&d.to_string());
                out.push('\n');
            }
            continue;
        }
        let mut step = step.clone();
        if step["emit"]["type"] == "assistant" {
            step["emit"]["message"]["content"] = json!([{"type": "text", "text": whole}]);
        }
        if step["emit"]["type"] == "result" || step["emit"].get("duration_api_ms").is_some() {
            step["emit"]["result"] = json!(whole);
        }
        out.push_str(&step.to_string());
        out.push('\n');
    }
    let path = dir.join(format!("deltas_{deltas}.jsonl"));
    std::fs::write(&path, out).expect("write delta script");
    path
}
