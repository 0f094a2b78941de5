//! Reading claude's stdout (one JSON message per line, routed or forwarded) and stderr (kept as a
//! tail for error messages).

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

use super::events::EventSender;
use super::pending::PendingRequests;
use super::process::ClaudeEvent;
use super::redact::{log_excerpt, redact_secrets};
use super::wire::{ClaudeMessage, WireError};

/// How much of claude's stderr is kept for error messages.
pub(crate) const STDERR_TAIL_BYTES: usize = 8 * 1024;
/// A line buffer grown past this by one huge line is released rather than kept for the next line.
const KEEP_BUFFER_BYTES: usize = 1024 * 1024;
const READ_CHUNK_BYTES: usize = 64 * 1024;

/// Reads stdout to its end. Control responses go to `pending`; every other known message is forwarded
/// as it arrives. Lines that are not JSON, or of a known type but a bad shape, are skipped (one odd
/// line must not end the session) and logged masked and cut, at warn the first time per kind. A
/// `result` line that cannot be read still ends the turn, as an error saying so. Lines have no
/// length limit (a tool result can be tens of MiB); `read_until` grows one buffer.
pub(crate) async fn read_stdout<R>(stdout: R, pending: &PendingRequests, events: &EventSender)
where
    R: AsyncRead + Unpin,
{
    let mut reader = BufReader::with_capacity(READ_CHUNK_BYTES, stdout);
    let mut buffer = Vec::new();
    let mut skipped = SkipLog::default();
    loop {
        buffer.clear();
        if buffer.capacity() > KEEP_BUFFER_BYTES {
            buffer = Vec::new();
        }
        match reader.read_until(b'\n', &mut buffer).await {
            Ok(0) => return,
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(%error, "reading claude's stdout failed");
                return;
            }
        }
        let line = String::from_utf8_lossy(&buffer);
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        match ClaudeMessage::parse(line) {
            Ok(ClaudeMessage::ControlResponse(envelope)) => pending.resolve(envelope.response),
            Ok(ClaudeMessage::Unknown(value)) => {
                let kind = value.get("type").map(|t| t.to_string()).unwrap_or_default();
                skipped.note(
                    &format!("a message of unknown type {}", log_excerpt(&kind, 80)),
                    line,
                    None,
                );
            }
            Ok(message) => {
                // Waits while the session is behind (backpressure); nobody listening any more is
                // fine: reading goes on so control responses still arrive.
                events
                    .send(ClaudeEvent::Message(message), buffer.len())
                    .await;
            }
            Err(error) => {
                let kind = match &error {
                    WireError::NotJson(_) => "a line that is not JSON".to_owned(),
                    WireError::BadShape { kind, .. } => {
                        format!("a `{}` line of an unexpected shape", log_excerpt(kind, 40))
                    }
                };
                skipped.note(&kind, line, Some(&error));
                if let Some(result) = unreadable_result(line) {
                    events
                        .send(ClaudeEvent::Message(result), buffer.len())
                        .await;
                }
            }
        }
    }
}

/// Skipped lines, logged in full (masked and cut) once per kind, then only at debug.
#[derive(Default)]
struct SkipLog(std::collections::HashSet<String>);

impl SkipLog {
    fn note(&mut self, kind: &str, line: &str, error: Option<&WireError>) {
        // serde's messages quote the offending values: masked and cut like the line itself.
        let error = error
            .map(|e| log_excerpt(&e.to_string(), 300))
            .unwrap_or_default();
        let line = log_excerpt(line, 200);
        if self.0.len() < 64 && self.0.insert(kind.to_owned()) {
            tracing::warn!(%error, %line, "skipping {kind} from claude (logged once)");
        } else {
            tracing::debug!(%error, %line, "skipping {kind} from claude");
        }
    }
}

/// A line that starts like claude's `result` but cannot be read (cut short, say): the turn is
/// over as far as claude is concerned, so it ends as an error that says what happened.
fn unreadable_result(line: &str) -> Option<ClaudeMessage> {
    let mut end = line.len().min(200);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    let head = &line[..end];
    let compact: String = head.chars().filter(|c| !c.is_whitespace()).collect();
    if !compact.contains("\"type\":\"result\"") {
        return None;
    }
    let text = format!(
        "claude's result line could not be read ({} bytes); the turn ended without its outcome",
        line.len()
    );
    let result = serde_json::json!({
        "type": "result", "subtype": "error_during_execution", "is_error": true, "result": text,
    });
    ClaudeMessage::from_value(result).ok()
}

