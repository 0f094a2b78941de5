//! `session/load`'s replay: the stored thread handed to the editor as it is read.

use std::path::PathBuf;

use tokio::sync::mpsc;

use super::{Sessions, history_error};
use crate::domain::AgentError;
use crate::history;

/// Replayed updates made and not yet handed to the editor's queue, during a `session/load`.
const REPLAY_IN_FLIGHT: usize = 4;

impl Sessions {
    /// Sends the thread stored in `file` to the editor, in order.
    pub(super) async fn replay_to_editor(
        &self,
        session_id: &str,
        file: PathBuf,
        cwd: PathBuf,
    ) -> Result<(), AgentError> {
        // The transcript is read and translated while the editor takes the updates: a few at a
        // time in between, and none while the editor's queue is full.
        let (tx, mut rx) = mpsc::channel(REPLAY_IN_FLIGHT);
        let replay = tokio::task::spawn_blocking(move || {
            history::stream_replay(&file, &cwd, &mut |update| match tx.blocking_send(update) {
                Ok(()) => std::ops::ControlFlow::Continue(()),
                Err(_) => std::ops::ControlFlow::Break(()),
            })
        });
        while let Some(update) = rx.recv().await {
            self.editor.room_for_updates().await;
            self.editor.session_update(session_id, update);
        }
        replay
            .await
            .map_err(|e| AgentError::Internal(e.to_string()))?
            .map_err(history_error)?;
        Ok(())
    }
}
