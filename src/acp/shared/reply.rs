//! Answering a request from a task of its own, for v1's handlers and v2's alike: the SDK's
//! dispatch loop never waits on claude or on the editor.

use std::future::Future;

use agent_client_protocol::{Error, JsonRpcResponse, Protocol};

/// Answers `responder` with what `work` yields, from a task of its own: v1's handlers and v2's
/// (their errors are the session's, or already the protocol's).
pub(crate) fn reply_later<T, P, E, F>(responder: agent_client_protocol::Responder<T, P>, work: F)
where
    T: JsonRpcResponse + Send + 'static,
    P: Protocol,
    E: Into<Error>,
    F: Future<Output = Result<T, E>> + Send + 'static,
{
    tokio::spawn(async move {
        if let Err(e) = responder.respond_with_result(work.await.map_err(Into::into)) {
            tracing::debug!("response not sent: {e}");
        }
    });
}
