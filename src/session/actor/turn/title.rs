//! The session's title for the editor: told once after the first turn here (what claude stored,
//! else the first prompt's first line), unless the user named the session (`session/set_title`),
//! whose name wins from then on. A running claude is told the name (its `rename_session`), so
//! its own state holds it and it writes the `custom-title` record itself; when no claude runs, or
//! it refuses, claude-acp writes that record as claude's `/rename` does. Either way the record
//! goes in once, as soon as the transcript holds the conversation (never into one of its own).

use std::sync::{Arc, Mutex};

use super::super::ctx::{CONTROL_TIMEOUT, Reply, SessionContext};
use crate::claude::ClaudeHandle;
use crate::claude::wire::OutboundControl;
use crate::domain::{AgentError, SessionUpdate};
use crate::history;

#[derive(Default)]
pub(super) struct SessionTitle {
    /// Whether the editor has the title: announced, or named by the user.
    told: bool,
    /// The user's name, until claude's transcript has it.
    unwritten: Arc<Mutex<Option<String>>>,
}

impl SessionTitle {
    /// A turn ended and claude stored it: a name waiting for the transcript goes in; whether the
    /// title is still to be told (the first turn, when the user gave no name).
    pub(super) fn turn_stored(&mut self, ctx: &SessionContext) -> bool {
        if self.unwritten.lock().expect("title lock").is_some() {
            let write = self.write(ctx);
            tokio::spawn(async move {
                if let Err(e) = write.await {
                    tracing::warn!("the session's name was not written: {e}");
                }
            });
        }
        !std::mem::replace(&mut self.told, true)
    }

    /// The user names the session: the editor is told at once, the running claude (if one runs)
    /// is told, and `reply` once claude's transcript has the name (or, with no conversation
    /// stored yet, it is kept for later: by the claude told, and here, in case that claude ends
    /// before it stores the conversation).
    pub(super) fn name(
        &mut self,
        ctx: &SessionContext,
        claude: Option<ClaudeHandle>,
        title: String,
        reply: Reply<()>,
    ) {
        self.told = true;
        *self.unwritten.lock().expect("title lock") = Some(title.clone());
        let rename = OutboundControl::RenameSession {
            title: title.clone(),
            source: "host",
            session_id: ctx.id.clone(),
        };
        ctx.tell_editor(SessionUpdate::SessionInfo {
            title: Some(title),
            updated_at: Some(crate::time::now_rfc3339()),
        });
        // After claude's answer: what claude wrote is not written again.
        let write = self.write(ctx);
        let id = ctx.id.clone();
        tokio::spawn(async move {
            if let Some(claude) = claude
                && let Err(e) = claude.request(rename, CONTROL_TIMEOUT).await
            {
                tracing::info!(session = %id, "claude did not take the name ({e}): it is written here");
            }
            let _ = reply.send(write.await);
        });
    }

    /// Writes the unwritten name into the transcript, if claude stored one.
    fn write(&self, ctx: &SessionContext) -> impl Future<Output = Result<(), AgentError>> + use<> {
        let (unwritten, id) = (self.unwritten.clone(), ctx.id.clone());
        let dir = ctx.config.claude_config_dir.clone();
        async move {
            let Some(dir) = dir else { return Ok(()) };
            tokio::task::spawn_blocking(move || {
                let mut name = unwritten.lock().expect("title lock");
                let Some(title) = name.as_deref() else {
                    return Ok(());
                };
                if history::write_title(&dir, &id, title)? {
                    *name = None;
                }
                Ok(())
            })
            .await
            .map_err(|e| AgentError::Internal(e.to_string()))?
            .map_err(|e: history::HistoryError| AgentError::Internal(e.to_string()))
        }
    }
}
