//! The editor's lines, read off stdin with a cap: a line longer than [`LINE_CAP`] is answered with
//! -32600 and skipped without ever being held whole, a line that is not UTF-8 is answered with
//! -32700, and every other line passes [`screen`] before the SDK sees it. No answer quotes the
//! input, and the adapter goes on.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt};

use super::outbound::Outbound;
use super::screen;

/// The longest editor line accepted: far above any real prompt, images included.
pub(crate) const LINE_CAP: usize = 64 * 1024 * 1024;
/// Read size.
const CHUNK: usize = 64 * 1024;
/// A buffer grown past this by one big line is released rather than kept.
const KEEP_BUFFER: usize = 1024 * 1024;

pub(crate) struct LineReader<R> {
    input: R,
    /// Bytes read and not yet handed out; never more than `cap + CHUNK`.
    buffer: Vec<u8>,
    /// How far `buffer` is known to hold no newline.
    scanned: usize,
    /// Inside a line over the cap: its bytes are dropped until its newline.
    skipping: bool,
    cap: usize,
    replies: Arc<Outbound>,
}

/// What the SDK sees of a line: only its id, to answer a line it cannot read.
#[derive(Deserialize)]
struct IdOnly {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<serde::de::IgnoredAny>,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub(crate) fn new(input: R, replies: Arc<Outbound>) -> Self {
        Self::with_cap(input, replies, LINE_CAP)
    }

    pub(crate) fn with_cap(input: R, replies: Arc<Outbound>, cap: usize) -> Self {
        LineReader {
            input,
            buffer: Vec::new(),
            scanned: 0,
            skipping: false,
            cap,
            replies,
        }
    }

    /// The next line that is UTF-8 (and, when large, JSON), without its newline; `None` at the end
    /// of stdin. Lines it cannot pass on are answered here.
    pub(crate) async fn next_line(&mut self) -> Option<std::io::Result<String>> {
        loop {
            if let Some(at) = memchr::memchr(b'\n', &self.buffer[self.scanned..]) {
                let end = self.scanned + at;
                let line = self.split_line(end);
                if let Some(line) = self.accept(line) {
                    return Some(Ok(line));
                }
                continue;
            }
            self.scanned = self.buffer.len();
            if self.skipping {
                // The rest of an over-long line: dropped as it comes.
                self.buffer.clear();
                self.scanned = 0;
            } else if self.buffer.len() > self.cap {
                self.start_skipping();
            }
            match self.fill().await {
                Ok(0) => {
                    // The last line may lack its newline.
                    if self.skipping || self.buffer.is_empty() {
                        return None;
                    }
                    let line = std::mem::take(&mut self.buffer);
                    self.scanned = 0;
                    if let Some(line) = self.accept(line) {
                        return Some(Ok(line));
                    }
                    return None;
                }
                Ok(_) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }

    /// Takes `buffer[..end]` out as a line and drops its newline, copying only what follows.
    fn split_line(&mut self, end: usize) -> Vec<u8> {
        let line = if end + 1 == self.buffer.len() {
            let mut line = std::mem::take(&mut self.buffer);
            line.truncate(end);
            line
        } else {
            let rest = self.buffer.split_off(end + 1);
            let mut line = std::mem::replace(&mut self.buffer, rest);
            line.truncate(end);
            line
        };
        self.scanned = 0;
        if self.buffer.capacity() > KEEP_BUFFER && self.buffer.len() < KEEP_BUFFER {
            self.buffer.shrink_to(CHUNK);
        }
        line
    }

    fn start_skipping(&mut self) {
        tracing::info!(
            cap = self.cap,
            "an editor line is longer than the cap; answering -32600 and skipping it"
        );
        self.reply_error(Value::Null, -32600, &too_long(self.cap));
        self.skipping = true;
        self.buffer = Vec::new();
        self.scanned = 0;
    }

    /// Reads more of stdin, growing the buffer without letting it pass `cap + CHUNK`.
    async fn fill(&mut self) -> std::io::Result<usize> {
        if self.buffer.capacity() - self.buffer.len() < CHUNK {
            let wanted = (self.buffer.capacity() * 2).max(self.buffer.len() + CHUNK);
            let limit = self.cap + CHUNK;
            self.buffer.reserve_exact(
                wanted.min(limit).max(self.buffer.len() + CHUNK) - self.buffer.len(),
            );
        }
        self.input.read_buf(&mut self.buffer).await
    }

    /// A whole line: passed on, or answered here and dropped.
    fn accept(&mut self, line: Vec<u8>) -> Option<String> {
        if std::mem::take(&mut self.skipping) {
            return None;
        }
        if line.len() > self.cap {
            tracing::info!(
                cap = self.cap,
                "an editor line is longer than the cap; answering -32600"
            );
            self.reply_error(Value::Null, -32600, &too_long(self.cap));
            return None;
        }
        let line = match String::from_utf8(line) {
            Ok(line) => line,
            Err(error) => {
                let lossy = String::from_utf8_lossy(error.as_bytes());
                let id = serde_json::from_str::<IdOnly>(&lossy)
                    .ok()
                    .filter(|m| m.method.is_some())
                    .and_then(|m| m.id);
                tracing::info!(
                    at = error.utf8_error().valid_up_to(),
                    "an editor line is not UTF-8; answering -32700"
                );
                if let Some(id) = id {
                    self.reply_error(id, -32700, "Parse error: the line is not valid UTF-8");
                } else {
                    self.reply_error(
                        Value::Null,
                        -32700,
                        "Parse error: the line is not valid UTF-8",
                    );
                }
                return None;
            }
        };
        if line.trim().is_empty() {
            return None;
        }
        if let Some(refused) = screen::refusal(&line) {
            self.reply_error(refused.id, refused.code, &refused.message);
            return None;
        }
        Some(line)
    }

    fn reply_error(&self, id: Value, code: i64, message: &str) {
        let reply = serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": code, "message": message},
        });
        self.replies
            .push(serde_json::to_vec(&reply).expect("a JSON value serialises"));
    }
}

