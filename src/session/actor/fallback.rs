//! The switch from claude's stdio permission channel to our MCP permission tool, when the
//! channel breaks mid-session (`--permission-transport auto`): noticed, told to the user in one
//! line, and the turn kept by asking claude to retry what was denied.

use super::SessionActor;
use crate::claude::ExitInfo;
use crate::domain::{AgentError, ContentChunk, PromptBlock, SessionUpdate};
use crate::mcp::{BreakDetector, BreakSymptom};
use crate::translate;

impl SessionActor {
    /// Feeds claude's output to the break detector while a switch is still possible.
    pub(super) fn watch_for_break(&mut self, message: &crate::claude::wire::ClaudeMessage) {
        if self.use_mcp || !self.auto_fallback || self.turn.is_none() || self.switch.is_some() {
            return;
        }
        if let Some(symptom) = self.detector.on_message(message) {
            tracing::warn!(session = %self.id, "{symptom}");
            self.switch = Some(symptom);
        }
    }

    /// Whether claude's exit is a broken permission channel (then the turn goes on over MCP).
    pub(super) fn watch_exit_for_break(&mut self, info: &ExitInfo) -> bool {
        if self.use_mcp || !self.auto_fallback || self.turn.as_ref().is_none_or(|t| t.cancelled) {
            return false;
        }
        let symptom = self
            .switch
            .take()
            .or_else(|| BreakDetector::on_exit(&info.stderr_tail));
        match symptom {
            Some(symptom) => {
                tracing::warn!(session = %self.id, status = %info.status, "{symptom}");
                self.switch = Some(symptom);
                self.switch_to_mcp_and_retry();
                true
            }
            None => false,
        }
    }

    /// Restarts claude on the MCP path with the conversation intact, says so in the thread, and
    /// keeps the turn: claude is asked to retry the denied call, which now reaches the editor.
    pub(super) fn switch_to_mcp_and_retry(&mut self) {
        let Some(symptom) = self.switch.take() else {
            return;
        };
        self.auto_fallback = false;
        self.use_mcp = true;
        self.say(&format!("\n\n[claude-acp] {}.\n\n", symptom.description()));
        self.stop_claude();
        if let Err(e) = self.ensure_claude() {
            self.finish_turn(Err(e));
            return;
        }
        let blocks = match retry_text(&symptom) {
            Some(text) => vec![PromptBlock::Text(text)],
            // Nothing was denied yet (claude refused the flag): the prompt itself was never read.
            None => self
                .turn
                .as_ref()
                .map(|t| t.blocks.clone())
                .unwrap_or_default(),
        };
        self.translator.start_turn();
        let message = translate::user_message(&self.id, &blocks);
        let Some(handle) = self.live.as_ref().map(|l| l.handle.clone()) else {
            self.finish_turn(Err(AgentError::Internal(
                "claude is not running after the switch".into(),
            )));
            return;
        };
        let sent = handle.send(message);
        tokio::spawn(async move {
            if let Err(e) = sent.await {
                tracing::warn!("retry not delivered to claude: {e}");
            }
        });
    }

    fn say(&self, text: &str) {
        self.editor.session_update(
            &self.id,
            SessionUpdate::AgentMessageChunk {
                content: ContentChunk::text(text),
            },
        );
    }
}

/// What claude is told after the switch, naming the call that was denied without asking.
fn retry_text(symptom: &BreakSymptom) -> Option<String> {
    let tool = symptom.tool_name.as_deref()?;
    let input = symptom
        .tool_input
        .as_ref()
        .map(|i| format!(" with input {i}"))
        .unwrap_or_default();
    Some(format!(
        "[claude-acp] Your {tool} call{input} was denied automatically because permission prompts \
         were not reaching the user. That is fixed now: the user will be asked. Please retry it, \
         then continue with the task."
    ))
}
