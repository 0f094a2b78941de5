//! claude's stdout reader and the log masking driven by arbitrary bytes, for `crate::fuzzing`.

use super::events;
use super::events::ClaudeEvent;
use super::pending::PendingRequests;
use super::streams::{BIG_LINES, BigLines, read_stdout_with};
use super::wire::ClaudeMessage;

pub(crate) use super::redact::{log_excerpt, redact_secrets};

/// Every message the stdout reader passes on when `bytes` is claude's whole stdout, in order
/// (control responses go to the waiting requests, of which there are none here).
pub(crate) fn stdout_messages(bytes: &[u8]) -> Vec<ClaudeMessage> {
    stdout_messages_with(bytes, BIG_LINES)
}

/// [`stdout_messages`] with every line and every string literal taken as big, so that the
/// big-line path (`super::big_line`) reads every line it can.
pub(crate) fn stdout_messages_all_big(bytes: &[u8]) -> Vec<ClaudeMessage> {
    let all_big = BigLines {
        line_bytes: 0,
        literal_bytes: 0,
    };
    stdout_messages_with(bytes, all_big)
}

fn stdout_messages_with(bytes: &[u8], big: BigLines) -> Vec<ClaudeMessage> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        let (tx, mut rx) = events::channel();
        let read = async move {
            let pending = PendingRequests::default();
            read_stdout_with(bytes, &pending, &tx, big).await;
        };
        let take = async {
            let mut messages = Vec::new();
            while let Some(event) = rx.recv().await {
                if let ClaudeEvent::Message(message) = event {
                    messages.push(message);
                }
            }
            messages
        };
        tokio::join!(read, take).1
    })
}
