//! Drives a spawned claude directly over its stream-json stdio (one JSON object per line each way),
//! keeping a transcript so that a failing test shows what claude said.

use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// A running claude process spoken to in stream-json.
pub struct StreamJsonProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
    stderr: Arc<Mutex<String>>,
    /// The task reading stderr; it ends when claude's stderr closes (claude exited).
    stderr_reader: Option<tokio::task::JoinHandle<()>>,
    transcript: Vec<Value>,
}

impl StreamJsonProcess {
    /// Spawns `command` (stdin/stdout/stderr must be piped, as `ClaudeEnv::command` does).
    pub fn spawn(mut command: tokio::process::Command) -> StreamJsonProcess {
        let mut child = command.spawn().expect("spawn claude");
        let stdin = child.stdin.take().expect("claude stdin is piped");
        let stdout = child.stdout.take().expect("claude stdout is piped");
        let mut stderr_pipe = child.stderr.take().expect("claude stderr is piped");
        let stderr = Arc::new(Mutex::new(String::new()));
        let stderr_sink = Arc::clone(&stderr);
        let stderr_reader = tokio::spawn(async move {
            let mut buffer = [0u8; 4096];
            while let Ok(read) = stderr_pipe.read(&mut buffer).await {
                if read == 0 {
                    break;
                }
                let text = String::from_utf8_lossy(&buffer[..read]);
                stderr_sink.lock().unwrap().push_str(&text);
            }
        });
        StreamJsonProcess {
            child,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout).lines(),
            stderr,
            stderr_reader: Some(stderr_reader),
            transcript: Vec::new(),
        }
    }

    /// Writes one message as a line.
    pub async fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin already closed");
        let line = format!("{message}\n");
        stdin
            .write_all(line.as_bytes())
            .await
            .expect("write to claude");
        stdin.flush().await.expect("flush claude stdin");
    }

    /// Sends a user prompt: `{"type":"user","message":{"role":"user","content":text},...}`.
    pub async fn send_user_text(&mut self, text: &str) {
        self.send(
            &json!({"type": "user", "message": {"role": "user", "content": text},
                          "parent_tool_use_id": null}),
        )
        .await;
    }

    /// Answers a control request (e.g. `can_use_tool`) with `success` and `response`.
    pub async fn answer_control(&mut self, request_id: &str, response: Value) {
        self.send(&json!({"type": "control_response", "response": {
                "subtype": "success", "request_id": request_id, "response": response}}))
            .await;
    }

    /// Closes claude's stdin (claude finishes the turn and exits).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next stdout message; `None` at end of output. Panics on a non-JSON line or after `timeout`.
    pub async fn next_message(&mut self, timeout: Duration) -> Option<Value> {
        let line = match tokio::time::timeout(timeout, self.stdout.next_line()).await {
            Ok(line) => line.expect("read claude stdout"),
            Err(_) => self.fail(&format!("no message from claude within {timeout:?}")),
        }?;
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| self.fail(&format!("non-JSON line from claude ({e}): {line}")));
        self.transcript.push(message.clone());
        Some(message)
    }

    /// Reads messages until one satisfies `wanted` and returns it; panics (with the transcript) if the
    /// output ends or nothing matches within `timeout`.
    pub async fn read_until(
        &mut self,
        what: &str,
        timeout: Duration,
        wanted: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                self.fail(&format!("no {what} within {timeout:?}"));
            }
            match self.next_message(left).await {
                Some(message) if wanted(&message) => return message,
                Some(_) => {}
                None => self.fail(&format!("claude's output ended before {what}")),
            }
        }
    }

    /// Every message read so far.
    pub fn transcript(&self) -> &[Value] {
        &self.transcript
    }

    /// Everything claude wrote on stderr, once its stderr has closed; panics after `timeout`.
    pub async fn stderr_to_end(&mut self, timeout: Duration) -> String {
        if let Some(reader) = self.stderr_reader.take()
            && tokio::time::timeout(timeout, reader).await.is_err()
        {
            self.fail(&format!("claude's stderr still open after {timeout:?}"));
        }
        self.stderr()
    }

    /// What claude wrote on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Closes stdin and waits for claude to exit; panics after `timeout`.
    pub async fn finish(mut self, timeout: Duration) -> ExitStatus {
        self.close_stdin();
        while let Ok(Ok(Some(line))) = tokio::time::timeout(timeout, self.stdout.next_line()).await
        {
            if let Ok(message) = serde_json::from_str(&line) {
                self.transcript.push(message);
            }
        }
        match tokio::time::timeout(timeout, self.child.wait()).await {
            Ok(status) => status.expect("wait for claude"),
            Err(_) => self.fail(&format!("claude did not exit within {timeout:?}")),
        }
    }

    /// Panics with `why`, the transcript and claude's stderr.
    pub fn fail(&self, why: &str) -> ! {
        let transcript: Vec<String> = self.transcript.iter().map(Value::to_string).collect();
        panic!(
            "{why}\n--- claude stdout ({} messages) ---\n{}\n--- claude stderr ---\n{}",
            transcript.len(),
            transcript.join("\n"),
            self.stderr()
        );
    }
}

/// The `type` of a stream-json message (and `subtype` after a slash when present), e.g. `system/init`.
pub fn kind(message: &Value) -> String {
    match (message["type"].as_str(), message["subtype"].as_str()) {
        (Some(kind), Some(subtype)) => format!("{kind}/{subtype}"),
        (Some(kind), None) => kind.to_string(),
        _ => "?".to_string(),
    }
}

/// The text_delta pieces among `stream_event` messages, concatenated.
pub fn streamed_text(messages: &[Value]) -> String {
    messages
        .iter()
        .filter(|m| m["type"] == "stream_event")
        .filter(|m| m["event"]["delta"]["type"] == "text_delta")
        .filter_map(|m| m["event"]["delta"]["text"].as_str())
        .collect()
}
