//! Reading claude's stdout (one JSON message per line, routed or forwarded) and stderr (kept as a
//! tail for error messages).

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

use super::big_line;
use super::events::ClaudeEvent;
use super::events::EventSender;
use super::pending::PendingRequests;
use super::redact::{excerpt_of, log_excerpt, redact_secrets};
use super::wire::{ClaudeMessage, WireError};

/// How much of claude's stderr is kept for error messages.
pub(crate) const STDERR_TAIL_BYTES: usize = 8 * 1024;
/// A line buffer grown past this by one huge line is released rather than kept for the next line.
const KEEP_BUFFER_BYTES: usize = 1024 * 1024;
const READ_CHUNK_BYTES: usize = 64 * 1024;

/// Lines at least this long take [`big_line`]'s path, which keeps their big strings single.
const BIG_LINE_BYTES: usize = KEEP_BUFFER_BYTES;

/// Which lines [`big_line`] reads: at least `line_bytes` long, for literals of `literal_bytes`.
/// A parameter so that tests and fuzzing can send small lines down that path.
#[derive(Clone, Copy)]
pub(crate) struct BigLines {
    pub line_bytes: usize,
    pub literal_bytes: usize,
}

pub(crate) const BIG_LINES: BigLines = BigLines {
    line_bytes: BIG_LINE_BYTES,
    literal_bytes: big_line::BIG_LITERAL_BYTES,
};

/// How much of a big line is kept for the log once its buffer has become its biggest string.
const BIG_LINE_HEAD_BYTES: usize = 1024;

/// Reads stdout to its end. Control responses go to `pending`; every other known message is forwarded
/// as it arrives. Lines that are not JSON, or of a known type but a bad shape, are skipped (one odd
/// line must not end the session) and logged masked and cut, at warn the first time per kind. A
/// `result` line that cannot be read still ends the turn, as an error saying so. Lines have no
/// length limit (a tool result can be tens of MiB); `read_until` grows one buffer, which a big line
/// takes with it (see [`big_line`]), so no big buffer is kept between lines, and after a big line
/// nothing more is read until the session has taken it and the editor has room for it.
pub(crate) async fn read_stdout<R>(stdout: R, pending: &PendingRequests, events: &EventSender)
where
    R: AsyncRead + Unpin,
{
    read_stdout_with(stdout, pending, events, BIG_LINES).await;
}

/// [`read_stdout`], with the big-line path taken from `big` on.
pub(crate) async fn read_stdout_with<R>(
    stdout: R,
    pending: &PendingRequests,
    events: &EventSender,
    big: BigLines,
) where
    R: AsyncRead + Unpin,
{
    let mut reader = BufReader::with_capacity(READ_CHUNK_BYTES, stdout);
    let mut buffer = Vec::new();
    let mut skipped = SkipLog::default();
    let mut after_big_line = false;
    loop {
        if std::mem::take(&mut after_big_line) {
            // Its text is on its way to the editor: reading the next line now could hold a
            // second big one beside it.
            events.wait_until_taken().await;
        }
        buffer.clear();
        if buffer.capacity() > KEEP_BUFFER_BYTES {
            buffer = Vec::new();
        }
        match reader.read_until(b'\n', &mut buffer).await {
            Ok(0) => return,
            Ok(_) => {}
            Err(error) => {
                tracing::info!(%error, "reading claude's stdout failed");
                return;
            }
        }
        // What the line costs in the events channel's budget, newline included.
        let bytes = buffer.len();
        while let Some(b'\n' | b'\r') = buffer.last() {
            buffer.pop();
        }
        let line = Line {
            bytes,
            len: buffer.len(),
        };
        after_big_line = buffer.len() >= big.line_bytes;
        if after_big_line {
            let head = String::from_utf8_lossy(&buffer[..BIG_LINE_HEAD_BYTES.min(buffer.len())])
                .into_owned();
            match big_line::parse(std::mem::take(&mut buffer), big.literal_bytes) {
                Ok(parsed) => {
                    line.dispatch(parsed, &head, pending, events, &mut skipped)
                        .await;
                    continue;
                }
                Err(whole) => buffer = whole,
            }
        }
        let text = crate::utf8::lossy(&buffer);
        if text.trim().is_empty() {
            continue;
        }
        let line = Line {
            len: text.len(),
            ..line
        };
        line.dispatch(
            ClaudeMessage::parse(&text),
            &text,
            pending,
            events,
            &mut skipped,
        )
        .await;
    }
}

/// One line read: its bytes in the channel's budget and its length without the newline.
#[derive(Clone, Copy)]
struct Line {
    bytes: usize,
    len: usize,
}

