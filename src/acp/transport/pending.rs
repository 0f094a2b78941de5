//! Requests we send the editor ourselves, past the SDK, and the answers waiting for them.
//!
//! A request whose params are large (a permission ask carrying a 10 MiB Write) goes out through
//! [`Outbound::push_json`], serialised once while written; the SDK would copy it three times. Its
//! id is a string starting with [`ID_PREFIX`], which the SDK's ids (UUID v4 strings) never do, so
//! the editor's answer is recognised on the line stream and taken off it before the SDK sees it.
//!
//! Dropping the future of a request (a cancelled turn, a withdrawn ask) sends `$/cancel_request`
//! as the SDK does and forgets the entry: a late answer is then logged and dropped. When the
//! editor's input ends, every waiting request fails with [`Failure::Closed`] (a permission never
//! defaults to allow). The waiting is the one pending-request map ([`crate::pending`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use super::outbound::Outbound;
use crate::pending::{Pending, Waiter};

/// Our request ids: `claude-acp:<n>`. The SDK's are UUIDs, so the two never collide.
pub(crate) const ID_PREFIX: &str = "claude-acp:";

/// Why a request got no result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Failure {
    /// The editor answered with a JSON-RPC error.
    Error { code: i64, message: String },
    /// The editor's answer was not a JSON-RPC response we can read.
    Unreadable(String),
    /// The connection ended (or had ended) before an answer came.
    Closed,
}

/// The requests sent and not yet answered.
#[derive(Default)]
pub(crate) struct PendingRequests {
    /// The last request number given out.
    next: AtomicU64,
    map: Arc<Pending<u64, Value, Failure>>,
}

/// What is read of an editor line that may be an answer to us.
#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<IgnoredAny>,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<ErrorObject>,
}

#[derive(Deserialize)]
struct ErrorObject {
    code: i64,
    #[serde(default)]
    message: String,
}

/// One JSON-RPC request, serialised as the SDK would write it.
#[derive(serde::Serialize)]
struct Request<P> {
    jsonrpc: &'static str,
    id: String,
    method: String,
    params: P,
}

/// `$/cancel_request`, with the params the SDK gives it.
#[derive(serde::Serialize)]
struct CancelRequest {
    jsonrpc: &'static str,
    method: &'static str,
    params: CancelParams,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct CancelParams {
    request_id: String,
}

fn wire_id(n: u64) -> String {
    format!("{ID_PREFIX}{n}")
}

impl PendingRequests {
    /// Sends `method` with `params` to the editor and waits for its answer. `may_be_large` asks
    /// for the params to be measured and, when large, serialised while written. Dropping the
    /// future withdraws the request (`$/cancel_request`).
    pub(crate) async fn request<P>(
        self: &Arc<Self>,
        outbound: &Arc<Outbound>,
        method: impl Into<String>,
        params: P,
        may_be_large: bool,
    ) -> Result<Value, Failure>
    where
        P: serde::Serialize + Send + 'static,
    {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let mut withdraw = Withdraw {
            n,
            waiter: self.map.register(n)?,
            outbound: outbound.clone(),
            armed: true,
        };
        outbound.push_json(
            Request {
                jsonrpc: "2.0",
                id: wire_id(n),
                method: method.into(),
                params,
            },
            may_be_large,
        );
        // A sender dropped without a word: the map was closed under us.
        let answer = withdraw.waiter.answer(|| Failure::Closed).await;
        withdraw.armed = false;
        answer
    }

    /// Takes `line` if it is the editor's answer to one of our requests (routed to its waiter, or
    /// logged and dropped when nobody waits for it any more). Any other line is left for the SDK.
    pub(crate) fn take_answer(&self, line: &str) -> bool {
        // Cheap test first: most lines never mention our prefix.
        if memchr::memmem::find(line.as_bytes(), ID_PREFIX.as_bytes()).is_none() {
            return false;
        }
        let Ok(envelope) = serde_json::from_str::<Envelope>(line) else {
            return false;
        };
        if envelope.method.is_some() {
            return false;
        }
        let Some(n) = envelope
            .id
            .as_ref()
            .and_then(Value::as_str)
            .and_then(|id| id.strip_prefix(ID_PREFIX))
        else {
            return false;
        };
        let answer = match (envelope.result, envelope.error) {
            (_, Some(error)) => Err(Failure::Error {
                code: error.code,
                message: error.message,
            }),
            (Some(result), None) => Ok(result),
            (None, None) => Err(Failure::Unreadable(
                "a response with neither result nor error".into(),
            )),
        };
        let (delivered, sent) = match n.parse::<u64>() {
            Ok(n) => (
                self.map.resolve(&n, answer),
                n <= self.next.load(Ordering::Relaxed),
            ),
            Err(_) => (false, false),
        };
        match delivered {
            true => {}
            false if sent => tracing::debug!(
                id = %format_args!("{ID_PREFIX}{n}"),
                "an answer to a request withdrawn or failed before it came; ignored"
            ),
            false => tracing::info!(
                id = %format_args!("{ID_PREFIX}{n}"),
                "the editor answered a request id we never sent; ignored"
            ),
        }
        true
    }

    /// The editor's input ended: every waiting request fails, and later ones fail at once.
    pub(crate) fn close(&self) {
        self.map.close(Failure::Closed);
    }

    #[cfg(test)]
    fn waiting(&self) -> usize {
        self.map.waiting_count()
    }
}

/// Withdraws a request whose future is dropped before its answer came.
struct Withdraw {
    n: u64,
    waiter: Waiter<u64, Value, Failure>,
    outbound: Arc<Outbound>,
    armed: bool,
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        if self.armed && self.waiter.withdraw() {
            self.outbound.push_json(
                CancelRequest {
                    jsonrpc: "2.0",
                    method: "$/cancel_request",
                    params: CancelParams {
                        request_id: wire_id(self.n),
                    },
                },
                false,
            );
        }
    }
}

#[cfg(test)]
mod tests;
