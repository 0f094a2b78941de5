//! Our transport for the ACP SDK: stdin and stdout on tokio without blocking threads, editor lines
//! capped and checked before the SDK sees them, and one byte-measured queue towards the editor
//! that sessions wait on before taking more of claude's output (backpressure).
//!
//! The SDK's own stdio reads through a blocking thread, ends the connection on a line that is not
//! UTF-8, holds lines without limit, quotes bad input back, and queues outgoing messages without
//! bound; it accepts any line stream and line sink, which is what this module gives it.

mod handshake;
mod lines;
mod mcp_routes;
mod old_text;
mod outbound;
mod pending;
mod screen;

use std::sync::Arc;

use futures::StreamExt as _;
use tokio::io::{AsyncRead, AsyncWrite};

pub(crate) use mcp_routes::McpRoutes;
pub(crate) use outbound::{Notification, Outbound, REPLAY_BUDGET};
pub(crate) use pending::{Failure, PendingRequests};

use crate::platform::stdio;

/// The line stream and line sink the SDK connects to, plus the queue both write into and the
/// requests we send past the SDK.
pub(crate) struct Transport {
    pub(crate) outbound: Arc<Outbound>,
    pub(crate) pending: Arc<PendingRequests>,
    /// Where the editor's MCP servers' notifications go (`mcp/message`).
    pub(crate) mcp_routes: Arc<McpRoutes>,
    input: stdio::Input,
    output: stdio::Output,
}

impl Transport {
    /// This process's stdin and stdout.
    pub(crate) fn stdio() -> Self {
        Self::new(stdio::stdin(), stdio::stdout())
    }

    pub(crate) fn new(
        input: impl AsyncRead + Send + 'static,
        output: impl AsyncWrite + Send + 'static,
    ) -> Self {
        Transport {
            outbound: Arc::new(Outbound::default()),
            pending: Arc::new(PendingRequests::default()),
            mcp_routes: Arc::default(),
            input: Box::pin(input),
            output: Box::pin(output),
        }
    }

    /// Starts the writer task and returns what the SDK's `Lines` takes: a sink of outgoing lines
    /// (it never waits: the queue is measured and sessions wait on it instead) and the stream of
    /// the editor's lines, without the answers to our own requests (routed to their waiters) and the
    /// notifications of the editor's MCP servers (to theirs).
    /// When the editor's input or output ends, our requests still waiting fail.
    pub(crate) fn into_lines(
        self,
    ) -> (
        impl futures::Sink<String, Error = std::io::Error> + Send + 'static,
        impl futures::Stream<Item = std::io::Result<String>> + Send + 'static,
    ) {
        let Transport {
            outbound,
            pending,
            mcp_routes,
            input,
            output,
        } = self;
        tokio::spawn({
            let (outbound, pending) = (outbound.clone(), pending.clone());
            async move {
                outbound.write_to(output).await;
                // stdout is gone: no request of ours can reach the editor any more.
                pending.close();
            }
        });
        let reader = lines::LineReader::new(input, outbound.clone());
        let start = (
            reader,
            (pending, mcp_routes),
            outbound.clone(),
            None::<handshake::AnswerQueued>,
        );
        let incoming = futures::stream::unfold(start, |(mut reader, taken, outbound, held)| {
            async move {
                if let Some(answer) = held {
                    answer.wait().await;
                }
                let (pending, mcp_routes) = &taken;
                loop {
                    let Some(line) = reader.next_line().await else {
                        pending.close();
                        return None;
                    };
                    let mut held = None;
                    match &line {
                        Ok(text) if pending.take_answer(text) => continue,
                        Ok(text) if mcp_routes.take_notification(text) => continue,
                        Ok(text) => held = handshake::answer_to_wait_for(&outbound, text),
                        // The SDK ends the connection on a read error.
                        Err(_) => pending.close(),
                    }
                    return Some((line, (reader, taken, outbound, held)));
                }
            }
        })
        .boxed();
        let sink = futures::sink::unfold(outbound, |outbound, line: String| async move {
            outbound.push_sdk_line(line.into_bytes());
            Ok::<_, std::io::Error>(outbound)
        });
        (sink, incoming)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn our_requests_fail_when_the_editors_output_or_input_ends() {
        for end in ["output", "input"] {
            // The editor's two ends: what it reads from us and what it writes to us.
            let (adapter_out, editor_in) = tokio::io::duplex(1024);
            let (editor_out, adapter_in) = tokio::io::duplex(1024);
            let transport = Transport::new(adapter_in, adapter_out);
            let (outbound, pending) = (transport.outbound.clone(), transport.pending.clone());
            let (_sink, mut incoming) = transport.into_lines();
            let ask = tokio::spawn(async move {
                pending
                    .request(&outbound, "session/request_permission", (), false)
                    .await
            });
            if end == "output" {
                drop(editor_in);
            } else {
                drop(editor_out);
                assert!(incoming.next().await.is_none());
            }
            let answer = tokio::time::timeout(std::time::Duration::from_secs(5), ask)
                .await
                .expect("the ask ends");
            assert_eq!(answer.unwrap(), Err(Failure::Closed), "{end}");
        }
    }
}
