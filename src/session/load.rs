//! `session/load`'s replay: the stored thread handed to the editor as it is read.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{Sessions, history_error};
use crate::domain::AgentError;
use crate::history;

impl Sessions {
    /// Sends the thread stored in `file` to the editor, in order.
    pub(super) async fn replay_to_editor(
        &self,
        session_id: &str,
        file: PathBuf,
        cwd: PathBuf,
    ) -> Result<(), AgentError> {
        // One blocking thread reads, translates and queues each update for the editor as it is
        // made, with no hand-over per update (a long thread has tens of thousands), and waits
        // while the editor has more than a little left to read: the replay holds a few lines at
        // most, however long the transcript and however slow the editor.
        let editor = self.editor.clone();
        let (id, runtime) = (session_id.to_owned(), tokio::runtime::Handle::current());
        let gone = StopOnDrop(Arc::new(AtomicBool::new(false)));
        let stop = gone.0.clone();
        let replay = tokio::task::spawn_blocking(move || {
            history::stream_replay(&file, &cwd, &mut |update| {
                runtime.block_on(editor.room_for_replay());
                // Nobody waits for the answer any more (the request was dropped): stop reading.
                if stop.load(Ordering::Relaxed) {
                    return ControlFlow::Break(());
                }
                editor.session_update(&id, update);
                ControlFlow::Continue(())
            })
        });
        let replayed = replay
            .await
            .map_err(|e| AgentError::Internal(e.to_string()))?;
        // What the replay freed goes back to the system, not kept for the session's life.
        crate::platform::memory::give_back_free();
        replayed.map_err(history_error)?;
        drop(gone);
        Ok(())
    }
}

/// Tells the replay's thread to stop when the load is dropped before its end.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}
