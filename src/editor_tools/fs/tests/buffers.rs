//! An editor holding buffers in memory, for the unit tests of what reads and writes through the
//! editor (the file tools here, `/undo`'s restore in `session/actor/rewind_editor`):
//! `fs/write_text_file` changes the buffer only.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use async_trait::async_trait;

use crate::domain::{EditorClient, EditorError, PermissionAsk, PermissionOutcome, SessionUpdate};

#[derive(Default)]
pub(crate) struct Buffers {
    pub(crate) files: Mutex<HashMap<PathBuf, String>>,
    pub(crate) writes: Mutex<Vec<(PathBuf, String)>>,
    pub(crate) updates: Mutex<Vec<SessionUpdate>>,
    /// When set, every read fails with this message.
    pub(crate) refuse: Mutex<Option<String>>,
    /// A path whose buffer is read-only: writes to it fail.
    pub(crate) read_only: Option<PathBuf>,
    /// How long the editor takes to answer a write (its user deciding whether to allow it).
    pub(crate) write_answer_after: Option<std::time::Duration>,
}

#[async_trait]
impl EditorClient for Buffers {
    fn session_update(&self, _session_id: &str, update: SessionUpdate) {
        self.updates.lock().unwrap().push(update);
    }
    async fn request_permission(&self, _: PermissionAsk) -> Result<PermissionOutcome, EditorError> {
        Err(EditorError::Closed)
    }
    fn supports_text_files(&self) -> bool {
        true
    }
    async fn read_text_file(&self, _: &str, path: &Path) -> Result<String, EditorError> {
        if let Some(message) = self.refuse.lock().unwrap().clone() {
            return Err(EditorError::Rejected(message));
        }
        let files = self.files.lock().unwrap();
        files
            .get(path)
            .cloned()
            .ok_or_else(|| EditorError::Rejected("not open".into()))
    }
    async fn write_text_file(
        &self,
        _: &str,
        path: &Path,
        content: String,
    ) -> Result<(), EditorError> {
        if let Some(after) = self.write_answer_after {
            tokio::time::sleep(after).await;
        }
        if self.read_only.as_deref() == Some(path) {
            return Err(EditorError::Rejected("read-only buffer".into()));
        }
        self.writes
            .lock()
            .unwrap()
            .push((path.to_path_buf(), content.clone()));
        self.files
            .lock()
            .unwrap()
            .insert(path.to_path_buf(), content);
        Ok(())
    }
}
