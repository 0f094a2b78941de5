//! A subagent as ACP's (unstable) `subagent_update`: the child session's id, its title and
//! description, leave to cancel it (`session/cancel` on the child stops that subagent only), and
//! its work state (running, or idle with how it ended); the instructions its parent gave it as
//! the child's `session_message`.

use agent_client_protocol::v1::schema as acp;

use crate::domain::{SubagentState, SubagentUpdate};

pub fn subagent_update(subagent: SubagentUpdate) -> acp::SessionUpdate {
    let SubagentUpdate {
        session_id,
        title,
        description,
        state,
    } = subagent;
    let running = state == SubagentState::Running;
    let idle = |stop: Option<acp::IdleStopReason>| {
        acp::StateUpdate::Idle(acp::IdleStateUpdate::new().stop_reason(stop))
    };
    let state = match state {
        SubagentState::Running => acp::StateUpdate::Running(acp::RunningStateUpdate::new()),
        SubagentState::Completed => idle(Some(acp::IdleStopReason::EndTurn)),
        SubagentState::Cancelled => idle(Some(acp::IdleStopReason::Cancelled)),
        SubagentState::Failed => idle(Some(
            acp::IdleStopReason::Error(acp::ErrorStopReason::new()),
        )),
        // Ended, but nobody said how: no stop reason is claimed.
        SubagentState::Gone => idle(None),
    };
    let mut update = acp::SubagentUpdate::new(session_id).state(state);
    if let Some(title) = title {
        update = update.title(title);
    }
    if let Some(description) = description {
        update = update.description(description);
    }
    // Cancel is offered while it runs (an ended one has nothing to cancel; omitted keeps it).
    if running {
        update = update.capabilities(
            acp::SubagentSessionCapabilities::new().cancel(acp::SessionCancelCapabilities::new()),
        );
    }
    acp::SessionUpdate::SubagentUpdate(update)
}

/// A message `sender` sent to session `recipient`, as the recipient's transcript shows it
/// (ACP's `session_message`, the whole message in one upsert).
pub fn session_message(
    message_id: String,
    sender: String,
    recipient: String,
    text: String,
) -> acp::SessionUpdate {
    let content = acp::ContentBlock::Text(acp::TextContent::new(text));
    acp::SessionUpdate::SessionMessage(
        acp::SessionMessage::new(message_id)
            .sender_session_id(acp::SessionId::new(sender))
            .recipient_session_id(acp::SessionId::new(recipient))
            .content(vec![content]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn wire(state: SubagentState, title: Option<&str>) -> serde_json::Value {
        let update = subagent_update(SubagentUpdate {
            session_id: "s/subagent/a1".into(),
            title: title.map(str::to_owned),
            description: title.map(|_| "general-purpose".to_owned()),
            state,
        });
        serde_json::to_value(update).unwrap()
    }

    #[test]
    fn a_subagent_is_announced_cancellable_and_ends_idle_with_its_reason() {
        assert_eq!(
            wire(SubagentState::Running, Some("Look around")),
            json!({"sessionUpdate": "subagent_update", "sessionId": "s/subagent/a1",
                "title": "Look around", "description": "general-purpose",
                "capabilities": {"cancel": {}}, "state": {"state": "running"}})
        );
        assert_eq!(
            wire(SubagentState::Completed, None),
            json!({"sessionUpdate": "subagent_update", "sessionId": "s/subagent/a1",
                "state": {"state": "idle", "stopReason": "end_turn"}})
        );
        assert_eq!(
            wire(SubagentState::Cancelled, None)["state"],
            json!({"state": "idle", "stopReason": "cancelled"})
        );
        assert_eq!(
            wire(SubagentState::Failed, None)["state"],
            json!({"state": "idle", "stopReason": "error"})
        );
        assert_eq!(
            wire(SubagentState::Gone, None)["state"],
            json!({"state": "idle"})
        );
    }
}
