//! The session's running claude, in one place: its process, its events, the `--mcp-config` file it
//! was started with, and its handle, which asks that outlive a restart read through a shared slot.
//! Started and ended only here, so the slot and the process never disagree.

use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use crate::claude::{ClaudeEvent, ClaudeHandle, ClaudeProcess};
use crate::mcp::McpConfigFile;

/// The handle of the claude running now, or none; shared with the permission asker.
pub(crate) type SharedHandle = Arc<Mutex<Option<ClaudeHandle>>>;

struct Live {
    process: ClaudeProcess,
    events: mpsc::UnboundedReceiver<ClaudeEvent>,
    /// May hold the editor's MCP secrets: removed when this claude ends.
    _mcp_file: Option<McpConfigFile>,
}

#[derive(Default)]
pub(super) struct RunningClaude {
    live: Option<Live>,
    handle: SharedHandle,
}

impl RunningClaude {
    pub(super) fn shared_handle(&self) -> SharedHandle {
        self.handle.clone()
    }

    pub(super) fn is_running(&self) -> bool {
        self.live.is_some()
    }

    pub(super) fn started(
        &mut self,
        process: ClaudeProcess,
        handle: ClaudeHandle,
        events: mpsc::UnboundedReceiver<ClaudeEvent>,
        mcp_file: Option<McpConfigFile>,
    ) {
        self.live = Some(Live {
            process,
            events,
            _mcp_file: mcp_file,
        });
        *self.handle.lock().expect("claude handle lock") = Some(handle);
    }

    /// The running claude's handle, if one runs.
    pub(super) fn handle(&self) -> Option<ClaudeHandle> {
        self.live.as_ref()?;
        self.handle.lock().expect("claude handle lock").clone()
    }

    /// Forgets the running claude and returns its process (to kill or shut down; dropping it kills).
    pub(super) fn ended(&mut self) -> Option<ClaudeProcess> {
        *self.handle.lock().expect("claude handle lock") = None;
        self.live.take().map(|live| live.process)
    }

    /// claude's next event; never resolves while none runs.
    pub(super) async fn next_event(&mut self) -> Option<ClaudeEvent> {
        match &mut self.live {
            Some(live) => live.events.recv().await,
            None => std::future::pending().await,
        }
    }
}
