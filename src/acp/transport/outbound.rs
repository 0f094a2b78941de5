//! Everything we send the editor, in one queue measured in bytes: the SDK's lines, our own error
//! answers and the session updates written straight here. A writer task drains it to stdout; while
//! more than the budget waits, sessions hold off reading claude (see [`Outbound::room`]), so an
//! editor that stops reading slows claude down instead of growing this process.

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::Notify;

use crate::json_size::json_size;
use crate::json_stream::Serialise;

/// Bytes waiting for the editor above which sessions stop taking claude's output.
pub(crate) const OUTBOUND_BUDGET: usize = 4 * 1024 * 1024;
/// Bytes waiting for the editor above which a replay of stored history waits (it reads a
/// transcript far faster than an editor takes the updates).
pub(crate) const REPLAY_BUDGET: usize = 256 * 1024;
/// Lines smaller than this are gathered into one write.
const BATCH_BYTES: usize = 64 * 1024;
/// Messages whose JSON is longer than this are never held serialised: they are serialised while
/// being written, a chunk at a time (a 20 MiB tool result would otherwise be in memory twice).
pub(crate) const STREAM_ABOVE: usize = 1024 * 1024;

/// One message for the editor.
enum Line {
    /// Serialised, without its newline.
    Bytes(Vec<u8>),
    /// Serialised only when its turn to be written comes, in chunks of [`BATCH_BYTES`].
    Streamed { bytes: usize, serialise: Serialise },
}

impl Line {
    /// Its size with the newline: what it counts against the budget.
    fn size(&self) -> usize {
        match self {
            Line::Bytes(line) => line.len() + 1,
            Line::Streamed { bytes, .. } => bytes + 1,
        }
    }
}

#[derive(Default)]
struct Queue {
    lines: VecDeque<Line>,
    /// Bytes of the queued lines plus the one being written, newlines included.
    bytes: usize,
    /// stdout is gone: nothing more is queued and nobody waits for room.
    closed: bool,
}

/// The queue of lines for the editor.
#[derive(Default)]
pub(crate) struct Outbound {
    queue: Mutex<Queue>,
    /// Those told when the SDK's answer to a request (by its JSON-RPC id) is queued.
    answer_watchers: Mutex<Vec<(serde_json::Value, tokio::sync::oneshot::Sender<()>)>>,
    /// Wakes the writer when a line is queued.
    queued: Notify,
    /// Wakes those waiting in [`Outbound::room`] when the queue drops below the budget.
    drained: Notify,
}

impl Outbound {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues one line (without its newline). Never waits; after stdout is gone, drops it.
    pub(crate) fn push(&self, line: Vec<u8>) {
        self.enqueue(Line::Bytes(super::old_text::explicit_old_text(line)));
    }

    /// Queues a line known to hold no diff (a text chunk's: its text is a string literal, so no
    /// `"type":"diff"` of its own is in it), without [`Outbound::push`]'s look for one.
    pub(crate) fn push_line(&self, line: Vec<u8>) {
        self.enqueue(Line::Bytes(line));
    }

    /// Queues a line the SDK wrote; if it answers a request someone watches, tells them once it
    /// is queued, so what they queue next goes after it.
    pub(crate) fn push_sdk_line(&self, line: Vec<u8>) {
        let answered = self.answered_id(&line);
        self.push(line);
        if let Some(id) = answered {
            let mut watchers = self
                .answer_watchers
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let mut index = 0;
            while index < watchers.len() {
                if watchers[index].0 == id || watchers[index].1.is_closed() {
                    let (_, told) = watchers.swap_remove(index);
                    let _ = told.send(());
                } else {
                    index += 1;
                }
            }
        }
    }

    /// The id of the request `line` answers, if anyone watches for answers.
    fn answered_id(&self, line: &[u8]) -> Option<serde_json::Value> {
        #[derive(serde::Deserialize)]
        struct Answer {
            id: Option<serde_json::Value>,
            method: Option<serde::de::IgnoredAny>,
        }
        if self
            .answer_watchers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_empty()
        {
            return None;
        }
        let answer: Answer = serde_json::from_slice(line).ok()?;
        answer.method.is_none().then_some(answer.id).flatten()
    }

