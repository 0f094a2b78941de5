//! What claude says, routed to the part it belongs to: a `result` and the output of a turn to
//! the turn, control requests to the running claude (and through it to the editor's asks and the
//! editor-served tools), what its output signals to the settings and its background jobs; and
//! claude's end: its exit, or a logout's.

use super::SessionActor;
use crate::claude::wire::ClaudeMessage;
use crate::claude::{ClaudeEvent, ExitInfo};
use crate::domain::AgentError;
use crate::translate::TurnSignal;

impl SessionActor {
    pub(super) fn on_claude(&mut self, event: ClaudeEvent) {
        match event {
            ClaudeEvent::Message(message) => self.on_message(message),
            ClaudeEvent::Exited(info) => self.on_exit(info),
        }
    }

    fn on_message(&mut self, message: ClaudeMessage) {
        let turn = self.turns.running();
        if self.claude.saw(&self.ctx, &message, turn) {
            return;
        }
        match message {
            ClaudeMessage::ControlRequest(req) => {
                self.claude
                    .on_control_request(&self.ctx, &mut self.tools, req);
            }
            ClaudeMessage::Result(result) => {
                let (turns, mut p) = self.parts();
                turns.on_result(&mut p, &result);
            }
            other => {
                let (turns, mut p) = self.parts();
                for signal in turns.on_output(&mut p, other) {
                    self.on_signal(signal);
                }
            }
        }
    }

    fn on_signal(&mut self, signal: TurnSignal) {
        match signal {
            TurnSignal::ModeChanged(mode) => self.settings.mode_changed(&self.ctx, mode),
            TurnSignal::BackgroundJobEnded(end) => {
                self.claude.background_job_ended(&self.ctx, end);
            }
            TurnSignal::Init(mut info) => {
                let skills = std::mem::take(&mut info.skills);
                self.turns.commands.skills_reported(&self.ctx, skills);
                if let Some(state) = info.fast_mode_state.as_deref() {
                    let reason = info.fast_mode_disabled_reason.as_deref();
                    self.settings.fast_mode_reported(&self.ctx, state, reason);
                }
                if let Some(version) = info.claude_code_version.as_deref() {
                    tracing::debug!(session = %self.ctx.id, version = %version, "claude's version");
                    check_version(version);
                }
            }
        }
    }

    pub(super) fn on_exit(&mut self, info: ExitInfo) {
        tracing::info!(session = %self.ctx.id, status = %info.status, "claude exited");
        self.claude.exited();
        self.turns.claude_ended(&self.ctx);
        self.claude.withdraw_asks();
        // A session answer waiting for claude's models waits no more.
        self.settings.options_known(&self.ctx);
        self.tools.abort_file_tasks();
        if self.turns.runs_uncancelled()
            && let Some(symptom) = self.claude.take_break_on_exit(&self.ctx, &info.stderr_tail)
        {
            tracing::info!(session = %self.ctx.id, status = %info.status, "switching after claude exited");
            let (turns, mut p) = self.parts();
            turns.switch_to_mcp_and_retry(&mut p, symptom);
            return;
        }
        if self.turns.running() {
            let tail = info.stderr_tail.trim();
            let detail = if tail.is_empty() {
                String::new()
            } else {
                format!("; its last output: {tail}")
            };
            // The prompts claude had queued die with it: each gets the running one's answer
            // (cancelled ones `cancelled`); those kept here start a new claude.
            let (turns, mut p) = self.parts();
            turns.end_turns(
                &mut p,
                Err(AgentError::Internal(format!(
                    "claude exited during the turn ({}){detail}. The next prompt restarts it with the conversation intact.",
                    info.status
                ))),
                false,
            );
        }
    }

    /// Logging out: the session's claude holds the login it started with, so it ends now and the
    /// next prompt starts one (resuming the conversation) that finds no login and says so.
    pub(super) async fn end_claude_for_logout(&mut self) {
        self.claude.end(&self.ctx, false).await;
        let (turns, mut p) = self.parts();
        turns.end_turns(
            &mut p,
            Err(AgentError::AuthRequired(
                "you logged out of claude during this turn: log in again (`claude-acp login`) to go on"
                    .into(),
            )),
            true,
        );
    }
}

/// The drift canary: claude's protocol is undocumented, so its version is logged once. Only a
/// claude older than the tested range is a warning (it breaks); a newer one is what users run
/// days after each release, and works.
fn check_version(version: &str) {
    use crate::claude::install::{
        TESTED_CLAUDE_VERSIONS, VersionFit, too_old_message, version_fit,
    };
    static TOLD: std::sync::Once = std::sync::Once::new();
    TOLD.call_once(|| {
        let (lo, hi) = TESTED_CLAUDE_VERSIONS;
        match version_fit(version) {
            VersionFit::Tested => tracing::info!("claude {version} (tested: {lo} to {hi})"),
            VersionFit::TooOld => tracing::warn!("{}", too_old_message(version)),
            VersionFit::Untested => tracing::info!(
                "claude {version}, newer than the versions claude-acp was tested with ({lo} to {hi})"
            ),
        }
    });
}
