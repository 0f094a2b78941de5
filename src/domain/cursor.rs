//! Session cursors (ACP 1.20): points of the conversation a fork can start from, each next to a
//! message the editor holds. A cursor's id says the point itself, so any claude-acp process knows
//! every cursor of a stored session without keeping a table, and an id never names another point:
//! `before:<uuid>` is the thread up to a prompt (the prompt left out), `after:<uuid>` the thread
//! up to and including a transcript entry (claude's `--resume-session-at`).

/// Where in the conversation a cursor is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ForkPoint {
    /// Before the prompt stored under this uuid: the thread it follows, without it.
    BeforePrompt(String),
    /// After the transcript entry with this uuid: the thread up to it, it included.
    AfterEntry(String),
}

impl ForkPoint {
    const BEFORE: &'static str = "before:";
    const AFTER: &'static str = "after:";

    /// The cursor id of this point.
    pub fn cursor_id(&self) -> String {
        match self {
            ForkPoint::BeforePrompt(uuid) => format!("{}{uuid}", Self::BEFORE),
            ForkPoint::AfterEntry(uuid) => format!("{}{uuid}", Self::AFTER),
        }
    }

    /// The point a cursor id names, if it is one of ours.
    pub fn of_cursor(id: &str) -> Option<Self> {
        let point = if let Some(uuid) = id.strip_prefix(Self::BEFORE) {
            ForkPoint::BeforePrompt(uuid.to_owned())
        } else {
            ForkPoint::AfterEntry(id.strip_prefix(Self::AFTER)?.to_owned())
        };
        match &point {
            ForkPoint::BeforePrompt(uuid) | ForkPoint::AfterEntry(uuid) if uuid.is_empty() => None,
            _ => Some(point),
        }
    }
}

/// Which of the messages the editor holds a cursor is next to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum AnchorMessage {
    User,
    Agent,
}

/// A cursor announced to the editor: its point, and the message it is next to (before a user
/// message, after an agent message), by the `messageId` the editor was given.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Cursor {
    pub id: String,
    pub message: AnchorMessage,
    pub message_id: String,
    pub after: bool,
}

impl Cursor {
    /// The cursor before user message `message_id` (the prompt's uuid in the transcript).
    pub fn before_prompt(message_id: &str) -> Self {
        Cursor {
            id: ForkPoint::BeforePrompt(message_id.to_owned()).cursor_id(),
            message: AnchorMessage::User,
            message_id: message_id.to_owned(),
            after: false,
        }
    }

    /// The cursor after agent message `message_id`, which ends with transcript entry `entry`.
    pub fn after_agent_message(message_id: &str, entry: &str) -> Self {
        Cursor {
            id: ForkPoint::AfterEntry(entry.to_owned()).cursor_id(),
            message: AnchorMessage::Agent,
            message_id: message_id.to_owned(),
            after: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_id_names_its_point_and_nothing_else() {
        for point in [
            ForkPoint::BeforePrompt("p-1".into()),
            ForkPoint::AfterEntry("e-1".into()),
        ] {
            assert_eq!(ForkPoint::of_cursor(&point.cursor_id()), Some(point));
        }
        for unknown in ["", "before:", "after:", "p-1", "c1", "AFTER:e-1"] {
            assert_eq!(ForkPoint::of_cursor(unknown), None, "{unknown}");
        }
        let cursor = Cursor::after_agent_message("msg_1:0", "e-1");
        assert_eq!(
            ForkPoint::of_cursor(&cursor.id),
            Some(ForkPoint::AfterEntry("e-1".into()))
        );
    }
}
