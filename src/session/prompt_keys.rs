//! ACP v2's `idempotencyKey` on `session/prompt`: a prompt sent again under the key of one the
//! session took in is answered with that prompt's message id, and never reaches claude twice. A
//! retry that comes while the first attempt still waits its turn joins it: both are answered
//! together, with its message id once it is in the conversation, or with how it ended before
//! (a cancel, a refusal), after which the key is free again (nothing was inserted under it).
//!
//! The keys of prompts taken in are kept with the session, beside claude's transcript
//! (`history::save_prompt_keys`), so a retry after claude-acp restarted (`session/resume` or
//! `session/load` in a new process) is recognised too; only the newest [`MAX_KEYS`] of a session
//! are kept.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio::sync::{oneshot, watch};

use crate::domain::{AgentError, Inserted, StopReason, TurnOutcome};
use crate::history::{self, PromptKey};

/// The keys one session remembers: a client retries a prompt within moments, not hundreds of
/// prompts later.
pub(super) const MAX_KEYS: usize = 256;

/// What became of the first prompt sent under a key, as its retries are told.
#[derive(Clone)]
enum Settled {
    /// It is in the conversation as this message.
    Inserted(String),
    /// It ended before it was (cancelled while it waited, refused): how.
    Ended(Result<TurnOutcome, AgentError>),
}

#[derive(Default)]
struct Keys {
    /// The prompts taken in, oldest first.
    inserted: VecDeque<PromptKey>,
    /// The prompts still waiting to be taken in, their retries told when they are.
    waiting: HashMap<String, watch::Receiver<Option<Settled>>>,
}

/// The prompt keys of one session.
pub(super) struct PromptKeys {
    keys: Mutex<Keys>,
    /// Where they are kept: claude's config dir and the session's cwd and id (none without a
    /// config dir: then only while the session is open).
    store: Option<(PathBuf, PathBuf, String)>,
    /// One write at a time, each of the newest keys.
    writing: Mutex<()>,
}

/// What a prompt under a key does.
enum Claim {
    /// A retry of a prompt taken in as this message.
    Known(String),
    /// A retry of a prompt still waiting: answered with it.
    Join(watch::Receiver<Option<Settled>>),
    /// The first prompt under the key: it runs, and tells its retries.
    First(watch::Sender<Option<Settled>>),
}

impl PromptKeys {
    /// The keys of a session opened here, with those kept for it before (blocking file I/O when
    /// `stored` and there is a store: call it off the session's loop).
    pub(super) fn load(store: Option<(PathBuf, PathBuf, String)>, stored: bool) -> Self {
        let inserted = match (&store, stored) {
            (Some((dir, _, id)), true) => history::load_prompt_keys(dir, id),
            _ => Vec::new(),
        };
        let skip = inserted.len().saturating_sub(MAX_KEYS);
        Self {
            keys: Mutex::new(Keys {
                inserted: inserted.into_iter().skip(skip).collect(),
                waiting: HashMap::new(),
            }),
            store,
            writing: Mutex::new(()),
        }
    }

    fn claim(&self, key: &str) -> Claim {
        let mut keys = self.keys.lock().expect("prompt keys lock");
        if let Some(known) = keys.inserted.iter().find(|k| k.key == key) {
            return Claim::Known(known.message_id.clone());
        }
        if let Some(waiting) = keys.waiting.get(key) {
            return Claim::Join(waiting.clone());
        }
        let (tx, rx) = watch::channel(None);
        keys.waiting.insert(key.to_owned(), rx);
        Claim::First(tx)
    }

    /// The prompt under `key` is in the conversation as `message_id`: kept, and written down.
    fn taken_in(self: &Arc<Self>, key: &str, message_id: &str) {
        {
            let mut keys = self.keys.lock().expect("prompt keys lock");
            keys.waiting.remove(key);
            keys.inserted.push_back(PromptKey {
                key: key.to_owned(),
                message_id: message_id.to_owned(),
            });
            while keys.inserted.len() > MAX_KEYS {
                keys.inserted.pop_front();
            }
        }
        if self.store.is_none() {
            return;
        }
        let keys = self.clone();
        tokio::task::spawn_blocking(move || keys.write());
    }

    /// Writes the newest keys down (blocking).
    fn write(&self) {
        let Some((dir, cwd, id)) = &self.store else {
            return;
        };
        let _one_at_a_time = self.writing.lock().expect("prompt keys writing lock");
        let newest: Vec<PromptKey> = {
            let keys = self.keys.lock().expect("prompt keys lock");
            keys.inserted.iter().cloned().collect()
        };
        let written = history::prompt_keys_path(dir, cwd, id)
            .and_then(|path| history::save_prompt_keys(&path, newest));
        if let Err(e) = written {
            tracing::warn!(session = %id, "the prompt keys were not kept: {e}");
        }
    }

    /// The prompt under `key` ended before it was taken in: the key is free again.
    fn forget_waiting(&self, key: &str) {
        let mut keys = self.keys.lock().expect("prompt keys lock");
        keys.waiting.remove(key);
    }

    /// Runs a prompt sent under `key` (`run`, told where to send its message id), unless it
    /// is a retry: `inserted` is told the message id of the prompt the key names, and the
    /// outcome is the first prompt's when it ended before it was taken in. A retry's outcome
    /// once its id is told is no turn of its own: nobody reads it.
    pub(super) async fn prompt<F, Fut>(
        self: &Arc<Self>,
        key: String,
        inserted: Inserted,
        run: F,
    ) -> Result<TurnOutcome, AgentError>
    where
        F: FnOnce(Inserted) -> Fut,
        Fut: Future<Output = Result<TurnOutcome, AgentError>>,
    {
        let retried = || Ok(TurnOutcome::from(StopReason::EndTurn));
        match self.claim(&key) {
            Claim::Known(message_id) => {
                let _ = inserted.send(message_id);
                retried()
            }
            Claim::Join(mut first) => {
                let settled = first.wait_for(Option::is_some).await.map(|s| s.clone());
                match settled {
                    Ok(Some(Settled::Inserted(message_id))) => {
                        let _ = inserted.send(message_id);
                        retried()
                    }
                    Ok(Some(Settled::Ended(outcome))) => outcome,
                    _ => Err(AgentError::Internal(
                        "the prompt first sent with this idempotencyKey was lost".into(),
                    )),
                }
            }
            Claim::First(retries) => {
                let (mine, taken_in) = oneshot::channel::<String>();
                let noted = async {
                    let Ok(message_id) = taken_in.await else {
                        return false;
                    };
                    self.taken_in(&key, &message_id);
                    retries.send_replace(Some(Settled::Inserted(message_id.clone())));
                    let _ = inserted.send(message_id);
                    true
                };
                let (outcome, was_taken_in) = tokio::join!(run(mine), noted);
                if !was_taken_in {
                    self.forget_waiting(&key);
                    retries.send_replace(Some(Settled::Ended(outcome.clone())));
                }
                outcome
            }
        }
    }
}

#[cfg(test)]
mod tests;
