//! Our transport for the ACP SDK: stdin and stdout on tokio without blocking threads, editor lines
//! capped and checked before the SDK sees them, and one byte-measured queue towards the editor
//! that sessions wait on before taking more of claude's output (backpressure).
//!
//! The SDK's own stdio reads through a blocking thread, ends the connection on a line that is not
//! UTF-8, holds lines without limit, quotes bad input back, and queues outgoing messages without
//! bound; it accepts any line stream and line sink, which is what this module gives it.

mod lines;
mod old_text;
mod outbound;

use std::sync::Arc;

use futures::StreamExt as _;
use tokio::io::{AsyncRead, AsyncWrite};

pub(crate) use outbound::Outbound;

use crate::platform::stdio;

/// The line stream and line sink the SDK connects to, plus the queue both write into.
pub(crate) struct Transport {
    pub(crate) outbound: Arc<Outbound>,
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
            input: Box::pin(input),
            output: Box::pin(output),
        }
    }

    /// Starts the writer task and returns what the SDK's `Lines` takes: a sink of outgoing lines
    /// (it never waits: the queue is measured and sessions wait on it instead) and the stream of
    /// the editor's lines.
    pub(crate) fn into_lines(
        self,
    ) -> (
        impl futures::Sink<String, Error = std::io::Error> + Send + 'static,
        impl futures::Stream<Item = std::io::Result<String>> + Send + 'static,
    ) {
        let Transport {
            outbound,
            input,
            output,
        } = self;
        tokio::spawn({
            let outbound = outbound.clone();
            async move { outbound.write_to(output).await }
        });
        let reader = lines::LineReader::new(input, outbound.clone());
        let incoming = futures::stream::unfold(reader, |mut reader| async move {
            let line = reader.next_line().await?;
            Some((line, reader))
        })
        .boxed();
        let sink = futures::sink::unfold(outbound, |outbound, line: String| async move {
            outbound.push(line.into_bytes());
            Ok::<_, std::io::Error>(outbound)
        });
        (sink, incoming)
    }
}
