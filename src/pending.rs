//! Requests waiting for their answers, by id: the one correlation map both sides use (the
//! requests we send the editor, `acp::transport::pending`, and the control requests we send
//! claude, `claude::pending`).
//!
//! A waiter that is dropped before its answer came (a timeout, a cancelled turn) takes its entry
//! with it, so nothing is left behind; a late answer then finds nobody and is dropped. Once the
//! other side is gone ([`Pending::close`]), every waiting request fails with why, and so does
//! every later one.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::oneshot;

/// Requests sent and not yet answered: `K` their id, `T` an answer, `E` why there is none.
pub(crate) struct Pending<K, T, E> {
    state: Mutex<State<K, T, E>>,
}

struct State<K, T, E> {
    waiting: HashMap<K, oneshot::Sender<Result<T, E>>>,
    /// Why nothing more will be answered, once the other side is gone.
    closed: Option<E>,
}

impl<K, T, E> Default for Pending<K, T, E> {
    fn default() -> Self {
        Self {
            state: Mutex::new(State {
                waiting: HashMap::new(),
                closed: None,
            }),
        }
    }
}

impl<K, T, E> Pending<K, T, E>
where
    K: Eq + Hash + Clone,
    E: Clone,
{
    fn state(&self) -> MutexGuard<'_, State<K, T, E>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts waiting for `id`'s answer, or says why none will come. The waiter forgets the
    /// request when dropped.
    pub(crate) fn register(self: &Arc<Self>, id: K) -> Result<Waiter<K, T, E>, E> {
        let mut state = self.state();
        if let Some(why) = &state.closed {
            return Err(why.clone());
        }
        let (tx, rx) = oneshot::channel();
        state.waiting.insert(id.clone(), tx);
        Ok(Waiter {
            pending: Arc::clone(self),
            id,
            answer: rx,
        })
    }

    /// Delivers `answer` to whoever waits for `id`; false when nobody does (it was withdrawn,
    /// timed out, or never asked), and the answer is dropped.
    pub(crate) fn resolve(&self, id: &K, answer: Result<T, E>) -> bool {
        let Some(tx) = self.state().waiting.remove(id) else {
            return false;
        };
        // The waiter may go before reading it; then the answer is dropped.
        let _ = tx.send(answer);
        true
    }

    /// The other side is gone: every waiting request fails with `why`, and so will every later one.
    pub(crate) fn close(&self, why: E) {
        let waiting = {
            let mut state = self.state();
            state.closed = Some(why.clone());
            std::mem::take(&mut state.waiting)
        };
        for (_, tx) in waiting {
            let _ = tx.send(Err(why.clone()));
        }
    }

    /// Forgets request `id`; true if it was still waiting.
    pub(crate) fn forget(&self, id: &K) -> bool {
        self.state().waiting.remove(id).is_some()
    }

    /// How many requests still wait for their answer.
    pub(crate) fn waiting_count(&self) -> usize {
        self.state().waiting.len()
    }
}

/// One registered request's answer to come. Dropping it forgets the request.
pub(crate) struct Waiter<K, T, E>
where
    K: Eq + Hash + Clone,
    E: Clone,
{
    pending: Arc<Pending<K, T, E>>,
    id: K,
    answer: oneshot::Receiver<Result<T, E>>,
}

impl<K, T, E> Waiter<K, T, E>
where
    K: Eq + Hash + Clone,
    E: Clone,
{
    /// Waits for the answer; `gone` is why there is none when the map itself went away
    /// unanswered (it never does while a side is open: [`Pending::close`] answers everyone).
    pub(crate) async fn answer(&mut self, gone: impl FnOnce() -> E) -> Result<T, E> {
        match (&mut self.answer).await {
            Ok(answer) => answer,
            Err(_) => Err(gone()),
        }
    }

    /// Forgets the request now; true if it was still waiting (no answer had come).
    pub(crate) fn withdraw(&self) -> bool {
        self.pending.forget(&self.id)
    }
}

impl<K, T, E> Drop for Waiter<K, T, E>
where
    K: Eq + Hash + Clone,
    E: Clone,
{
    fn drop(&mut self) {
        self.pending.forget(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Map = Pending<&'static str, u32, String>;

    #[tokio::test]
    async fn answers_reach_the_request_with_the_same_id() {
        let pending = Arc::new(Map::default());
        let mut a = pending.register("a").unwrap();
        let mut b = pending.register("b").unwrap();
        assert!(pending.resolve(&"b", Err("nope".into())));
        assert!(pending.resolve(&"a", Ok(1)));
        assert_eq!(a.answer(String::new).await, Ok(1));
        assert_eq!(b.answer(String::new).await, Err("nope".into()));
    }

    #[tokio::test]
    async fn a_dropped_waiter_is_forgotten_and_its_late_answer_finds_nobody() {
        let pending = Arc::new(Map::default());
        let a = pending.register("a").unwrap();
        assert!(!pending.resolve(&"zzz", Ok(0)));
        assert_eq!(pending.waiting_count(), 1);
        drop(a);
        assert_eq!(pending.waiting_count(), 0);
        assert!(!pending.resolve(&"a", Ok(1)));
    }

    #[tokio::test]
    async fn closing_fails_waiting_and_later_requests() {
        let pending = Arc::new(Map::default());
        let mut a = pending.register("a").unwrap();
        pending.close("gone".into());
        assert_eq!(a.answer(String::new).await, Err("gone".into()));
        assert_eq!(pending.register("b").err(), Some("gone".into()));
    }
}
