//! The session's running claude, in one place: its process, its events, the `--mcp-config` file it
//! was started with, and its handle, which asks that outlive a restart read through a shared slot.
//! Started and ended only here, so the slot and the process never disagree.

use std::sync::{Arc, Mutex};

use crate::claude::launch::{Launched, StartedClaude};
use crate::claude::wire::McpConfigFile;
use crate::claude::{ClaudeEvent, ClaudeHandle, EventReceiver};
use crate::domain::EditorClient;

/// The handle of the claude running now, or none; shared with the permission asker.
pub(crate) type SharedHandle = Arc<Mutex<Option<ClaudeHandle>>>;

struct Live {
    claude: StartedClaude,
    events: EventReceiver,
    /// Its `--mcp-config` and `_meta` option files, which may hold secrets: removed when this
    /// claude ends.
    _files: Vec<McpConfigFile>,
}

#[derive(Default)]
pub(super) struct RunningClaude {
    live: Option<Live>,
    handle: SharedHandle,
    /// How many claudes this session has started: names the one running.
    generation: u64,
}

impl RunningClaude {
    pub(super) fn shared_handle(&self) -> SharedHandle {
        self.handle.clone()
    }

    pub(super) fn is_running(&self) -> bool {
        self.live.is_some()
    }

    /// Which of the session's claudes runs (or ran last): a prompt written to an earlier one
    /// never reached this one.
    pub(super) fn generation(&self) -> u64 {
        self.generation
    }

    pub(super) fn started(&mut self, launched: Launched, files: Vec<McpConfigFile>) {
        let Launched {
            claude,
            handle,
            events,
        } = launched;
        self.generation += 1;
        self.live = Some(Live {
            claude,
            events,
            _files: files,
        });
        *self.handle.lock().expect("claude handle lock") = Some(handle);
    }

    /// The running claude's handle, if one runs.
    pub(super) fn handle(&self) -> Option<ClaudeHandle> {
        self.live.as_ref()?;
        self.handle.lock().expect("claude handle lock").clone()
    }

    /// Forgets the running claude and returns it (to kill or shut down; dropping it kills).
    pub(super) fn ended(&mut self) -> Option<StartedClaude> {
        *self.handle.lock().expect("claude handle lock") = None;
        self.live.take().map(|live| live.claude)
    }

    /// claude's next event, taken only when the editor has room for what it becomes; never
    /// resolves while none runs.
    pub(super) async fn next_event(&mut self, editor: &dyn EditorClient) -> Option<ClaudeEvent> {
        match &mut self.live {
            Some(live) => {
                editor.room_for_updates().await;
                live.events.recv().await
            }
            None => std::future::pending().await,
        }
    }
}
