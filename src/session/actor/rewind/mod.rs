//! `/undo` and `/rewind` typed in the prompt box: the files the dropped turns changed go back to how
//! they were before them (claude's file checkpoints, `rewind_files`; for edits made through the
//! editor, claude-acp's own record, [`editor`]), and the conversation forgets them (the
//! next claude resumes with `--resume-session-at` the entry before the dropped prompt).
//!
//! `/undo` drops the last prompt's turn; `/rewind` asks which of the latest prompts to go back to
//! before. Either asks the user to confirm first, showing claude's dry run (files, lines in and
//! out); nothing changes without a clear yes. The run is a turn of its own, in a task: the session
//! loop never waits on the editor or claude. The point the thread was taken back to is recorded
//! beside claude's transcript ([`crate::history::record_rewind`]), so a restarted claude (idle stop,
//! crash) or claude-acp (`session/load`) resumes and replays the rewound thread, not the abandoned
//! one, until the next prompt writes a new branch.

use std::path::PathBuf;
use std::sync::Arc;

use self::asks::{choose, confirm, summary};
use self::editor::EditorPlan;
use super::ctx::CONTROL_TIMEOUT;
use crate::claude::ClaudeHandle;
use crate::claude::wire::{OutboundControl, RewindFilesRequest, RewindFilesResult};
use crate::domain::{
    AgentError, EditorClient, PromptBlock, SessionUpdate, SlashCommand, ToolCall, ToolCallUpdate,
    ToolContent, ToolKind, ToolStatus,
};
use crate::editor_tools::fs::EditLog;
use crate::history::{self, HistoryError, RewindPoint, StoredPrompt};

mod asks;
mod editor;

/// The two commands, as typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RewindCommand {
    Undo,
    Rewind,
}

impl RewindCommand {
    /// What a prompt is, when it is exactly `/undo` or `/rewind`.
    pub(super) fn of(blocks: &[PromptBlock]) -> Option<Self> {
        let [PromptBlock::Text(text)] = blocks else {
            return None;
        };
        match text.trim() {
            "/undo" => Some(RewindCommand::Undo),
            "/rewind" => Some(RewindCommand::Rewind),
            _ => None,
        }
    }
}

/// The commands as the prompt box offers them.
pub(super) fn commands() -> Vec<SlashCommand> {
    let command = |name: &str, description: &str| SlashCommand {
        name: name.to_owned(),
        description: description.to_owned(),
        input_hint: None,
        skill: false,
    };
    vec![
        command(
            "undo",
            "Undo the last turn: its file edits and the conversation go back to before it (asks first)",
        ),
        command(
            "rewind",
            "Go back to before an earlier prompt: pick it, see what changes, confirm",
        ),
    ]
}

/// How a `/undo` or `/rewind` ended.
pub(super) enum RewindDone {
    /// The files were restored (where claude had them) and the thread now ends at `point`.
    Rewound { point: RewindPoint, message: String },
    /// Nothing changed, and why.
    Unchanged(String),
}

/// One run of the command, away from the session loop.
pub(super) struct Job {
    pub(super) editor: Arc<dyn EditorClient>,
    pub(super) session_id: String,
    pub(super) cwd: PathBuf,
    pub(super) config_dir: PathBuf,
    pub(super) claude: ClaudeHandle,
    /// The files written through the editor, which claude's checkpoints never saw.
    pub(super) edit_log: EditLog,
    pub(super) command: RewindCommand,
    pub(super) tool_call_id: String,
}

