//! An editor at the byte level: sends any bytes (invalid UTF-8, endless lines) and reads the
//! adapter's stdout only when the test says so, to play an editor that stops reading.
#![allow(dead_code)]

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::standin::Standin;

const READ_TIMEOUT: Duration = Duration::from_secs(30);

pub struct RawEditor {
    pub child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// Every JSON line read so far.
    pub seen: Vec<Value>,
}

impl RawEditor {
    /// claude-acp with `standin` as its claude.
    pub fn spawn(standin: &Standin) -> Self {
        let mut child = Command::new(crate::support::adapter())
            .args(["--claude-path", standin.claude.to_str().unwrap()])
            .envs(standin.env())
            .env("CLAUDE_CONFIG_DIR", standin.config_dir())
            .current_dir(standin.dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn claude-acp");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        RawEditor {
            child,
            stdin,
            stdout,
            seen: Vec::new(),
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id().expect("running")
    }

    pub async fn send(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).await.expect("adapter stdin");
        self.stdin.flush().await.unwrap();
    }

    /// The next line of stdout, as JSON; `None` at EOF.
    pub async fn next(&mut self) -> Option<Value> {
        let mut line = String::new();
        let n = tokio::time::timeout(READ_TIMEOUT, self.stdout.read_line(&mut line))
            .await
            .expect("a line from the adapter in time")
            .expect("read stdout");
        if n == 0 {
            return None;
        }
        let value: Value = serde_json::from_str(&line).expect("stdout carries JSON lines");
        self.seen.push(value.clone());
        Some(value)
    }

    /// Reads until the answer to `id` (requests from the adapter are not expected here).
    pub async fn answer(&mut self, id: &Value) -> Value {
        loop {
            let line = self
                .next()
                .await
                .expect("the adapter answered before exiting");
            if &line["id"] == id && line.get("method").is_none() {
                return line;
            }
        }
    }

    pub async fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(format!("{line}\n").as_bytes()).await;
        self.answer(&json!(id)).await
    }

    pub async fn initialize(&mut self) {
        let reply = self
            .request(
                0,
                "initialize",
                json!({"protocolVersion": 1, "clientCapabilities": {}}),
            )
            .await;
        assert!(reply.get("result").is_some(), "{reply}");
    }

    pub async fn new_session(&mut self, id: i64, cwd: &std::path::Path) -> String {
        let reply = self
            .request(id, "session/new", json!({"cwd": cwd, "mcpServers": []}))
            .await;
        reply["result"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {reply}"))
            .to_owned()
    }

    /// Sends a prompt without reading anything.
    pub async fn send_prompt(&mut self, id: i64, session: &str, text: &str) {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt",
            "params": {"sessionId": session, "prompt": [{"type": "text", "text": text}]}});
        self.send(format!("{line}\n").as_bytes()).await;
    }
}
