//! The session's record of the files its editor-served Write and Edit changed through the editor
//! ([`crate::history::EditorEdits`]), shared by those tools (which note each file before its first
//! write of a turn) and `/undo` and `/rewind` (which put the files back).
//!
//! The record is read from beside claude's transcript on first use and written back after every
//! change, so it outlives claude and claude-acp; all file work runs on the blocking pool. Without a
//! stored transcript to sit beside (claude's config dir unknown, or nothing stored yet) it is kept
//! in memory until there is one.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::history::{self, EditorEdit, EditorEdits};

/// One session's record; cheap to clone.
#[derive(Clone)]
pub(crate) struct EditLog {
    state: Arc<Mutex<State>>,
}

struct State {
    config_dir: Option<PathBuf>,
    session_id: String,
    /// The record's file, once claude's transcript was found.
    file: Option<PathBuf>,
    /// The record, once read from its file (or started empty).
    edits: Option<EditorEdits>,
    /// When the running turn's prompt was sent.
    turn: Option<String>,
}

/// What going back to before a prompt puts back through the editor.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct EditorRestore {
    pub(crate) files: Vec<EditorEdit>,
    /// Some writes after the prompt were forgotten to keep the record small.
    pub(crate) forgotten: bool,
}

impl State {
    /// The record, read from its file if that is now known.
    fn edits(&mut self) -> &mut EditorEdits {
        if self.file.is_none()
            && let Some(dir) = &self.config_dir
        {
            self.file = history::editor_edits_path(dir, &self.session_id).ok();
        }
        if self.edits.is_none() {
            let stored = self.file.as_deref().map(history::load_editor_edits);
            self.edits = Some(stored.unwrap_or_default());
        }
        self.edits.as_mut().expect("just set")
    }

    fn save(&mut self) {
        self.edits();
        let (Some(file), Some(edits)) = (&self.file, &self.edits) else {
            return;
        };
        if let Err(e) = history::save_editor_edits(file, edits) {
            tracing::info!(session = %self.session_id, "the editor edits record was not saved: {e}");
        }
    }
}

impl EditLog {
    /// The record of `session_id`, kept beside its transcript under `config_dir` (in memory only
    /// without one).
    pub(crate) fn new(config_dir: Option<PathBuf>, session_id: String) -> Self {
        let state = State {
            config_dir,
            session_id,
            file: None,
            edits: None,
            turn: None,
        };
        Self {
            state: Arc::new(Mutex::new(state)),
        }
    }

    /// A prompt was sent: writes from now on belong to its turn.
    pub(crate) fn start_turn(&self) {
        self.lock().turn = Some(crate::time::now_rfc3339());
    }

    /// Notes that `path`, holding `before` (`None`: it does not exist), is about to be written.
    pub(crate) async fn note_write(&self, path: &Path, before: Option<&str>) {
        let (path, before) = (path.to_path_buf(), before.map(str::to_owned));
        self.blocking(move |state| {
            let at = crate::time::now_rfc3339();
            let turn = state.turn.clone().unwrap_or_else(|| at.clone());
            if state.edits().note(&turn, &at, &path, before.as_deref()) {
                state.save();
            }
        })
        .await;
    }

    /// What going back to before a prompt stored at `from` puts back through the editor.
    pub(crate) async fn since(&self, from: String) -> EditorRestore {
        self.blocking(move |state| {
            let edits = state.edits();
            EditorRestore {
                files: edits.since(&from),
                forgotten: edits.forgot_since(&from),
            }
        })
        .await
    }

    /// The files of the writes at or after `from` were put back: they leave the record.
    pub(crate) async fn forget_since(&self, from: String) {
        self.blocking(move |state| {
            state.edits().forget_since(&from);
            state.save();
        })
        .await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    async fn blocking<T: Default + Send + 'static>(
        &self,
        work: impl FnOnce(&mut State) -> T + Send + 'static,
    ) -> T {
        let log = self.clone();
        tokio::task::spawn_blocking(move || work(&mut log.lock()))
            .await
            .unwrap_or_else(|e| {
                tracing::info!("the editor edits record could not be used: {e}");
                T::default()
            })
    }
}
