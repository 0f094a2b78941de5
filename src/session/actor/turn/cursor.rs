//! The session cursor a turn of claude's ends with (ACP 1.20, to editors that take cursors): after
//! its last agent message, at the transcript entry that holds that message's text, so a fork there
//! keeps the turn's answer and nothing after it.

use crate::claude::wire::{ClaudeMessage, ContentBlock};
use crate::domain::{Cursor, SessionUpdate};

/// What the running turn has shown of its agent messages so far.
#[derive(Default)]
pub(super) struct TurnCursor {
    /// The last main-thread assistant line with text: its transcript uuid.
    text_entry: Option<String>,
    /// The id the editor was given for the last agent message.
    message_id: Option<String>,
}

impl TurnCursor {
    /// A turn starts: nothing of it shown yet.
    pub(super) fn starts(&mut self) {
        *self = Self::default();
    }

    /// One of claude's messages, before it is translated.
    pub(super) fn on_message(&mut self, message: &ClaudeMessage) {
        if let ClaudeMessage::Assistant(line) = message
            && line.parent_tool_use_id.is_none()
            && let Some(uuid) = &line.uuid
            && line
                .message
                .content
                .iter()
                .any(|block| matches!(block, ContentBlock::Text { .. }))
        {
            self.text_entry = Some(uuid.clone());
        }
    }

    /// One update told to the editor.
    pub(super) fn on_update(&mut self, update: &SessionUpdate) {
        if let SessionUpdate::AgentMessageChunk {
            message_id: Some(id),
            ..
        } = update
        {
            self.message_id = Some(id.clone());
        }
    }

    /// The turn ended: the cursor after its last agent message, once, if it had one.
    pub(super) fn ended(&mut self) -> Option<Cursor> {
        let (message_id, entry) = (self.message_id.take()?, self.text_entry.take()?);
        Some(Cursor::after_agent_message(&message_id, &entry))
    }
}