fn too_long(cap: usize) -> String {
    format!("Invalid request: the line is longer than the limit of {cap} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    async fn lines_of(input: &[u8], cap: usize) -> (Vec<String>, Vec<Value>) {
        let replies = Arc::new(Outbound::default());
        let mut reader = LineReader::with_cap(input, replies.clone(), cap);
        let mut lines = Vec::new();
        while let Some(line) = reader.next_line().await {
            lines.push(line.unwrap());
        }
        let (ours, mut theirs) = tokio::io::duplex(1 << 20);
        let writer = tokio::spawn({
            let replies = replies.clone();
            async move { replies.write_to(ours).await }
        });
        let mut answers = Vec::new();
        while replies.waiting_bytes() > 0 {
            tokio::task::yield_now().await;
        }
        writer.abort();
        let mut text = Vec::new();
        let _ = tokio::time::timeout(
            std::time::Duration::from_millis(50),
            theirs.read_to_end(&mut text),
        )
        .await;
        for l in text.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            answers.push(serde_json::from_slice(l).unwrap());
        }
        (lines, answers)
    }

    #[tokio::test]
    async fn long_lines_are_answered_and_skipped_without_echo() {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\",\"params\":\"{}\"}}",
            "a".repeat(300)
        );
        let input = format!("{{\"a\":1}}\n{big}\n{big}{big}\n{{\"b\":2}}\n{{\"c\":3}}");
        let (lines, answers) = lines_of(input.as_bytes(), 200).await;
        assert_eq!(lines, ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"]);
        assert_eq!(answers.len(), 2, "{answers:?}");
        for a in &answers {
            assert_eq!(a["error"]["code"], -32600);
            assert!(!a.to_string().contains("aaaa"));
        }
    }

    #[tokio::test]
    async fn invalid_utf8_is_answered_with_the_request_id() {
        let mut input =
            b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/prompt\",\"params\":\"\xff\"}\n"
                .to_vec();
        input.extend_from_slice(b"\xfe\xfe\n{\"ok\":true}\n");
        let (lines, answers) = lines_of(&input, LINE_CAP).await;
        assert_eq!(lines, ["{\"ok\":true}"]);
        assert_eq!(answers[0]["id"], 3);
        assert_eq!(answers[0]["error"]["code"], -32700);
        assert_eq!(answers[1]["id"], Value::Null);
    }

    #[tokio::test]
    async fn a_line_that_never_ends_is_answered_once_and_never_held() {
        let endless = tokio::io::AsyncReadExt::take(tokio::io::repeat(b'a'), 8 << 20);
        let input = endless.chain(&b"\n{\"c\":3}\n"[..]);
        let replies = Arc::new(Outbound::default());
        let mut reader = LineReader::with_cap(input, replies.clone(), 4096);
        let mut lines = Vec::new();
        while let Some(line) = reader.next_line().await {
            lines.push(line.unwrap());
            assert!(reader.buffer.capacity() <= 4096 + CHUNK);
        }
        assert_eq!(lines, ["{\"c\":3}"]);
        let answer = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": too_long(4096)}});
        let one_answer = answer.to_string().len() + 1;
        assert_eq!(replies.waiting_bytes(), one_answer);
    }
}
