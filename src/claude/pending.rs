//! Correlating the control requests we send claude with the control responses it prints.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tokio::sync::oneshot;

use super::error::ClaudeError;
use super::wire::ControlResponse;

type Answer = Result<Value, ClaudeError>;

/// Requests waiting for claude's answer, by request_id. Once claude has exited, every waiting request
/// fails and new ones fail at once.
#[derive(Default)]
pub(crate) struct PendingRequests {
    state: Mutex<PendingState>,
}

#[derive(Default)]
struct PendingState {
    waiting: HashMap<String, oneshot::Sender<Answer>>,
    /// `(status, stderr_tail)` once claude has exited.
    exited: Option<(String, String)>,
}

impl PendingRequests {
    fn state(&self) -> MutexGuard<'_, PendingState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Starts waiting for `request_id`'s answer. The returned guard stops waiting when dropped, so a
    /// timed-out or abandoned request leaves nothing behind.
    pub(crate) fn register(
        self: &Arc<Self>,
        request_id: &str,
    ) -> Result<PendingAnswer, ClaudeError> {
        let mut state = self.state();
        if let Some((status, stderr_tail)) = &state.exited {
            return Err(ClaudeError::Exited {
                status: status.clone(),
                stderr_tail: stderr_tail.clone(),
            });
        }
        let (tx, rx) = oneshot::channel();
        state.waiting.insert(request_id.to_owned(), tx);
        Ok(PendingAnswer {
            pending: Arc::clone(self),
            request_id: request_id.to_owned(),
            answer: rx,
        })
    }

    /// Delivers claude's answer to whoever waits for it; an answer nobody waits for (timed out, or
    /// never asked) is logged and dropped.
    pub(crate) fn resolve(&self, response: ControlResponse) {
        let Some(tx) = self.state().waiting.remove(response.request_id()) else {
            tracing::debug!(
                request_id = response.request_id(),
                "control_response for no waiting request; ignored"
            );
            return;
        };
        let answer = match response {
            ControlResponse::Success { response, .. } => Ok(response),
            ControlResponse::Error { error, .. } => Err(ClaudeError::ControlError(error)),
        };
        let _ = tx.send(answer);
    }

    /// claude is gone: every waiting request fails, and so will every later one.
    pub(crate) fn fail_all(&self, status: &str, stderr_tail: &str) {
        let mut state = self.state();
        state.exited = Some((status.to_owned(), stderr_tail.to_owned()));
        for (_, tx) in state.waiting.drain() {
            let _ = tx.send(Err(ClaudeError::Exited {
                status: status.to_owned(),
                stderr_tail: stderr_tail.to_owned(),
            }));
        }
    }

    fn forget(&self, request_id: &str) {
        self.state().waiting.remove(request_id);
    }

    /// How many requests still wait for claude's answer.
    pub(crate) fn waiting_count(&self) -> usize {
        self.state().waiting.len()
    }
}

/// One registered request's answer to come.
pub(crate) struct PendingAnswer {
    pending: Arc<PendingRequests>,
    request_id: String,
    answer: oneshot::Receiver<Answer>,
}

impl PendingAnswer {
    /// Waits for the answer. Never hangs past claude's exit: `fail_all` answers every request.
    pub(crate) async fn answer(&mut self) -> Answer {
        match (&mut self.answer).await {
            Ok(answer) => answer,
            // The map was dropped without answering: claude's connection is gone.
            Err(_) => Err(ClaudeError::Exited {
                status: "unknown".into(),
                stderr_tail: String::new(),
            }),
        }
    }
}

impl Drop for PendingAnswer {
    fn drop(&mut self) {
        self.pending.forget(&self.request_id);
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
