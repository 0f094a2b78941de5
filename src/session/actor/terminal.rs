//! The session's "Terminal" setting: whether claude's Bash runs in the editor's terminal, and
//! keeping that terminal in the tool call once claude reports the command's result.

use super::SessionActor;
use crate::domain::{AgentError, SessionUpdate};
use crate::editor_tools::terminal::TerminalSetting;

impl SessionActor {
    /// Switches the setting. As for "File edits", claude takes other tools only at a start: a
    /// running claude is stopped now if idle, else after the turn, and the next prompt resumes it.
    pub(super) fn set_terminal(&mut self, value: &str) -> Result<(), AgentError> {
        if self.tools.terminal.is_none() {
            return Err(AgentError::InvalidParams(
                "the editor did not declare terminal, so commands always run in claude".into(),
            ));
        }
        let Some(setting) = TerminalSetting::parse(value) else {
            return Err(AgentError::InvalidParams(format!(
                "unknown value `{value}` for terminal (expected editor or claude)"
            )));
        };
        if self.tools.terminal == Some(setting) {
            return Ok(());
        }
        self.tools.terminal = Some(setting);
        self.tool_setting_changed();
        Ok(())
    }

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
