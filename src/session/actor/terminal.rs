//! Keeping the editor's terminal in a tool call once claude reports the command's result, and a
//! background command's card running until the command ends.

use super::SessionActor;
use crate::domain::{SessionUpdate, ToolStatus};
use crate::editor_tools::terminal::CardStatus;

impl SessionActor {
    /// A tool call that shows an editor terminal keeps showing it: claude's result (the same
    /// output, as text) and its "running for" heartbeats change only the call's status.
    /// A background command's card stays `in_progress` past claude's result (the command's
    /// start) until the command ends.
    pub(super) fn keep_terminal_shown(&self, mut update: SessionUpdate) -> SessionUpdate {
        if let (SessionUpdate::ToolCallUpdate(call), Some(terminal)) =
            (&mut update, &self.tools.served.terminal)
            && terminal.embeds(&call.id)
        {
            call.remove_content();
            let is_result = matches!(
                call.status,
                Some(ToolStatus::Completed | ToolStatus::Failed)
            );
            match terminal.background_card(&call.id, is_result) {
                Some(CardStatus::Running { shell_id }) => {
                    call.status = Some(ToolStatus::InProgress);
                    call.async_task_id = Some(shell_id);
                }
                Some(CardStatus::Ended { shell_id, failed }) if is_result => {
                    call.status = Some(if failed {
                        ToolStatus::Failed
                    } else {
                        ToolStatus::Completed
                    });
                    call.async_task_id = Some(shell_id);
                }
                _ => {}
            }
        }
        update
    }
}
