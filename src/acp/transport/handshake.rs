//! Requests an editor sends right behind its `initialize`, without waiting for the answer, are
//! handed to the SDK only once that answer is queued.
//!
//! The SDK refuses every request that reaches it while an `initialize` is unanswered ("ACP
//! initialization must complete before `session/new` can be used"), and it answers requests in
//! tasks, so a `session/new` written in the same breath as the `initialize` (as CodeCompanion's
//! one-shot `:CodeCompanionChat <prompt>` can) would fail every time. JSON-RPC lets a client send
//! requests without waiting; handling them in the order sent is what the editor expects.

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::outbound::Outbound;

/// How long the editor's next line may be held for an `initialize` answer the SDK never queues:
/// it answers at once, so this only keeps a fault in it from stopping the connection.
const HOLD_AT_MOST: Duration = Duration::from_secs(10);

/// The id of the `initialize` request `line` is, if it is one.
pub(super) fn initialize_id(line: &str) -> Option<Value> {
    #[derive(Deserialize)]
    struct Request<'a> {
        #[serde(default)]
        id: Option<Value>,
        #[serde(borrow, default)]
        method: Option<std::borrow::Cow<'a, str>>,
    }
    // Cheap test first: only the handshake mentions the word.
    memchr::memmem::find(line.as_bytes(), b"\"initialize\"")?;
    let request: Request = serde_json::from_str(line).ok()?;
    (request.method.as_deref() == Some("initialize"))
        .then_some(request.id)
        .flatten()
}

/// The answer to the `initialize` request `line` is, if it is one, to wait for: watched from
/// before the SDK sees the line, so an answer the SDK gives at once is not missed.
pub(super) fn answer_to_wait_for(outbound: &Outbound, line: &str) -> Option<AnswerQueued> {
    initialize_id(line).map(|id| AnswerQueued(outbound.when_answered(id)))
}

/// The answer to an `initialize` request, awaited before the editor's next line is read.
pub(super) struct AnswerQueued(tokio::sync::oneshot::Receiver<()>);

impl AnswerQueued {
    /// Waits until the answer is queued for the editor (or the editor's output is gone), so the
    /// line after the `initialize` reaches an initialized SDK.
    pub(super) async fn wait(self) {
        if tokio::time::timeout(HOLD_AT_MOST, self.0).await.is_err() {
            tracing::debug!("initialize was not answered within {HOLD_AT_MOST:?}; reading on");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_an_initialize_request_is_held_for() {
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
                Some(json!(1)),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"initialize"}"#,
                Some(json!("a")),
            ),
            // A notification has no answer to wait for.
            (r#"{"jsonrpc":"2.0","method":"initialize"}"#, None),
            (
                r#"{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/initialize"}}"#,
                None,
            ),
            (
                r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"prompt":[{"type":"text","text":"\"initialize\""}]}}"#,
                None,
            ),
            // An answer to a request of ours that happens to be named so.
            (r#"{"jsonrpc":"2.0","id":4,"result":"initialize"}"#, None),
            ("not json \"initialize\"", None),
        ];
        for (line, id) in cases {
            assert_eq!(initialize_id(line), id, "{line}");
        }
    }
}