impl Job {
    pub(super) async fn run(self) -> Result<RewindDone, AgentError> {
        let prompts = match self.blocking(history::prompts).await {
            Ok(prompts) => prompts,
            Err(HistoryError::NotFound(_)) => Vec::new(),
            Err(e) => return Err(AgentError::Internal(e.to_string())),
        };
        let Some(last) = prompts.last().cloned() else {
            return Ok(RewindDone::Unchanged(
                "Nothing to undo: no prompt of this session is stored yet.".into(),
            ));
        };
        let title = match self.command {
            RewindCommand::Undo => format!("Undo “{}”", asks::short(&last.text)),
            RewindCommand::Rewind => "Rewind to an earlier prompt".to_owned(),
        };
        self.show(SessionUpdate::ToolCall(ToolCall {
            id: self.tool_call_id.clone(),
            title,
            kind: ToolKind::Edit,
            status: ToolStatus::Pending,
            locations: vec![],
            content: vec![],
            raw_input: None,
            parent_tool_call: None,
        }));
        let target = match self.command {
            RewindCommand::Undo => last,
            RewindCommand::Rewind => {
                match choose(
                    &*self.editor,
                    &self.session_id,
                    &self.tool_call_id,
                    &prompts,
                )
                .await
                {
                    Ok(Some(prompt)) => prompt,
                    Ok(None) => return Ok(self.unchanged("no prompt was picked")),
                    Err(e) => return Ok(self.unchanged(&e.to_string())),
                }
            }
        };
        let dry = self.rewind_files(&target, true).await;
        let editor_plan =
            editor::plan(&self.edit_log, &*self.editor, &self.session_id, &target).await;
        let mut files = dry
            .as_ref()
            .map(|d| d.files_changed.clone())
            .unwrap_or_default();
        for path in editor_plan.paths() {
            if !files.contains(&path) {
                files.push(path);
            }
        }
        let files_text = editor::files_text(&self.cwd, &dry, &editor_plan);
        let text = summary(&target, &files_text);
        match confirm(
            &*self.editor,
            &self.session_id,
            &self.tool_call_id,
            text.clone(),
            &files,
        )
        .await
        {
            Ok(true) => {}
            Ok(false) => return Ok(self.unchanged("the user kept everything")),
            Err(e) => return Ok(self.unchanged(&e.to_string())),
        }
        if matches!(&dry, Ok(d) if d.can_rewind && !d.files_changed.is_empty()) {
            let refused = match self.rewind_files(&target, false).await {
                Ok(done) if done.can_rewind => None,
                Ok(done) => Some(done.error.unwrap_or_else(|| "claude refused".into())),
                Err(e) => Some(e),
            };
            if let Some(e) = refused {
                self.finish(
                    ToolStatus::Failed,
                    format!("claude could not restore the files: {e}"),
                );
                return Err(AgentError::Internal(format!(
                    "claude could not restore the files ({e}); the conversation was not changed"
                )));
            }
        }
        self.restore_through_editor(&target, &dry, &editor_plan)
            .await?;
        let point = RewindPoint {
            dropped_prompt: target.uuid.clone(),
            resume_at: target.parent.clone(),
        };
        let recorded = point.clone();
        self.blocking(move |dir, id| history::record_rewind(dir, id, &recorded))
            .await
            .map_err(|e| AgentError::Internal(format!("the rewind was not recorded: {e}")))?;
        self.finish(ToolStatus::Completed, text.clone());
        Ok(RewindDone::Rewound {
            point,
            message: format!(
                "Rewound to before “{}”. {files_text}",
                asks::short(&target.text),
            ),
        })
    }

    /// Puts back the files written through the editor, after claude put back its own; a refused
    /// write fails the command, saying what was put back already.
    async fn restore_through_editor(
        &self,
        target: &StoredPrompt,
        dry: &Result<RewindFilesResult, String>,
        plan: &EditorPlan,
    ) -> Result<(), AgentError> {
        if let Err(failed) = plan
            .restore(&*self.editor, &self.session_id, &self.cwd)
            .await
        {
            let claude_did = match dry {
                Ok(d) if d.can_rewind && !d.files_changed.is_empty() => {
                    let shown: Vec<String> = d
                        .files_changed
                        .iter()
                        .map(|f| asks::shown(&self.cwd, f))
                        .collect();
                    format!(" claude's checkpoints put back {}.", shown.join(", "))
                }
                _ => String::new(),
            };
            let text = format!(
                "Not all files went back: {}{claude_did} The conversation was not changed.",
                failed.message
            );
            self.finish(ToolStatus::Failed, text.clone());
            return Err(AgentError::Internal(text));
        }
        if let Some(from) = target.timestamp.clone() {
            self.edit_log.forget_since(from).await;
        }
        Ok(())
    }

    async fn rewind_files(
        &self,
        prompt: &StoredPrompt,
        dry_run: bool,
    ) -> Result<RewindFilesResult, String> {
        let request = OutboundControl::RewindFiles(RewindFilesRequest {
            user_message_id: prompt.uuid.clone(),
            dry_run,
        });
        let reply = self
            .claude
            .request(request, CONTROL_TIMEOUT)
            .await
            .map_err(|e| format!("claude did not answer rewind_files: {e}"))?;
        RewindFilesResult::from_reply(reply)
    }

    async fn blocking<T: Send + 'static>(
        &self,
        read: impl FnOnce(&std::path::Path, &str) -> Result<T, HistoryError> + Send + 'static,
    ) -> Result<T, HistoryError> {
        let (dir, id) = (self.config_dir.clone(), self.session_id.clone());
        tokio::task::spawn_blocking(move || read(&dir, &id))
            .await
            .unwrap_or_else(|e| {
                Err(HistoryError::Io {
                    path: self.config_dir.clone(),
                    source: std::io::Error::other(e.to_string()),
                })
            })
    }

    fn show(&self, update: SessionUpdate) {
        self.editor.session_update(&self.session_id, update);
    }

    fn finish(&self, status: ToolStatus, text: String) {
        self.show(SessionUpdate::ToolCallUpdate(ToolCallUpdate {
            id: self.tool_call_id.clone(),
            status: Some(status),
            content: Some(vec![ToolContent::Text { text }]),
            ..ToolCallUpdate::default()
        }));
    }

    fn unchanged(&self, why: &str) -> RewindDone {
        let text = format!("Nothing was changed: {why}.");
        self.finish(ToolStatus::Failed, text.clone());
        RewindDone::Unchanged(text)
    }
}