    /// Resolves once the answer to request `id` is queued for the editor (or can never be).
    pub(crate) fn when_answered(
        &self,
        id: serde_json::Value,
    ) -> tokio::sync::oneshot::Receiver<()> {
        let (told, when) = tokio::sync::oneshot::channel();
        let mut watchers = self
            .answer_watchers
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if !self.lock().closed {
            watchers.push((id, told));
        }
        when
    }

    /// Queues one message as JSON, serialised once: straight into its line, or, above
    /// [`STREAM_ABOVE`], into stdout a chunk at a time when its turn comes. `may_be_large` asks
    /// for its size to be measured first (a pass without allocating); small messages skip that.
    pub(crate) fn push_json<T>(&self, message: T, may_be_large: bool)
    where
        T: serde::Serialize + Send + 'static,
    {
        let bytes = if may_be_large {
            let Some(bytes) = json_size(&message) else {
                return;
            };
            bytes
        } else {
            0
        };
        if bytes > STREAM_ABOVE {
            // Streamed as the SDK writes it: a new file's diff this large keeps no `oldText` key
            // (ACP allows that; `old_text` adds the explicit null to every smaller line).
            let serialise: Serialise = Box::new(move |out| {
                serde_json::to_writer(out, &message).map_err(std::io::Error::other)
            });
            self.enqueue(Line::Streamed { bytes, serialise });
            return;
        }
        let mut line = Vec::with_capacity(bytes.max(128));
        // Our protocol types always serialise (no maps with non-string keys).
        if serde_json::to_writer(&mut line, &message).is_ok() {
            self.enqueue(Line::Bytes(super::old_text::explicit_old_text(line)));
        }
    }

    fn enqueue(&self, line: Line) {
        {
            let mut queue = self.lock();
            if queue.closed {
                return;
            }
            queue.bytes += line.size();
            queue.lines.push_back(line);
        }
        self.queued.notify_one();
    }

    /// Bytes waiting for the editor.
    #[cfg(test)]
    pub(crate) fn waiting_bytes(&self) -> usize {
        self.lock().bytes
    }

    /// Takes every queued line as JSON (streamed ones serialised now), for tests.
    #[cfg(test)]
    pub(crate) fn take_queued_json(&self) -> Vec<serde_json::Value> {
        let lines = {
            let mut queue = self.lock();
            queue.bytes = 0;
            std::mem::take(&mut queue.lines)
        };
        lines
            .into_iter()
            .map(|line| {
                let bytes = match line {
                    Line::Bytes(bytes) => bytes,
                    Line::Streamed { serialise, .. } => {
                        let mut bytes = Vec::new();
                        serialise(&mut bytes).expect("serialises");
                        bytes
                    }
                };
                serde_json::from_slice(&bytes).expect("a queued line is JSON")
            })
            .collect()
    }

    /// Resolves once fewer than [`OUTBOUND_BUDGET`] bytes wait for the editor (at once if stdout is
    /// gone, so nothing waits forever on a closed editor).
    pub(crate) async fn room(&self) {
        self.room_below(OUTBOUND_BUDGET).await;
    }

    /// [`Outbound::room`] with a budget of its own, at most [`OUTBOUND_BUDGET`].
    pub(crate) async fn room_below(&self, budget: usize) {
        loop {
            let drained = self.drained.notified();
            tokio::pin!(drained);
            drained.as_mut().enable();
            {
                let queue = self.lock();
                if queue.closed || queue.bytes < budget {
                    return;
                }
            }
            drained.await;
        }
    }

    /// Marks stdout gone: queued lines are dropped and waiters released.
    fn close(&self) {
        {
            let mut queue = self.lock();
            queue.closed = true;
            queue.lines.clear();
            queue.bytes = 0;
        }
        self.drained.notify_waiters();
    }

    /// Takes the lines queued so far, waiting for one if there is none.
    async fn take(&self) -> VecDeque<Line> {
        loop {
            let queued = self.queued.notified();
            tokio::pin!(queued);
            queued.as_mut().enable();
            {
                let mut queue = self.lock();
                if !queue.lines.is_empty() {
                    return std::mem::take(&mut queue.lines);
                }
            }
            queued.await;
        }
    }

