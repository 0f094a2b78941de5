//! The real pinned claude against the mock API: driven directly over stream-json (the floor),
//! through claude-acp, and through the TypeScript adapter (installed here from npm, pinned, with
//! `CLAUDE_CODE_EXECUTABLE` pointing at the same claude).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::peer::{Line, Peer};
use crate::standin::{ADAPTER, user_message};
use crate::support::mock_api::{Block, MockApi, Reply, Rule};
use crate::support::real_cli::{ClaudeEnv, claude_binary};

/// The TypeScript adapter the figures are compared with. Bumping it is this one line.
pub const TS_ADAPTER_VERSION: &str = "0.101.0";
const TS_PACKAGE: &str = "@agentclientprotocol/claude-agent-acp";

/// Prompts the mock answers: a short greeting, a 2,000-delta reply, a 10 MiB Write.
pub const SHORT: &str = "bench: say hello";
pub const LONG: &str = "bench: a long reply";
pub const WRITE: &str = "bench: write the big file";
pub const LONG_DELTAS: usize = 2000;
pub const WRITE_BYTES: usize = 10 * 1024 * 1024;

/// One mock API with the bench's rules, and a fresh environment around it.
pub struct Backend {
    pub mock: MockApi,
    pub env: ClaudeEnv,
}

impl Backend {
    pub fn start() -> Backend {
        let long_text: String = (0..LONG_DELTAS)
            .map(|i| format!("{:<4}", i % 1000))
            .collect();
        let mock = MockApi::start(vec![
            Rule::on_tool_result(Reply::text("Written.")),
            Rule::on_prompt(LONG, Reply::text(long_text).chunk_chars(4)),
        ]);
        let env = ClaudeEnv::new(&mock);
        let path = env.work_dir().join("big-written.txt");
        mock.push_rule(Rule::on_prompt(
            WRITE,
            Reply::blocks(vec![Block::ToolUse {
                name: "Write".into(),
                input: json!({"file_path": path, "content": "w".repeat(WRITE_BYTES)}),
            }])
            .chunk_chars(1 << 16),
        ));
        mock.push_rule(Rule::always(
            Reply::text("Hello from the mock model.").chunk_chars(4),
        ));
        Backend { mock, env }
    }

    /// Where the 10 MiB Write lands.
    pub fn written_file(&self) -> PathBuf {
        self.env.work_dir().join("big-written.txt")
    }

    pub fn requests(&self) -> usize {
        self.mock.requests().len()
    }

    /// claude-acp, finding the pinned claude on the environment's PATH.
    pub fn claude_acp(&self) -> Command {
        self.env.command(ADAPTER).into_std()
    }

    /// The TypeScript adapter on node, with the same claude.
    pub fn ts_adapter(&self) -> Command {
        let mut command = self.env.command("node").into_std();
        command
            .arg(ts_adapter_entry())
            .env("CLAUDE_CODE_EXECUTABLE", claude_binary());
        command
    }

    /// claude alone with the flags claude-acp gives it.
    pub fn claude(&self) -> DirectClaude {
        let session_id = uuid::Uuid::new_v4().to_string();
        let mut command = self
            .env
            .claude_stream_json(["--include-partial-messages", "--session-id", &session_id])
            .into_std();
        command.stdin(Stdio::piped());
        DirectClaude {
            peer: Peer::spawn(command),
            session_id,
        }
    }
}

/// claude driven directly over stream-json; permission asks are allowed as they come.
pub struct DirectClaude {
    pub peer: Peer,
    session_id: String,
}

impl DirectClaude {
    /// Writes a user message; returns the write time and every line up to and including `result`.
    pub fn turn(&mut self, text: &str) -> (u64, Vec<Line>) {
        let sent = self.peer.send(&user_message(&self.session_id, text));
        let mut lines = Vec::new();
        loop {
            let line = self.peer.recv();
            if line.value["type"] == "control_request"
                && line.value["request"]["subtype"] == "can_use_tool"
            {
                let request = &line.value["request"];
                let answer = json!({"type": "control_response", "response": {
                    "subtype": "success", "request_id": line.value["request_id"],
                    "response": {"behavior": "allow", "updatedInput": request["input"]}}});
                self.peer.send(&answer);
            }
            let done = line.value["type"] == "result";
            lines.push(line);
            if done {
                return (sent, lines);
            }
        }
    }
}

/// When claude's first text delta arrived, among `lines`.
pub fn first_delta_at(lines: &[Line]) -> Option<u64> {
    lines
        .iter()
        .find(|l| l.value["event"]["delta"]["type"] == "text_delta")
        .map(|l| l.at)
}

/// `node_modules/<package>/dist/index.js` of the pinned TypeScript adapter, installing it into
/// `target/claude-agent-acp/` first if needed.
fn ts_adapter_entry() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/claude-agent-acp");
    let package = dir.join("node_modules").join(TS_PACKAGE);
    let entry = package.join("dist/index.js");
    let installed = std::fs::read_to_string(package.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .is_some_and(|p| p["version"] == TS_ADAPTER_VERSION);
    if installed && entry.exists() {
        return entry;
    }
    std::fs::create_dir_all(&dir).expect("create target/claude-agent-acp");
    let spec = format!("{TS_PACKAGE}@{TS_ADAPTER_VERSION}");
    eprintln!("installing {spec} into {} ...", dir.display());
    let status = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&dir)
        .arg(&spec)
        .current_dir(&dir)
        .stdin(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("cannot run npm to install {spec}: {e}"));
    assert!(status.success(), "`npm install {spec}` failed: {status}");
    assert!(
        entry.exists(),
        "{spec} installed without {}",
        entry.display()
    );
    entry
}