impl Line {
    /// Passes the parsed line on. `text` is the line, or its start when it was big.
    async fn dispatch(
        self,
        parsed: Result<ClaudeMessage, WireError>,
        text: &str,
        pending: &PendingRequests,
        events: &EventSender,
        skipped: &mut SkipLog,
    ) {
        match parsed {
            Ok(ClaudeMessage::ControlResponse(envelope)) => pending.resolve(envelope.response),
            Ok(ClaudeMessage::Unknown(value)) => {
                let kind = value.get("type").map(|t| t.to_string()).unwrap_or_default();
                skipped.unknown(&log_excerpt(&kind, 80), text, self.len);
            }
            Ok(message) => {
                // Waits while the session is behind (backpressure); nobody listening any more is
                // fine: reading goes on so control responses still arrive.
                events.send(ClaudeEvent::Message(message), self.bytes).await;
            }
            Err(error) => {
                let kind = match &error {
                    WireError::NotJson(_) => "a line that is not JSON".to_owned(),
                    WireError::BadShape { kind, .. } => {
                        format!("a `{}` line of an unexpected shape", log_excerpt(kind, 40))
                    }
                };
                skipped.note(&kind, text, self.len, Some(&error));
                if let Some(result) = unreadable_result(text, self.len) {
                    events.send(ClaudeEvent::Message(result), self.bytes).await;
                }
            }
        }
    }
}

/// Skipped lines, logged in full (masked and cut) once per kind, then only at debug. Messages of
/// a type claude-acp does not read are claude's news, not a fault (each release adds some, such
/// as `command_lifecycle`): counted and logged at debug only, as nothing is for the user to do.
#[derive(Default)]
struct SkipLog {
    warned: std::collections::HashSet<String>,
    unknown: std::collections::BTreeMap<String, u64>,
}

impl SkipLog {
    fn unknown(&mut self, kind: &str, line: &str, len: usize) {
        let seen = self.unknown.entry(kind.to_owned()).or_default();
        *seen += 1;
        let line = excerpt_of(line, len, 200);
        tracing::debug!(%line, seen = *seen, "skipping a message of unknown type {kind} from claude");
    }

    /// `line` is the line, or its start when it is longer: `len` is its whole length.
    fn note(&mut self, kind: &str, line: &str, len: usize, error: Option<&WireError>) {
        // serde's messages quote the offending values: masked and cut like the line itself.
        let error = error
            .map(|e| log_excerpt(&e.to_string(), 300))
            .unwrap_or_default();
        let line = excerpt_of(line, len, 200);
        if self.warned.len() < 64 && self.warned.insert(kind.to_owned()) {
            tracing::info!(%error, %line, "skipping {kind} from claude (logged once)");
        } else {
            tracing::debug!(%error, %line, "skipping {kind} from claude");
        }
    }
}

impl Drop for SkipLog {
    fn drop(&mut self) {
        if !self.unknown.is_empty() {
            tracing::debug!(counts = ?self.unknown, "messages of unknown types claude sent");
        }
    }
}

