//! Processes the bench runs: `claude-acp` with the claude stand-in behind a wrapper script (plain,
//! or with the timestamping tap between the stand-in and the adapter), and the stand-in alone.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::peer::{Peer, mono_ns};

pub const ADAPTER: &str = env!("CARGO_BIN_EXE_claude-acp");
/// Set (to a log file) in the environment of the bench binary when it runs as the tap.
pub const TAP_ENV: &str = "ADAPTER_COST_TAP";

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/standin")
        .join(format!("{name}.jsonl"))
}

/// A `claude` for the adapter: a wrapper script running the stand-in on one fixture.
pub struct Claude {
    dir: tempfile::TempDir,
    wrapper: PathBuf,
    /// With the tap: its log, one `<mono_ns> <text>` line per text delta it forwarded.
    pub tap_log: Option<PathBuf>,
}

impl Claude {
    /// `exec claude-acp standin --script <fixture> "$@"`, as the integration tests do.
    pub fn standin(fixture_name: &str) -> Claude {
        Self::with_body(fixture_name, false)
    }

    /// The stand-in piped through the tap, which stamps each delta line as it hands it on.
    pub fn tapped(fixture_name: &str) -> Claude {
        Self::with_body(fixture_name, true)
    }

    fn with_body(fixture_name: &str, tap: bool) -> Claude {
        let script = fixture(fixture_name);
        assert!(script.exists(), "missing {}", script.display());
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join("work")).expect("work dir");
        let wrapper = dir.path().join("claude");
        let tap_log = tap.then(|| dir.path().join("tap.log"));
        let standin = format!("'{ADAPTER}' standin --script '{}' \"$@\"", script.display());
        let body = match &tap_log {
            None => format!("#!/bin/sh\nexec {standin}\n"),
            Some(log) => {
                let bench = std::env::current_exe().expect("bench path");
                format!(
                    "#!/bin/sh\n{standin} | {TAP_ENV}='{}' '{}'\n",
                    log.display(),
                    bench.display()
                )
            }
        };
        std::fs::write(&wrapper, body).expect("write wrapper");
        claude_acp::platform::files::make_executable(&wrapper).expect("chmod");
        Claude {
            dir,
            wrapper,
            tap_log,
        }
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

    pub fn adapter(&self) -> Peer {
        Peer::spawn(self.adapter_command())
    }

    /// The tap's entries so far: (time it forwarded the line, delta text).
    pub fn tap_entries(&self) -> Vec<(u64, String)> {
        let log = self.tap_log.as_ref().expect("a tapped claude");
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| {
                let (at, text) = l.split_once(' ')?;
                Some((at.parse().ok()?, serde_json::from_str(text).ok()?))
            })
            .collect()
    }
}

/// ACP `initialize` params of a plain editor.
pub fn initialize_params() -> Value {
    json!({
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
        "clientInfo": {"name": "adapter-cost-bench", "version": "0.0.0"},
    })
}

pub fn new_session(adapter: &mut Peer, cwd: &Path) -> String {
    let (_, response, _) = adapter.request("session/new", json!({"cwd": cwd, "mcpServers": []}));
    response.value["result"]["sessionId"]
        .as_str()
        .expect("session/new gives a sessionId")
        .to_owned()
}

pub fn prompt_params(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

/// The stand-in alone, started with the flags the adapter gives claude, after the `initialize`
/// control handshake: the baseline a turn through the adapter is compared with.
pub struct Direct {
    pub peer: Peer,
    pub session_id: String,
    _work: tempfile::TempDir,
}

impl Direct {
    pub fn start(fixture_name: &str) -> Direct {
        let work = tempfile::tempdir().expect("temp dir");
        let session_id = uuid::Uuid::new_v4().to_string();
        let mut command = Command::new(ADAPTER);
        command
            .arg("standin")
            .arg("--script")
            .arg(fixture(fixture_name))
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
            .current_dir(work.path());
        let mut peer = Peer::spawn(command);
        peer.send(
            &json!({"type": "control_request", "request_id": "bench-init",
            "request": {"subtype": "initialize"}}),
        );
        peer.recv_type("control_response");
        Direct {
            peer,
            session_id,
            _work: work,
        }
    }

    /// Writes a user message; returns the write time, the `result` line and the lines before it.
    pub fn turn(&mut self, text: &str) -> (u64, crate::peer::Line, Vec<crate::peer::Line>) {
        let sent = self.peer.send(&json!({"type": "user",
            "message": {"role": "user", "content": [{"type": "text", "text": text}]},
            "parent_tool_use_id": null, "session_id": self.session_id}));
        let (result, before) = self.peer.recv_type("result");
        (sent, result, before)
    }
}

/// The tap: copies stdin to stdout line by line, and after handing on each `text_delta` line
/// appends `<mono_ns when read> <text as JSON>` to the log in `$ADAPTER_COST_TAP`.
pub fn run_tap(log: &str) {
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .expect("open tap log");
    let mut input = std::io::stdin().lock();
    let mut output = std::io::stdout().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let at = mono_ns();
        if output
            .write_all(&line)
            .and_then(|()| output.flush())
            .is_err()
        {
            return;
        }
        if line.len() < 4096 && line.windows(12).any(|w| w == b"\"text_delta\"") {
            let value: Value = serde_json::from_slice(&line).unwrap_or_default();
            if let Some(text) = value["event"]["delta"]["text"].as_str() {
                let entry = format!("{at} {}\n", Value::from(text));
                let _ = log.write_all(entry.as_bytes());
            }
        }
    }
}
