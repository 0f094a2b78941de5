//! Keeping the editor's terminal in a tool call once claude reports the command's result.

use super::SessionActor;
use crate::domain::SessionUpdate;

impl SessionActor {
    /// A tool call that shows an editor terminal keeps showing it: claude's result (the same
    /// output, as text) and its "running for" heartbeats change only the call's status.
    pub(super) fn keep_terminal_shown(&self, mut update: SessionUpdate) -> SessionUpdate {
        if let (SessionUpdate::ToolCallUpdate(call), Some(terminal)) =
            (&mut update, &self.tools.served.terminal)
            && terminal.embeds(&call.id)
        {
            call.content = None;
        }
        update
    }
}
