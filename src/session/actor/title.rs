//! The session's title, told to the editor once after its first turn here: what claude stored for
//! the conversation (a name given to it, claude's own summary), else the first prompt's first line.
//! Never a model request of ours.

use super::{Reply, SessionActor};
use crate::domain::{AgentError, PromptBlock, SessionUpdate, TurnOutcome};
use crate::history;

impl SessionActor {
    /// Sends the title, then the first turn's answer: the editor has the title when the turn ends.
    pub(super) fn announce_title_then_reply(
        &mut self,
        blocks: &[PromptBlock],
        reply: Reply<TurnOutcome>,
        outcome: Result<TurnOutcome, AgentError>,
        before: Option<super::turn::AnswersWritten>,
    ) {
        let from_prompt = blocks.iter().find_map(|b| match b {
            PromptBlock::Text(text) => history::prompt_title(text),
            _ => None,
        });
        let (editor, id) = (self.ctx.editor.clone(), self.ctx.id.clone());
        let config_dir = self.ctx.config.claude_config_dir.clone();
        // Reading the transcript is file I/O: off the session's loop.
        tokio::spawn(async move {
            let stored = match config_dir {
                Some(dir) => {
                    let id = id.clone();
                    tokio::task::spawn_blocking(move || history::stored_title(&dir, &id))
                        .await
                        .ok()
                        .flatten()
                }
                None => None,
            };
            if let Some(title) = stored.or(from_prompt) {
                editor.session_update(
                    &id,
                    SessionUpdate::SessionInfo {
                        title: Some(title),
                        updated_at: Some(crate::time::now_rfc3339()),
                    },
                );
            }
            super::turn::send_after(before, reply, outcome);
        });
    }
}
