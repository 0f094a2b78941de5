//! Logging out: the session's claude holds the login it started with, so it ends now and the next
//! prompt starts one (resuming the conversation) that finds no login and says so.

use std::time::Duration;

use super::SessionActor;
use crate::domain::AgentError;

impl SessionActor {
    pub(super) async fn end_claude_for_logout(&mut self) {
        self.asks.withdraw_all();
        if let Some(mut process) = self.claude.ended() {
            process.shutdown(Duration::from_millis(500)).await;
        }
        self.end_turns(
            Err(AgentError::AuthRequired(
                "you logged out of claude during this turn: log in again (`claude-acp login`) to go on"
                    .into(),
            )),
            true,
        );
    }
}
