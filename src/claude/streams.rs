//! Reading claude's stdout (one JSON message per line, routed or forwarded) and stderr (kept as a
//! tail for error messages).

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::mpsc;

use super::pending::PendingRequests;
use super::process::ClaudeEvent;
use super::redact::{log_excerpt, redact_secrets};
use super::wire::ClaudeMessage;

/// How much of claude's stderr is kept for error messages.
pub(crate) const STDERR_TAIL_BYTES: usize = 8 * 1024;
/// A line buffer grown past this by one huge line is released rather than kept for the next line.
const KEEP_BUFFER_BYTES: usize = 1024 * 1024;
const READ_CHUNK_BYTES: usize = 64 * 1024;

/// Reads stdout to its end. Control responses go to `pending`; every other known message is forwarded
/// as it arrives. Lines that are not JSON, or of a known type but a bad shape, are logged and
/// skipped: one odd line must not end the session. Lines have no length limit (a tool result can be
/// tens of MiB); `read_until` grows one buffer, so a long line costs linear time.
pub(crate) async fn read_stdout<R>(
    stdout: R,
    pending: &PendingRequests,
    events: &mpsc::UnboundedSender<ClaudeEvent>,
) where
    R: AsyncRead + Unpin,
{
    let mut reader = BufReader::with_capacity(READ_CHUNK_BYTES, stdout);
    let mut buffer = Vec::new();
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
                tracing::debug!(kind = %log_excerpt(&kind, 80), "skipping a claude message of unknown type");
            }
            Ok(message) => {
                // Nobody listening any more is fine: keep reading so control responses still arrive
                // and claude never blocks on a full pipe.
                let _ = events.send(ClaudeEvent::Message(message));
            }
            Err(error) => {
                tracing::warn!(%error, line = %log_excerpt(line, 200), "skipping an unreadable line from claude");
            }
        }
    }
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
        let (tx, mut rx) = mpsc::unbounded_channel();
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
