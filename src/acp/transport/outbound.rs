//! Everything we send the editor, in one queue measured in bytes: the SDK's lines, our own error
//! answers and the session updates written straight here. A writer task drains it to stdout; while
//! more than the budget waits, sessions hold off reading claude (see [`Outbound::room`]), so an
//! editor that stops reading slows claude down instead of growing this process.

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::Notify;

/// Bytes waiting for the editor above which sessions stop taking claude's output.
pub(crate) const OUTBOUND_BUDGET: usize = 4 * 1024 * 1024;
/// Lines smaller than this are gathered into one write.
const BATCH_BYTES: usize = 64 * 1024;

#[derive(Default)]
struct Queue {
    /// Each line without its newline.
    lines: VecDeque<Vec<u8>>,
    /// Bytes of the queued lines plus the one being written, newlines included.
    bytes: usize,
    /// stdout is gone: nothing more is queued and nobody waits for room.
    closed: bool,
}

/// The queue of lines for the editor.
#[derive(Default)]
pub(crate) struct Outbound {
    queue: Mutex<Queue>,
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
        let line = super::old_text::explicit_old_text(line);
        {
            let mut queue = self.lock();
            if queue.closed {
                return;
            }
            queue.bytes += line.len() + 1;
            queue.lines.push_back(line);
        }
        self.queued.notify_one();
    }

    /// Bytes waiting for the editor.
    #[cfg(test)]
    pub(crate) fn waiting_bytes(&self) -> usize {
        self.lock().bytes
    }

    /// Resolves once fewer than [`OUTBOUND_BUDGET`] bytes wait for the editor (at once if stdout is
    /// gone, so nothing waits forever on a closed editor).
    pub(crate) async fn room(&self) {
        loop {
            let drained = self.drained.notified();
            tokio::pin!(drained);
            drained.as_mut().enable();
            {
                let queue = self.lock();
                if queue.closed || queue.bytes < OUTBOUND_BUDGET {
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
    async fn take(&self) -> VecDeque<Vec<u8>> {
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
                let size = line.len() + 1;
                if line.len() >= BATCH_BYTES {
                    result = self.flush_batch(&mut out, &mut batch).await;
                    if result.is_ok() {
                        result = write_big_line(&mut out, &line).await;
                        self.written(size);
                    }
                    continue;
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use tokio::io::AsyncReadExt;

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
}
