//! A prompt handed to its session: checked, noted for the listing (its first line may be the
//! session's title), and sent to the session's actor, for either way the editor is answered.

use super::Sessions;
use super::actor::Command;
use crate::domain::{AgentError, AnswerWritten, Inserted, PromptBlock, TurnOutcome};

impl Sessions {
    /// Runs `blocks` as a prompt of `session_id`; `written` and `inserted` as the actor's
    /// [`Command::Prompt`] takes them.
    pub(super) async fn run_prompt(
        &self,
        session_id: &str,
        blocks: Vec<PromptBlock>,
        written: Option<AnswerWritten>,
        inserted: Option<Inserted>,
    ) -> Result<TurnOutcome, AgentError> {
        crate::translate::check_prompt(&blocks).map_err(AgentError::InvalidParams)?;
        if let Ok(handle) = self.handle(session_id) {
            handle
                .listed
                .lock()
                .expect("listing lock")
                .prompted(&blocks);
        }
        self.ask(session_id, |reply| Command::Prompt {
            blocks,
            reply,
            written,
            inserted,
        })
        .await
    }
}