    fn written(&self, bytes: usize) {
        let below = {
            let mut queue = self.lock();
            queue.bytes = queue.bytes.saturating_sub(bytes);
            queue.bytes < OUTBOUND_BUDGET
        };
        if below {
            self.drained.notify_waiters();
        }
    }

    /// Writes queued lines to `out` until writing fails (the editor closed stdout).
    pub(crate) async fn write_to<W: AsyncWrite + Unpin>(&self, mut out: W) {
        let mut batch = Vec::with_capacity(BATCH_BYTES);
        loop {
            let lines = self.take().await;
            let mut result = Ok(());
            for line in lines {
                if result.is_err() {
                    break;
                }
                let size = line.size();
                let line = match line {
                    Line::Bytes(line) if line.len() < BATCH_BYTES => line,
                    big => {
                        result = self.flush_batch(&mut out, &mut batch).await;
                        if result.is_ok() {
                            result = match big {
                                Line::Bytes(line) => write_big_line(&mut out, &line).await,
                                Line::Streamed { serialise, .. } => {
                                    write_streamed(&mut out, serialise).await
                                }
                            };
                            self.written(size);
                        }
                        continue;
                    }
                };
                if batch.len() + size > BATCH_BYTES {
                    result = self.flush_batch(&mut out, &mut batch).await;
                }
                batch.extend_from_slice(&line);
                batch.push(b'\n');
            }
            if result.is_ok() {
                result = self.flush_batch(&mut out, &mut batch).await;
            }
            if let Err(error) = result {
                tracing::debug!(%error, "stdout closed; dropping what was left for the editor");
                self.close();
                return;
            }
        }
    }

    async fn flush_batch<W: AsyncWrite + Unpin>(
        &self,
        out: &mut W,
        batch: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let result = async {
            out.write_all(batch).await?;
            out.flush().await
        }
        .await;
        self.written(batch.len());
        batch.clear();
        result
    }
}

async fn write_big_line<W: AsyncWrite + Unpin>(out: &mut W, line: &[u8]) -> std::io::Result<()> {
    out.write_all(line).await?;
    out.write_all(b"\n").await?;
    out.flush().await
}

/// Serialises a message on a blocking thread into chunks written here as they come.
async fn write_streamed<W: AsyncWrite + Unpin>(
    out: &mut W,
    serialise: Serialise,
) -> std::io::Result<()> {
    if let Err(error) = crate::json_stream::write_in_chunks(out, serialise).await {
        // Half a message may be out: nothing after it could be read as JSON.
        tracing::error!(%error, "writing a big message for the editor failed half-way");
        return Err(error);
    }
    out.write_all(b"\n").await?;
    out.flush().await
}

/// One JSON-RPC notification, serialised as the SDK would write it.
#[derive(serde::Serialize)]
pub(crate) struct Notification<P> {
    jsonrpc: &'static str,
    method: &'static str,
    params: P,
}

