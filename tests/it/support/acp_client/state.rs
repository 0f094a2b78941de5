//! What the scripted client has seen from the adapter, and the loop that reads it.
//!
//! One reader task owns the adapter's stdout: it records every line, routes responses to the
//! request that waits for them, collects notifications, and answers (or holds) the adapter's own
//! requests. Everything a test asks later is answered from this record.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::{oneshot, watch};

/// A JSON-RPC error object the adapter answered with.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("JSON-RPC error {code}: {message}")]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

/// Why waiting for something from the adapter ended without it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum WaitError {
    #[error("timed out")]
    Timeout,
    #[error("the adapter closed its stdout")]
    Closed,
}

/// A request the adapter sent to the client (the editor side).
#[derive(Debug, Clone, PartialEq)]
pub struct IncomingRequest {
    pub id: Value,
    pub method: String,
    pub params: Value,
}

/// Answers one request method synchronously: `Ok(result)` or `Err((code, message))`.
pub type Responder = Arc<dyn Fn(&Value) -> Result<Value, (i64, String)> + Send + Sync>;

/// The write half of the adapter's stdin; `None` once the test closed it.
pub(super) type Writer = tokio::sync::Mutex<Option<ChildStdin>>;

#[derive(Default)]
pub(super) struct Record {
    pub transcript: Vec<Value>,
    pub invalid_lines: Vec<String>,
    pub sent: Vec<String>,
    pub pending: HashMap<i64, oneshot::Sender<Result<Value, RpcError>>>,
    /// Params of every `session/update` notification, in arrival order.
    pub updates: Vec<Value>,
    /// Every other notification, whole.
    pub notifications: Vec<Value>,
    /// Every request the adapter sent, whatever happened to it.
    pub requests: Vec<IncomingRequest>,
    pub responders: HashMap<String, Responder>,
    pub held_methods: HashSet<String>,
    pub held: VecDeque<IncomingRequest>,
    pub closed: bool,
}

/// The record plus a change counter, so waiters never miss a line that arrives between their
/// check and their sleep.
pub(super) struct Shared {
    pub record: Mutex<Record>,
    changed: watch::Sender<u64>,
}

impl Shared {
    pub fn new() -> Arc<Self> {
        Arc::new(Self {
            record: Mutex::new(Record::default()),
            changed: watch::channel(0).0,
        })
    }

    pub fn lock(&self) -> std::sync::MutexGuard<'_, Record> {
        // A panicking test thread must not hide the record from the failure message.
        self.record
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    /// Polls `check` after every change until it yields, the adapter closes stdout, or `timeout`.
    pub async fn wait_for<T>(
        &self,
        timeout: Duration,
        mut check: impl FnMut(&mut Record) -> Option<T>,
    ) -> Result<T, WaitError> {
        let mut changes = self.changed.subscribe();
        let deadline = tokio::time::Instant::now() + timeout * super::slowdown();
        loop {
            changes.borrow_and_update();
            {
                let mut record = self.lock();
                if let Some(found) = check(&mut record) {
                    return Ok(found);
                }
                if record.closed {
                    return Err(WaitError::Closed);
                }
            }
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(_) => continue,
                Err(_) => return Err(WaitError::Timeout),
            }
        }
    }
}

/// Writes one line (adding the newline) to the adapter's stdin and records it.
pub(super) async fn write_line(
    shared: &Shared,
    writer: &Writer,
    line: &str,
) -> std::io::Result<()> {
    let mut guard = writer.lock().await;
    let Some(stdin) = guard.as_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::BrokenPipe,
            "stdin already closed",
        ));
    };
    let mut bytes = line.as_bytes().to_vec();
    if !line.ends_with('\n') {
        bytes.push(b'\n');
    }
    stdin.write_all(&bytes).await?;
    stdin.flush().await?;
    shared
        .lock()
        .sent
        .push(line.trim_end_matches('\n').to_owned());
    Ok(())
}

/// Reads the adapter's stdout until EOF, recording and dispatching every line.
pub(super) async fn read_loop(shared: Arc<Shared>, writer: Arc<Writer>, stdout: ChildStdout) {
    let mut stdout = BufReader::new(stdout);
    let mut bytes = Vec::new();
    // Bytes, not `lines()`: a line of invalid UTF-8 is a finding to record, not the end of input.
    while matches!(stdout.read_until(b'\n', &mut bytes).await, Ok(1..)) {
        let line = String::from_utf8_lossy(&bytes)
            .trim_end_matches(['\n', '\r'])
            .to_owned();
        bytes.clear();
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            shared.lock().invalid_lines.push(line);
            shared.bump();
            continue;
        };
        shared.lock().transcript.push(message.clone());
        if let Some(reply) = dispatch(&shared, message) {
            // The adapter may already be gone; a lost reply shows up in the test's own checks.
            let _ = write_line(&shared, &writer, &reply.to_string()).await;
        }
        shared.bump();
    }
    let mut record = shared.lock();
    record.closed = true;
    // Dropping the senders wakes every waiting request with "closed".
    record.pending.clear();
    drop(record);
    shared.bump();
}

/// Routes one message; returns the reply to send when the message was a request we answer now.
fn dispatch(shared: &Shared, message: Value) -> Option<Value> {
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let id = message.get("id").cloned().filter(|id| !id.is_null());
    match (method, id) {
        (Some(method), Some(id)) => {
            let params = message.get("params").cloned().unwrap_or(Value::Null);
            answer_request(shared, IncomingRequest { id, method, params })
        }
        (Some(method), None) => {
            let mut record = shared.lock();
            if method == "session/update" {
                record
                    .updates
                    .push(message.get("params").cloned().unwrap_or(Value::Null));
            } else {
                record.notifications.push(message);
            }
            None
        }
        (None, Some(id)) => {
            complete_request(shared, &id, &message);
            None
        }
        (None, None) => None,
    }
}

fn answer_request(shared: &Shared, request: IncomingRequest) -> Option<Value> {
    let responder = {
        let mut record = shared.lock();
        record.requests.push(request.clone());
        if let Some(responder) = record.responders.get(&request.method) {
            Some(responder.clone())
        } else if record.held_methods.contains(&request.method) {
            record.held.push_back(request);
            return None;
        } else {
            None
        }
    };
    let outcome = match responder {
        Some(responder) => responder(&request.params),
        None => Err((
            -32601,
            format!(
                "Method not found: {} (scripted test client)",
                request.method
            ),
        )),
    };
    Some(response(&request.id, outcome))
}

/// A JSON-RPC response object for `id`.
pub(super) fn response(id: &Value, outcome: Result<Value, (i64, String)>) -> Value {
    match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err((code, message)) => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        }
    }
}

fn complete_request(shared: &Shared, id: &Value, message: &Value) {
    let Some(id) = id.as_i64() else { return };
    let Some(waiter) = shared.lock().pending.remove(&id) else {
        return;
    };
    let outcome = match message.get("error") {
        Some(error) => Err(RpcError {
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            data: error.get("data").cloned(),
        }),
        None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
    };
    let _ = waiter.send(outcome);
}