/// A line that starts like claude's `result` but cannot be read (cut short, say): the turn is
/// over as far as claude is concerned, so it ends as an error that says what happened.
/// `line` is the line or its start, `len` its whole length.
fn unreadable_result(line: &str, len: usize) -> Option<ClaudeMessage> {
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
        len
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
    use crate::claude::wire::{ContentBlock, ControlResponse, ToolResultContent};
    use serde_json::json;

    #[tokio::test]
    async fn messages_are_forwarded_in_order_and_junk_is_skipped() {
        let stdout = concat!(
            "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n",
            "this is not json\n",
            "\n",
            "{\"type\":\"assistant\",\"message\":\"not an object\"}\n",
            "{\"type\":\"a_future_event\"}\n",
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

    /// A line over the events budget (2 MiB) on the big-line path: read whole, and it takes the
    /// whole budget, so the reader waits for the session before the next line.
    #[tokio::test]
    async fn a_big_line_is_read_whole_and_holds_the_reader_back() {
        let text = "log line \"quoted\" é\n".repeat(100_000);
        let stdout = format!(
            "{}\n{{\"type\":\"control_cancel_request\",\"request_id\":\"after\"}}\n",
            json!({"type": "user", "message": {"content": [
                {"type": "tool_result", "tool_use_id": "t", "content": text}
            ]}})
        );
        assert!(stdout.len() > 2 * crate::claude::events::EVENT_BUDGET);
        let pending = PendingRequests::default();
        let (tx, mut rx) = crate::claude::events::channel();
        let reader = tx.clone();
        let read = tokio::spawn(async move {
            read_stdout(stdout.as_bytes(), &pending, &reader).await;
        });
        while !tx.is_held_back() {
            assert!(
                !read.is_finished(),
                "the reader did not wait for the session"
            );
            tokio::task::yield_now().await;
        }
        let Some(ClaudeEvent::Message(ClaudeMessage::User(user))) = rx.recv().await else {
            panic!("not the tool result");
        };
        assert_eq!(
            user.message.content,
            crate::claude::wire::UserContent::Blocks(vec![ContentBlock::ToolResult {
                tool_use_id: "t".into(),
                content: ToolResultContent::Text(text),
                is_error: None,
            }])
        );
        assert!(matches!(
            rx.recv().await,
            Some(ClaudeEvent::Message(
                ClaudeMessage::ControlCancelRequest { .. }
            ))
        ));
        read.await.unwrap();
    }

    /// After a big line the reader reads nothing more until the session asks for the next message
    /// (which it does once the editor has room for the big one): two 10 MiB lines of a Write (its
    /// tool_use, then its can_use_tool) are never held at once.
    #[tokio::test]
    async fn after_a_big_line_nothing_is_read_until_the_session_asks_again() {
        use tokio::io::AsyncWriteExt;
        let big = format!(
            "{}\n",
            json!({"type": "user", "message": {"content": [
                {"type": "tool_result", "tool_use_id": "t", "content": "x".repeat(BIG_LINE_BYTES)}
            ]}})
        );
        let next = "{\"type\":\"control_cancel_request\",\"request_id\":\"after\"}\n";
        let (mut claude, stdout) = tokio::io::duplex(4 * BIG_LINE_BYTES);
        let stdout = CountingReader::new(stdout);
        let read_bytes = stdout.count.clone();
        let pending = PendingRequests::default();
        let (tx, mut rx) = crate::claude::events::channel();
        let reader = tokio::spawn(async move {
            read_stdout(stdout, &pending, &tx).await;
        });
        claude.write_all(big.as_bytes()).await.unwrap();
        let Some(ClaudeEvent::Message(ClaudeMessage::User(_))) = rx.recv().await else {
            panic!("not the tool result");
        };
        // The session holds the big message (its update waits for the editor) when claude
        // writes its next line.
        claude.write_all(next.as_bytes()).await.unwrap();
        for _ in 0..100 {
            tokio::task::yield_now().await;
        }
        assert_eq!(
            read_bytes.load(std::sync::atomic::Ordering::Relaxed),
            big.len(),
            "the next line was read while the big one was held"
        );
        assert!(matches!(
            rx.recv().await,
            Some(ClaudeEvent::Message(
                ClaudeMessage::ControlCancelRequest { .. }
            ))
        ));
        drop(claude);
        reader.await.unwrap();
    }

    /// Counts the bytes read through it.
    struct CountingReader<R> {
        inner: R,
        count: Arc<std::sync::atomic::AtomicUsize>,
    }

    impl<R> CountingReader<R> {
        fn new(inner: R) -> Self {
            CountingReader {
                inner,
                count: Arc::default(),
            }
        }
    }

    impl<R: AsyncRead + Unpin> AsyncRead for CountingReader<R> {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            let before = buf.filled().len();
            let polled = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
            let read = buf.filled().len() - before;
            self.count
                .fetch_add(read, std::sync::atomic::Ordering::Relaxed);
            polled
        }
    }

    /// The stdout reader gives the same messages whichever path its lines take.
    #[test]
    fn every_line_down_the_big_line_path_reads_the_same() {
        let stdout = concat!(
            "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n",
            "not json\n",
            "   \n",
            "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"a \\\"b\\\" \\u00e9\"}]}}\n",
            "{\"type\":\"result\",\"subtype\":\"success\",\"result\":\"done\n",
            "{\"type\":\"result\",\"subtype\":\"success\",\"result\":\"done\"}\r\n",
        );
        let all_big = BigLines {
            line_bytes: 0,
            literal_bytes: 0,
        };
        let read = |big| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap();
            runtime.block_on(async {
                let (tx, mut rx) = crate::claude::events::channel();
                // Beside the session: after a big line the reader waits for it.
                tokio::spawn(async move {
                    read_stdout_with(stdout.as_bytes(), &PendingRequests::default(), &tx, big)
                        .await;
                });
                let mut messages = Vec::new();
                while let Some(ClaudeEvent::Message(message)) = rx.recv().await {
                    messages.push(message);
                }
                messages
            })
        };
        let normal = read(BIG_LINES);
        assert_eq!(normal.len(), 4, "{normal:?}");
        assert_eq!(read(all_big), normal);
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