/// The last `STDERR_TAIL_BYTES` of claude's stderr, secrets redacted.
#[derive(Clone, Default)]
pub(crate) struct StderrTail(Arc<Mutex<String>>);

impl StderrTail {
    pub(crate) fn push_line(&self, line: &str) {
        let mut tail = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        tail.push_str(line);
        tail.push('\n');
        if tail.len() > STDERR_TAIL_BYTES {
            let mut cut = tail.len() - STDERR_TAIL_BYTES;
            while !tail.is_char_boundary(cut) {
                cut += 1;
            }
            tail.drain(..cut);
        }
    }

    pub(crate) fn text(&self) -> String {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }
}

/// Reads stderr to its end, logging each line at debug and keeping the tail.
pub(crate) async fn read_stderr<R: AsyncRead + Unpin>(stderr: R, tail: StderrTail) {
    let mut reader = BufReader::new(stderr);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match reader.read_until(b'\n', &mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&buffer);
        let line = line.trim_end_matches(['\n', '\r']);
        // Redact before keeping: the tail ends up in error messages shown to the user and in logs.
        let line = if line.len() > STDERR_TAIL_BYTES {
            log_excerpt(line, STDERR_TAIL_BYTES)
        } else {
            redact_secrets(line)
        };
        tracing::debug!(target: "claude_stderr", "{}", log_excerpt(&line, 500));
        tail.push_line(&line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claude::wire::ControlResponse;
    use serde_json::json;

    #[tokio::test]
    async fn messages_are_forwarded_in_order_and_junk_is_skipped() {
        let stdout = concat!(
            "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n",
            "this is not json\n",
            "\n",
            "{\"type\":\"assistant\",\"message\":\"not an object\"}\n",
            "{\"type\":\"rate_limit_event\"}\n",
            "{\"type\":\"control_response\",\"response\":{\"subtype\":\"success\",\"request_id\":\"r1\",\"response\":{\"a\":1}}}\n",
            "{\"type\":\"result\",\"subtype\":\"success\"}\r\n",
            "{\"type\":\"control_cancel_request\",\"request_id\":\"x\"}", // no final newline
        );
        let pending = Arc::new(PendingRequests::default());
        let mut waiting = pending.register("r1").unwrap();
        let (tx, mut rx) = crate::claude::events::channel();
        read_stdout(stdout.as_bytes(), &pending, &tx).await;
        drop(tx);
        let mut kinds = Vec::new();
        while let Some(ClaudeEvent::Message(m)) = rx.recv().await {
            kinds.push(match m {
                ClaudeMessage::System(s) => s.subtype,
                ClaudeMessage::Result(_) => "result".into(),
                ClaudeMessage::ControlCancelRequest { request_id } => {
                    format!("cancel {request_id}")
                }
                other => panic!("unexpected {other:?}"),
            });
        }
        assert_eq!(kinds, ["init", "result", "cancel x"]);
        assert_eq!(waiting.answer().await.unwrap(), json!({"a": 1}));
        pending.resolve(ControlResponse::Success {
            request_id: "unknown".into(),
            response: json!(null),
        });
    }

    #[test]
    fn stderr_tail_keeps_the_end() {
        let tail = StderrTail::default();
        for i in 0..2000 {
            tail.push_line(&format!("line {i} é"));
        }
        let text = tail.text();
        assert!(text.len() <= STDERR_TAIL_BYTES);
        assert!(text.ends_with("line 1999 é\n"));
        assert!(!text.contains("line 1000 "));
    }

    #[tokio::test]
    async fn stderr_secrets_never_reach_the_tail() {
        let tail = StderrTail::default();
        read_stderr(
            "key sk-ant-api03-SECRETSECRET rejected\n".as_bytes(),
            tail.clone(),
        )
        .await;
        assert_eq!(tail.text(), "key sk-ant-[REDACTED] rejected\n");
    }
}
