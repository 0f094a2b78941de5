//! Correlating the control requests we send claude with the control responses it prints, on the
//! one pending-request map ([`crate::pending`]).

use std::sync::Arc;

use serde_json::Value;

use super::error::ClaudeError;
use super::wire::ControlResponse;
use crate::pending::{Pending, Waiter};

type Answer = Result<Value, ClaudeError>;

/// Why a control request got no result: claude answered with an error, or it is gone.
#[derive(Debug, Clone)]
enum NoResult {
    Error(String),
    Exited { status: String, stderr_tail: String },
}

impl From<NoResult> for ClaudeError {
    fn from(why: NoResult) -> Self {
        match why {
            NoResult::Error(error) => ClaudeError::ControlError(error),
            NoResult::Exited {
                status,
                stderr_tail,
            } => ClaudeError::Exited {
                status,
                stderr_tail,
            },
        }
    }
}

/// Requests waiting for claude's answer, by request_id. Once claude has exited, every waiting request
/// fails and new ones fail at once.
pub(crate) struct PendingRequests {
    map: Arc<Pending<String, Value, NoResult>>,
    /// Whether claude has answered any request yet: it reads its stdin only once it has started.
    answering: tokio::sync::watch::Sender<bool>,
}

impl Default for PendingRequests {
    fn default() -> Self {
        Self {
            map: Arc::default(),
            answering: tokio::sync::watch::Sender::new(false),
        }
    }
}

impl PendingRequests {
    /// Becomes true at claude's first answer (`initialize`'s, as claude-acp asks it first).
    pub(crate) fn answering(&self) -> tokio::sync::watch::Receiver<bool> {
        self.answering.subscribe()
    }

    /// Starts waiting for `request_id`'s answer. The returned guard stops waiting when dropped, so a
    /// timed-out or abandoned request leaves nothing behind.
    pub(crate) fn register(
        self: &Arc<Self>,
        request_id: &str,
    ) -> Result<PendingAnswer, ClaudeError> {
        let waiter = self.map.register(request_id.to_owned())?;
        Ok(PendingAnswer { waiter })
    }

    /// Delivers claude's answer to whoever waits for it; an answer nobody waits for (timed out, or
    /// never asked) is logged and dropped.
    pub(crate) fn resolve(&self, response: ControlResponse) {
        self.answering
            .send_if_modified(|answering| !std::mem::replace(answering, true));
        let request_id = response.request_id().to_owned();
        let answer = match response {
            ControlResponse::Success { response, .. } => Ok(response),
            ControlResponse::Error { error, .. } => Err(NoResult::Error(error)),
        };
        if !self.map.resolve(&request_id, answer) {
            tracing::debug!(
                request_id = %request_id,
                "control_response for no waiting request; ignored"
            );
        }
    }

    /// claude is gone: every waiting request fails, and so will every later one.
    pub(crate) fn fail_all(&self, status: &str, stderr_tail: &str) {
        self.map.close(NoResult::Exited {
            status: status.to_owned(),
            stderr_tail: stderr_tail.to_owned(),
        });
    }

    /// How many requests still wait for claude's answer.
    pub(crate) fn waiting_count(&self) -> usize {
        self.map.waiting_count()
    }
}

/// One registered request's answer to come; dropping it forgets the request.
pub(crate) struct PendingAnswer {
    waiter: Waiter<String, Value, NoResult>,
}

impl PendingAnswer {
    /// Waits for the answer. Never hangs past claude's exit: `fail_all` answers every request.
    pub(crate) async fn answer(&mut self) -> Answer {
        // The map was dropped without answering: claude's connection is gone.
        let gone = || NoResult::Exited {
            status: "unknown".into(),
            stderr_tail: String::new(),
        };
        self.waiter.answer(gone).await.map_err(ClaudeError::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn answers_reach_the_request_with_the_same_id() {
        let pending = Arc::new(PendingRequests::default());
        let mut a = pending.register("a").unwrap();
        let mut b = pending.register("b").unwrap();
        pending.resolve(ControlResponse::Error {
            request_id: "b".into(),
            error: "nope".into(),
        });
        pending.resolve(ControlResponse::Success {
            request_id: "a".into(),
            response: json!({"ok": 1}),
        });
        assert_eq!(a.answer().await.unwrap(), json!({"ok": 1}));
        assert!(matches!(b.answer().await, Err(ClaudeError::ControlError(m)) if m == "nope"));
    }

    #[tokio::test]
    async fn unknown_ids_are_ignored_and_dropped_requests_are_forgotten() {
        let pending = Arc::new(PendingRequests::default());
        let a = pending.register("a").unwrap();
        pending.resolve(ControlResponse::Success {
            request_id: "zzz".into(),
            response: json!(null),
        });
        assert_eq!(pending.waiting_count(), 1);
        drop(a);
        assert_eq!(pending.waiting_count(), 0);
    }

    #[tokio::test]
    async fn exit_fails_waiting_and_later_requests() {
        let pending = Arc::new(PendingRequests::default());
        let mut a = pending.register("a").unwrap();
        pending.fail_all("exit code 1", "boom");
        assert!(
            matches!(a.answer().await, Err(ClaudeError::Exited { status, .. }) if status == "exit code 1")
        );
        assert!(
            matches!(pending.register("b"), Err(ClaudeError::Exited { stderr_tail, .. }) if stderr_tail == "boom")
        );
    }
}
