//! What a running claude reports ([`ClaudeEvent`]: its messages, then how it ended), and the
//! channel from claude's stdout reader to its session, bounded in bytes: when the session
//! stops taking messages (its editor is slow), the reader stops reading, claude's stdout pipe
//! fills and claude itself waits. Nothing is dropped; order is kept.
//!
//! A message counts against the budget until the session asks for the next one, which it does
//! only once the editor has room for what the last one became: so a reader that waits for the
//! whole budget after a big line ([`EventSender::wait_until_taken`]) reads no further while that
//! line's 10 MiB are still on their way to the editor, and two big lines are never held at once.

use std::io;
use std::process::ExitStatus;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::{Semaphore, mpsc};

use super::error::ClaudeError;
use super::wire::ClaudeMessage;
use crate::platform::process as platform;

/// What the process reports, in order: messages as they arrive, then exactly one `Exited`.
// Nearly every event is a Message, so boxing it would only add an allocation per line.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ClaudeEvent {
    /// Every stdout message except control responses (those answer `ClaudeHandle::request`).
    Message(ClaudeMessage),
    Exited(ExitInfo),
}

/// How claude ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExitInfo {
    /// "exit code 1" or "killed by signal 9".
    pub(crate) status: String,
    pub(crate) code: Option<i32>,
    /// The last ~8 KiB of stderr, secrets redacted.
    pub(crate) stderr_tail: String,
}

impl ExitInfo {
    pub(crate) fn new(status: io::Result<ExitStatus>, stderr_tail: String) -> Self {
        let (status, code) = match status {
            Ok(s) => platform::describe_exit(&s),
            Err(error) => (format!("unknown exit status ({error})"), None),
        };
        ExitInfo {
            status,
            code,
            stderr_tail,
        }
    }
}

impl From<ExitInfo> for ClaudeError {
    fn from(info: ExitInfo) -> Self {
        ClaudeError::Exited {
            status: info.status,
            stderr_tail: info.stderr_tail,
        }
    }
}

/// Bytes of claude's lines that may wait for the session. A longer line takes the whole budget.
pub(crate) const EVENT_BUDGET: usize = 1024 * 1024;

/// The reader's end.
#[derive(Clone)]
pub(crate) struct EventSender {
    tx: mpsc::UnboundedSender<(ClaudeEvent, u32)>,
    budget: Arc<Semaphore>,
    /// Whether the reader is waiting for the session to take messages (not for claude).
    waiting: Arc<AtomicBool>,
}

/// The session's end.
pub(crate) struct EventReceiver {
    rx: mpsc::UnboundedReceiver<(ClaudeEvent, u32)>,
    budget: Arc<Semaphore>,
    /// The cost of the message taken last, given back when the next one is asked for.
    taken: u32,
}

pub(crate) fn channel() -> (EventSender, EventReceiver) {
    let (tx, rx) = mpsc::unbounded_channel();
    let budget = Arc::new(Semaphore::new(EVENT_BUDGET));
    (
        EventSender {
            tx,
            budget: budget.clone(),
            waiting: Arc::new(AtomicBool::new(false)),
        },
        EventReceiver {
            rx,
            budget,
            taken: 0,
        },
    )
}

impl EventSender {
    /// Sends a message read from a line of `bytes` bytes, once the session has room for it.
    pub(crate) async fn send(&self, event: ClaudeEvent, bytes: usize) {
        let cost = bytes.clamp(1, EVENT_BUDGET) as u32;
        self.waiting.store(true, Ordering::Relaxed);
        let permit = self.budget.acquire_many(cost).await;
        self.waiting.store(false, Ordering::Relaxed);
        let Ok(permit) = permit else { return };
        // Given back by the receiver when the session takes the message.
        permit.forget();
        if self.tx.send((event, cost)).is_err() {
            // Nobody listens any more: keep the budget whole so the reader never stalls.
            self.budget.add_permits(cost as usize);
        }
    }

    /// Waits until the session has taken every message sent and asked for the next (at once when
    /// nobody listens any more): after a big line, so the next line is not read while this one is
    /// still held.
    pub(crate) async fn wait_until_taken(&self) {
        self.waiting.store(true, Ordering::Relaxed);
        let whole = self.budget.acquire_many(EVENT_BUDGET as u32).await;
        self.waiting.store(false, Ordering::Relaxed);
        drop(whole);
    }

    /// Sends without waiting: for the one `Exited`, which must never be held back.
    pub(crate) fn send_now(&self, event: ClaudeEvent) {
        let _ = self.tx.send((event, 0));
    }

    /// Whether the reader is held back by the session rather than waiting on claude.
    pub(crate) fn is_held_back(&self) -> bool {
        self.waiting.load(Ordering::Relaxed)
    }
}

impl EventReceiver {
    /// The next message. Asking for it gives the last one's cost back: the session asks only when
    /// the editor has room for what the last one became.
    pub(crate) async fn recv(&mut self) -> Option<ClaudeEvent> {
        self.budget
            .add_permits(std::mem::take(&mut self.taken) as usize);
        let (event, cost) = self.rx.recv().await?;
        self.taken = cost;
        Some(event)
    }
}

impl Drop for EventReceiver {
    /// Nobody will take messages any more: the reader's waits end at once (it goes on reading, so
    /// that control responses still arrive) and what it sends is dropped.
    fn drop(&mut self) {
        self.budget.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exited(status: &str) -> ClaudeEvent {
        ClaudeEvent::Exited(ExitInfo {
            status: status.into(),
            code: None,
            stderr_tail: String::new(),
        })
    }

    #[tokio::test]
    async fn the_sender_waits_once_the_budget_is_taken_and_order_is_kept() {
        let (tx, mut rx) = channel();
        tx.send(exited("a"), EVENT_BUDGET / 2).await;
        tx.send(exited("b"), EVENT_BUDGET / 2).await;
        let third = tokio::spawn({
            let tx = tx.clone();
            async move { tx.send(exited("c"), 10).await }
        });
        tokio::task::yield_now().await;
        assert!(!third.is_finished(), "the budget is spent");
        assert!(tx.is_held_back());
        assert_eq!(rx.recv().await, Some(exited("a")));
        tokio::task::yield_now().await;
        assert!(
            !third.is_finished(),
            "a message counts until the session asks for the next"
        );
        assert_eq!(rx.recv().await, Some(exited("b")));
        third.await.unwrap();
        assert_eq!(rx.recv().await, Some(exited("c")));
        // A line over the budget still passes, alone, once the session asks for it.
        let huge = tokio::spawn(async move { tx.send(exited("huge"), 10 * EVENT_BUDGET).await });
        assert_eq!(rx.recv().await, Some(exited("huge")));
        huge.await.unwrap();
    }
}
