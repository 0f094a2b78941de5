//! One lifecycle change at a time per session id: loads, resumes, closes and deletes of one id
//! wait for each other, so two of them can never each start a claude with `--resume <the same
//! id>` (two processes writing one conversation), nor close a claude the other just started.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::OwnedMutexGuard;

type IdLock = Arc<tokio::sync::Mutex<()>>;

/// A lock per session id, held only while some change of that id is under way.
#[derive(Default)]
pub(super) struct IdLocks(Mutex<HashMap<String, IdLock>>);

/// Held while one change of a session id runs; the next waiting one goes on when it drops.
pub(super) struct IdGuard<'a> {
    locks: &'a IdLocks,
    id: String,
    guard: Option<OwnedMutexGuard<()>>,
}

impl IdLocks {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, IdLock>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits until no other change of `id` runs, in the order they came.
    pub(super) async fn lock(&self, id: &str) -> IdGuard<'_> {
        let lock = self.map().entry(id.to_owned()).or_default().clone();
        let guard = lock.lock_owned().await;
        IdGuard {
            locks: self,
            id: id.to_owned(),
            guard: Some(guard),
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.map().len()
    }
}

impl Drop for IdGuard<'_> {
    fn drop(&mut self) {
        let mut map = self.locks.map();
        drop(self.guard.take());
        // Nobody else holds or waits for it (each waiter holds a clone): forget the id.
        if map
            .get(&self.id)
            .is_some_and(|lock| Arc::strong_count(lock) == 1)
        {
            map.remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn changes_of_one_id_wait_for_each_other_and_others_do_not() {
        let locks = IdLocks::default();
        let first = locks.lock("a").await;
        let other = locks.lock("b").await;
        let second = locks.lock("a");
        tokio::pin!(second);
        assert!(
            futures_poll_once(second.as_mut()).await.is_none(),
            "a second change of `a` waits"
        );
        drop(first);
        let second = second.await;
        drop((second, other));
        assert_eq!(locks.len(), 0, "ids are forgotten once nothing holds them");
    }

    /// Polls `fut` once: `Some` if it was ready.
    async fn futures_poll_once<F: Future + Unpin>(mut fut: F) -> Option<F::Output> {
        std::future::poll_fn(|cx| {
            std::task::Poll::Ready(match std::pin::Pin::new(&mut fut).poll(cx) {
                std::task::Poll::Ready(v) => Some(v),
                std::task::Poll::Pending => None,
            })
        })
        .await
    }
}
