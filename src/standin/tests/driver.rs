//! A small in-process driver that speaks to the stand-in like claude-acp does: initialize,
//! prompts, permission answers, interrupts, mode changes.

use super::runtime;
use crate::standin::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::task::JoinHandle;

/// How the driver answers a `can_use_tool`.
#[derive(Clone)]
pub(super) enum Answer {
    Allow,
    Deny(&'static str),
    /// Cancel the turn as the adapter does: deny with `interrupt: true`, then send an interrupt.
    Interrupt,
}

pub(super) struct Driver {
    to_claude: Option<DuplexStream>,
    from_claude: Lines<BufReader<DuplexStream>>,
    stderr: JoinHandle<String>,
    exit: JoinHandle<i32>,
    session_id: String,
    requests: usize,
}

pub(super) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/standin")
        .join(name)
}

impl Driver {
    pub(super) fn start(script: Script, extra_args: &[&str], dir: &Path) -> Driver {
        let session_id = "0f0e0d0c-1111-4222-8333-444455556666".to_string();
        let mut args: Vec<String> = crate::claude::STREAM_JSON_ARGS.map(String::from).to_vec();
        if !extra_args.contains(&"--resume") {
            args.extend(["--session-id".to_string(), session_id.clone()]);
        }
        args.extend(extra_args.iter().map(|s| s.to_string()));
        let (to_claude, stdin) = tokio::io::duplex(1 << 16);
        let (stdout, from_claude) = tokio::io::duplex(1 << 16);
        let (stderr_w, mut stderr_r) = tokio::io::duplex(1 << 16);
        let rt = runtime(dir);
        let exit = tokio::spawn(run_with_runtime(
            script,
            args,
            rt,
            BufReader::new(stdin),
            stdout,
            stderr_w,
        ));
        let stderr = tokio::spawn(async move {
            let mut text = String::new();
            let _ = stderr_r.read_to_string(&mut text).await;
            text
        });
        let session_id = match extra_args.iter().position(|a| *a == "--resume") {
            Some(i) => extra_args[i + 1].to_string(),
            None => session_id,
        };
        let from_claude = BufReader::with_capacity(1 << 16, from_claude).lines();
        Driver {
            to_claude: Some(to_claude),
            from_claude,
            stderr,
            exit,
            session_id,
            requests: 0,
        }
    }

    pub(super) async fn send(&mut self, line: Value) {
        let mut text = line.to_string();
        text.push('\n');
        let pipe = self.to_claude.as_mut().expect("stdin still open");
        pipe.write_all(text.as_bytes()).await.unwrap();
    }

    pub(super) async fn control(&mut self, request: Value) {
        self.requests += 1;
        let id = format!("drv-{}", self.requests);
        self.send(json!({"type":"control_request","request_id":id,"request":request}))
            .await;
    }

    /// The next stdout line: JSON, or a string for a line that is not JSON. `None` at EOF.
    pub(super) async fn next(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(Duration::from_secs(10), self.from_claude.next_line())
            .await
            .expect("the stand-in answers within 10 s")
            .unwrap()?;
        let value = serde_json::from_str(&line).unwrap_or(Value::String(line));
        if let Some(sid) = value.get("session_id") {
            assert_eq!(sid, &json!(self.session_id), "session_id of {value}");
        }
        Some(value)
    }

    pub(super) async fn initialize(&mut self) -> Value {
        self.control(json!({"subtype":"initialize","hooks":null}))
            .await;
        let reply = self.next().await.expect("an initialize reply");
        assert_eq!(reply["response"]["request_id"], "drv-1");
        reply["response"]["response"].clone()
    }

    /// Sends a prompt and plays the turn until its result; returns every line of the turn.
    pub(super) async fn turn(
        &mut self,
        prompt: &str,
        answer: Answer,
        interrupt_after_deltas: Option<usize>,
    ) -> Vec<Value> {
        self.send(json!({"type":"user","message":{"role":"user","content":[{"type":"text","text":prompt}]},
            "parent_tool_use_id":null,"session_id":self.session_id}))
            .await;
        let mut lines = Vec::new();
        let mut deltas = 0;
        loop {
            let line = self
                .next()
                .await
                .unwrap_or_else(|| panic!("stdout closed mid-turn after {lines:?}"));
            lines.push(line.clone());
            match (line["type"].as_str(), line["request"]["subtype"].as_str()) {
                (Some("result"), _) => return lines,
                (Some("control_request"), Some("can_use_tool")) => {
                    let id = line["request_id"].clone();
                    let response = match &answer {
                        Answer::Allow => {
                            json!({"behavior":"allow","updatedInput":line["request"]["input"]})
                        }
                        Answer::Deny(message) => json!({"behavior":"deny","message":message}),
                        Answer::Interrupt => {
                            let deny = json!({"behavior":"deny","message":"The user cancelled the turn.","interrupt":true});
                            self.send(json!({"type":"control_response","response":{"subtype":"success","request_id":id,"response":deny}}))
                                .await;
                            self.control(json!({"subtype":"interrupt"})).await;
                            continue;
                        }
                    };
                    self.send(json!({"type":"control_response","response":{"subtype":"success","request_id":id,"response":response}}))
                        .await;
                }
                (Some("control_request"), Some(other)) => {
                    let id = line["request_id"].clone();
                    let error = format!("Unsupported control request subtype: {other}");
                    self.send(json!({"type":"control_response","response":{"subtype":"error","request_id":id,"error":error}}))
                        .await;
                }
                (Some("stream_event"), _) if line["event"]["type"] == "content_block_delta" => {
                    deltas += 1;
                    if interrupt_after_deltas == Some(deltas) {
                        self.control(json!({"subtype":"interrupt"})).await;
                    }
                }
                _ => {}
            }
        }
    }

    /// Closes stdin and returns (exit code, stderr, lines printed after that).
    pub(super) async fn finish(mut self) -> (i32, String, Vec<Value>) {
        self.to_claude = None;
        let mut rest = Vec::new();
        while let Some(line) = self.next().await {
            rest.push(line);
        }
        let code = self.exit.await.unwrap();
        (code, self.stderr.await.unwrap(), rest)
    }
}

pub(super) fn results(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l["type"] == "result").collect()
}

pub(super) fn texts(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l["type"] == "assistant")
        .flat_map(|l| {
            l["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|b| b["text"].as_str().map(str::to_owned))
        .collect()
}

/// Plays a fixture with one answer policy per prompt and checks it ends cleanly.
pub(super) async fn play(
    name: &str,
    args: &[&str],
    prompts: &[(&str, Answer)],
) -> (tempfile::TempDir, Vec<Vec<Value>>) {
    let dir = tempfile::tempdir().unwrap();
    let mut driver = Driver::start(Script::load(fixture(name)).unwrap(), args, dir.path());
    let init = driver.initialize().await;
    assert_eq!(init["claude_code_version"], "2.1.332");
    assert_eq!(init["pid"], 4242);
    let mut turns = Vec::new();
    for (prompt, answer) in prompts {
        turns.push(driver.turn(prompt, answer.clone(), None).await);
    }
    let (code, stderr, rest) = driver.finish().await;
    assert_eq!((code, stderr.as_str(), rest), (0, "", vec![]), "{name}");
    for turn in &turns {
        assert_eq!(
            turn.iter()
                .filter(|l| l["type"] == "system" && l["subtype"] == "init")
                .count(),
            1,
            "{name}"
        );
        assert!(
            !turn.iter().any(|l| l.to_string().contains("${")),
            "{name}: unsubstituted variable"
        );
    }
    (dir, turns)
}