impl<P> Notification<P> {
    pub(crate) fn new(method: &'static str, params: P) -> Self {
        Notification {
            jsonrpc: "2.0",
            method,
            params,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn a_watcher_is_told_once_the_answer_to_its_request_is_queued() {
        let outbound = Outbound::default();
        let mut seven = outbound.when_answered(serde_json::json!(7));
        let mut named = outbound.when_answered(serde_json::json!("a"));
        // A request or notification with that id, and another answer, are not it.
        outbound
            .push_sdk_line(br#"{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file"}"#.to_vec());
        outbound.push_sdk_line(br#"{"jsonrpc":"2.0","id":8,"result":{}}"#.to_vec());
        assert!(seven.try_recv().is_err());
        outbound.push_sdk_line(
            br#"{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}"#.to_vec(),
        );
        assert!(seven.try_recv().is_ok());
        assert!(named.try_recv().is_err());
        outbound.push_sdk_line(
            br#"{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"m"}}"#.to_vec(),
        );
        assert!(named.try_recv().is_ok());
        assert_eq!(outbound.take_queued_json().len(), 4, "every line is queued");
    }

    #[tokio::test]
    async fn room_waits_while_the_reader_is_slow_and_every_line_arrives_in_order() {
        let outbound = Arc::new(Outbound::default());
        let (ours, mut editor) = tokio::io::duplex(64 * 1024);
        let writer = tokio::spawn({
            let outbound = outbound.clone();
            async move { outbound.write_to(ours).await }
        });
        let line = vec![b'x'; 1024 * 1024 - 1];
        for _ in 0..5 {
            outbound.push(line.clone());
        }
        // Over budget while the editor reads nothing.
        let room = tokio::spawn({
            let outbound = outbound.clone();
            async move { outbound.room().await }
        });
        tokio::task::yield_now().await;
        assert!(outbound.waiting_bytes() >= OUTBOUND_BUDGET);
        assert!(!room.is_finished(), "room while over budget");
        let mut all = Vec::new();
        let mut chunk = vec![0; 1 << 20];
        while all.len() < 5 * 1024 * 1024 {
            let n = editor.read(&mut chunk).await.unwrap();
            all.extend_from_slice(&chunk[..n]);
        }
        room.await.unwrap();
        assert_eq!(all.iter().filter(|b| **b == b'\n').count(), 5);
        assert_eq!(outbound.waiting_bytes(), 0);
        drop(editor);
        outbound.push(b"after the editor left".to_vec());
        writer.await.unwrap();
        outbound.room().await;
    }

    #[tokio::test]
    async fn a_replay_waits_until_little_is_left_for_the_editor() {
        let outbound = Arc::new(Outbound::default());
        let (ours, mut editor) = tokio::io::duplex(16 * 1024);
        let writer = tokio::spawn({
            let outbound = outbound.clone();
            async move { outbound.write_to(ours).await }
        });
        // Well under the live budget, over the replay's: live output may go on, a replay waits.
        outbound.push(vec![b'x'; 2 * REPLAY_BUDGET]);
        tokio::task::yield_now().await;
        outbound.room().await;
        let replay = tokio::spawn({
            let outbound = outbound.clone();
            async move { outbound.room_below(REPLAY_BUDGET).await }
        });
        tokio::task::yield_now().await;
        assert!(
            !replay.is_finished(),
            "a replay went on with 512 KiB unread"
        );
        let mut chunk = vec![0; 1 << 20];
        let mut read = 0;
        while read < 2 * REPLAY_BUDGET + 1 {
            read += editor.read(&mut chunk).await.unwrap();
        }
        replay.await.unwrap();
        drop(editor);
        writer.abort();
    }

    #[tokio::test]
    async fn a_big_message_is_serialised_while_written_byte_for_byte_in_its_place() {
        let outbound = Arc::new(Outbound::default());
        // Escapes and multi-byte characters falling on every chunk edge somewhere.
        let text: String = (0..STREAM_ABOVE / 3)
            .map(|i| ["ab\"c\n", "é€", "x\\", "\u{1}"][i % 4])
            .collect();
        let message = serde_json::json!({"jsonrpc": "2.0", "method": "session/update",
            "params": {"update": {"text": text}}});
        let expected = serde_json::to_vec(&message).unwrap();
        assert!(expected.len() > STREAM_ABOVE);
        outbound.push(b"{\"before\":1}".to_vec());
        outbound.push_json(message, true);
        outbound.push_json(serde_json::json!({"after": 2}), false);
        {
            let queue = outbound.lock();
            assert!(
                matches!(queue.lines[1], Line::Streamed { .. }),
                "held serialised"
            );
            assert!(matches!(queue.lines[2], Line::Bytes(_)));
        }
        assert_eq!(outbound.waiting_bytes(), 13 + expected.len() + 1 + 12);

        let (ours, mut editor) = tokio::io::duplex(64 * 1024);
        let writer = tokio::spawn({
            let outbound = outbound.clone();
            async move { outbound.write_to(ours).await }
        });
        let mut want = b"{\"before\":1}\n".to_vec();
        want.extend_from_slice(&expected);
        want.extend_from_slice(b"\n{\"after\":2}\n");
        let mut got = vec![0; want.len()];
        editor.read_exact(&mut got).await.unwrap();
        assert!(
            got == want,
            "the streamed line differs from one serialisation"
        );
        while outbound.waiting_bytes() > 0 {
            tokio::task::yield_now().await;
        }
        drop(editor);
        writer.abort();
    }
}
