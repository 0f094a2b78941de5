//! `/undo` and `/rewind` typed in the prompt box: the files the dropped turns changed go back to how
//! they were before them (claude's file checkpoints, `rewind_files`; for edits made through the
//! editor, claude-acp's own record, [`super::rewind_editor`]), and the conversation forgets them (the
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

use super::rewind_asks::{self, choose, confirm, summary};
use super::rewind_editor::{self, EditorPlan};
use super::turn::Turn;
use super::{CONTROL_TIMEOUT, Internal, Reply, SessionActor, idle::STOP_GRACE};
use crate::claude::ClaudeHandle;
use crate::claude::wire::{OutboundControl, RewindFilesRequest, RewindFilesResult};
use crate::domain::{
    AgentError, EditorClient, PromptBlock, SessionUpdate, SlashCommand, StopReason, ToolCall,
    ToolCallUpdate, ToolContent, ToolKind, ToolStatus, TurnOutcome,
};
use crate::editor_tools::fs::EditLog;
use crate::history::{self, HistoryError, RewindPoint, StoredPrompt};

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
struct Job {
    editor: Arc<dyn EditorClient>,
    session_id: String,
    cwd: PathBuf,
    config_dir: PathBuf,
    claude: ClaudeHandle,
    /// The files written through the editor, which claude's checkpoints never saw.
    edit_log: EditLog,
    command: RewindCommand,
    tool_call_id: String,
}

impl SessionActor {
    pub(super) fn start_rewind(
        &mut self,
        command: RewindCommand,
        blocks: Vec<PromptBlock>,
        reply: Reply<TurnOutcome>,
    ) {
        let Some(config_dir) = self.ctx.config.claude_config_dir.clone() else {
            let _ = reply.send(Err(AgentError::Internal(
                "cannot find claude's stored sessions: neither CLAUDE_CONFIG_DIR nor HOME is set"
                    .into(),
            )));
            return;
        };
        if let Err(e) = self.ensure_claude() {
            let _ = reply.send(Err(e));
            return;
        }
        let job = Job {
            editor: self.ctx.editor.clone(),
            session_id: self.ctx.id.clone(),
            cwd: self.ctx.cwd.clone(),
            config_dir,
            claude: self.claude.handle().expect("claude is running"),
            edit_log: self.tools.edit_log.clone(),
            command,
            tool_call_id: format!("rewind-{}", uuid::Uuid::new_v4()),
        };
        let internal = self.inbox.tx.clone();
        let task = tokio::spawn(async move {
            let done = job.run().await;
            let _ = internal.send(Internal::RewindDone(done));
        });
        self.turn = Some(Turn::new(reply, blocks, Some(task.abort_handle())));
    }

    pub(super) async fn on_rewind_done(&mut self, done: Result<RewindDone, AgentError>) {
        if self.turn.as_ref().is_none_or(|t| t.local.is_none()) {
            return; // cancelled meanwhile
        }
        let outcome = match done {
            Ok(RewindDone::Rewound { point, message }) => {
                // This claude holds the whole thread in memory: the next one resumes what is kept.
                if let Some(mut process) = self.claude.ended() {
                    process.shutdown(STOP_GRACE).await;
                }
                let warm = point.resume_at.is_some();
                self.next.rewind = Some(point);
                // Started now so the next prompt finds it warm; after dropping the first prompt
                // the next prompt starts afresh instead (see `ensure_claude`).
                if warm && let Err(e) = self.ensure_claude() {
                    tracing::warn!(session = %self.ctx.id, "claude did not start after a rewind: {e}");
                }
                self.say(message);
                Ok(StopReason::EndTurn)
            }
            Ok(RewindDone::Unchanged(message)) => {
                self.say(message);
                Ok(StopReason::EndTurn)
            }
            Err(e) => Err(e),
        };
        self.finish_turn(outcome);
    }

    fn say(&self, text: String) {
        self.ctx
            .editor
            .session_update(&self.ctx.id, SessionUpdate::agent_text(text));
    }

    /// claude's transcript of a session rewound to before its first prompt is set aside
    /// (`<id>.jsonl.rewound`): claude starts a conversation under an id only where none is stored.
    pub(super) fn set_aside_transcript(&self) {
        if let Some(dir) = &self.ctx.config.claude_config_dir
            && let Err(e) = history::set_aside(dir, &self.ctx.id)
        {
            tracing::warn!(session = %self.ctx.id, "could not set the rewound transcript aside: {e}");
        }
    }
}

impl Job {
    async fn run(self) -> Result<RewindDone, AgentError> {
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
            RewindCommand::Undo => format!("Undo “{}”", rewind_asks::short(&last.text)),
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
            rewind_editor::plan(&self.edit_log, &*self.editor, &self.session_id, &target).await;
        let mut files = dry
            .as_ref()
            .map(|d| d.files_changed.clone())
            .unwrap_or_default();
        for path in editor_plan.paths() {
            if !files.contains(&path) {
                files.push(path);
            }
        }
        let files_text = rewind_editor::files_text(&self.cwd, &dry, &editor_plan);
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
                rewind_asks::short(&target.text),
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
                        .map(|f| rewind_asks::shown(&self.cwd, f))
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
