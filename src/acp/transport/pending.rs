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
//! defaults to allow).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use tokio::sync::oneshot;

use super::outbound::Outbound;

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

type Answer = Result<Value, Failure>;

#[derive(Default)]
struct State {
    next: u64,
    waiting: HashMap<u64, oneshot::Sender<Answer>>,
    /// The editor's input ended: nothing more will be answered.
    closed: bool,
}

/// The requests sent and not yet answered.
#[derive(Default)]
pub(crate) struct PendingRequests {
    state: Mutex<State>,
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
    method: &'static str,
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
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sends `method` with `params` to the editor and waits for its answer. `may_be_large` asks
    /// for the params to be measured and, when large, serialised while written. Dropping the
    /// future withdraws the request (`$/cancel_request`).
    pub(crate) async fn request<P>(
        self: &Arc<Self>,
        outbound: &Arc<Outbound>,
        method: &'static str,
        params: P,
        may_be_large: bool,
    ) -> Result<Value, Failure>
    where
        P: serde::Serialize + Send + 'static,
    {
        let (n, answer) = {
            let mut state = self.lock();
            if state.closed {
                return Err(Failure::Closed);
            }
            state.next += 1;
            let n = state.next;
            let (sender, answer) = oneshot::channel();
            state.waiting.insert(n, sender);
            (n, answer)
        };
        let mut withdraw = Withdraw {
            n,
            pending: self.clone(),
            outbound: outbound.clone(),
            armed: true,
        };
        outbound.push_json(
            Request {
                jsonrpc: "2.0",
                id: wire_id(n),
                method,
                params,
            },
            may_be_large,
        );
        let answer = answer.await;
        withdraw.armed = false;
        // A sender dropped without a word: the map was closed under us.
        answer.unwrap_or(Err(Failure::Closed))
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
        let (waiter, sent) = match n.parse::<u64>() {
            Ok(n) => {
                let mut state = self.lock();
                (state.waiting.remove(&n), n <= state.next)
            }
            Err(_) => (None, false),
        };
        match waiter {
            // The waiter may go before reading it; then the answer is dropped.
            Some(waiter) => drop(waiter.send(answer)),
            None if sent => tracing::debug!(
                id = %format_args!("{ID_PREFIX}{n}"),
                "an answer to a request withdrawn or failed before it came; ignored"
            ),
            None => tracing::warn!(
                id = %format_args!("{ID_PREFIX}{n}"),
                "the editor answered a request id we never sent; ignored"
            ),
        }
        true
    }

    /// The editor's input ended: every waiting request fails, and later ones fail at once.
    pub(crate) fn close(&self) {
        let waiting = {
            let mut state = self.lock();
            state.closed = true;
            std::mem::take(&mut state.waiting)
        };
        for (_, waiter) in waiting {
            let _ = waiter.send(Err(Failure::Closed));
        }
    }

    /// Forgets request `n`; true if it was still waiting.
    fn forget(&self, n: u64) -> bool {
        self.lock().waiting.remove(&n).is_some()
    }

    #[cfg(test)]
    fn waiting(&self) -> usize {
        self.lock().waiting.len()
    }
}

/// Withdraws a request whose future is dropped before its answer came.
struct Withdraw {
    n: u64,
    pending: Arc<PendingRequests>,
    outbound: Arc<Outbound>,
    armed: bool,
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        if self.armed && self.pending.forget(self.n) {
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
