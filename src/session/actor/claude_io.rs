//! The session's claude: starting it (with the right permission transport and history), and what
//! it says: output translated for the editor, control requests answered, its exit handled.

use super::asks::AskKind;
use super::turn::turn_error;
use super::{CONTROL_TIMEOUT, Internal, SessionActor, deliver};
use crate::claude::wire::{ClaudeMessage, OutboundControl};
use crate::claude::{ClaudeEvent, ExitInfo};
use crate::domain::AgentError;
use crate::session::incoming::{ControlAction, classify};
use crate::session::spawn;
use crate::translate;

impl SessionActor {
    pub(super) fn ensure_claude(&mut self) -> Result<(), AgentError> {
        if self.claude.is_running() {
            return Ok(());
        }
        let command = self
            .ctx
            .config
            .claude
            .clone()
            .map_err(AgentError::Internal)?;
        let next = self.next.next_start(|| self.stored_by_claude());
        if next.set_aside_transcript {
            self.set_aside_transcript();
        }
        if let Err(e) = crate::history::set_aside_no_conversation(&next.set_aside_no_conversation) {
            tracing::warn!(session = %self.ctx.id, "could not set aside claude's transcript that holds no conversation: {e}");
        }
        let start = next.start;
        let (mut permission_args, mcp_file) = self
            .path
            .claude_args(&self.asker, &self.ctx.editor_servers)
            .map_err(AgentError::Internal)?;
        let file_args = self.files_for_start();
        permission_args.extend(file_args);
        self.carry_session_state_into_flags();
        // An untrusted workspace's claude gets the user's settings only (`session::trust`).
        let flags = match &self.ctx.untrusted {
            Some(untrusted) => crate::session::trust::restricted(&self.ctx.flags, untrusted),
            None => Ok(self.ctx.flags.clone()),
        };
        let (flags, flag_files) = flags
            .and_then(|flags| flags.with_secret_files())
            .map_err(AgentError::Internal)?;
        let mut opts = spawn::options(
            &command,
            &self.ctx.cwd,
            &self.ctx.id,
            &start,
            &flags,
            &permission_args,
        );
        // The served tools' descriptions whole (claude.exe's PowerShell one is over claude's
        // limit); first, so that an editor's own `env` (in `_meta`) wins.
        let served = self.tools.served.tools();
        opts.extra_env
            .splice(0..0, crate::claude::sdk_mcp::description_limit_env(&served));
        // Last, so that the editor's gateway wins over the environment's route.
        opts.extra_env.extend(self.ctx.config.route.env());
        let launched = self
            .ctx
            .config
            .launcher
            .launch(opts)
            .map_err(|e| AgentError::Internal(format!("could not start claude: {e}")))?;
        tracing::info!(session = %self.ctx.id, pid = ?launched.claude.pid(), ?start, "claude started");
        let handle = launched.handle.clone();
        self.idle.claude_started();
        let mut files = flag_files;
        files.extend(mcp_file);
        self.claude.started(launched, files);
        let internal = self.inbox.tx.clone();
        // Queued now, so it is claude's first line whatever the turn sends next.
        let prompt = &self.ctx.flags.system_prompt;
        let request = OutboundControl::Initialize {
            hooks: None,
            sdk_mcp_servers: self.sdk_servers(),
            system_prompt: prompt.replace.clone().map(|text| vec![text]),
            append_system_prompt: prompt.append.clone(),
        };
        let initialize = handle.request(request, CONTROL_TIMEOUT);
        // Then the toggles that are on (Fast mode, ultracode), before any prompt can follow, and
        // whether claude can run ultracode.
        let toggles = self.settings.toggle_settings().map(|switches| {
            handle.request(OutboundControl::set_switches(&switches), CONTROL_TIMEOUT)
        });
        let claude_settings = handle.request(OutboundControl::GetSettings, CONTROL_TIMEOUT);
        tokio::spawn(async move {
            match initialize.await {
                Ok(reply) => {
                    let _ = internal.send(Internal::Initialized(reply));
                }
                Err(e) => tracing::warn!("claude did not answer initialize: {e}"),
            }
            if let Some(Err(e)) = match toggles {
                Some(applied) => Some(applied.await),
                None => None,
            } {
                tracing::warn!("claude did not take the session's toggles: {e}");
            }
            if let Ok(reply) = claude_settings.await {
                let _ = internal.send(Internal::ClaudeSettings(reply));
            }
        });
        Ok(())
    }

    /// What claude has written of this conversation to disk. It writes the conversation only
    /// after its first API request: a claude that died before that left nothing to `--resume`
    /// ("No conversation found"), or a transcript without it, which keeps claude from
    /// starting the session afresh until it is set aside.
    pub(super) fn stored_by_claude(&self) -> crate::history::Stored {
        match &self.ctx.config.claude_config_dir {
            Some(dir) => crate::history::stored(dir, &self.ctx.id),
            None => crate::history::Stored::Conversation,
        }
    }

    pub(super) fn on_claude(&mut self, event: ClaudeEvent) {
        match event {
            ClaudeEvent::Message(message) => self.on_message(message),
            ClaudeEvent::Exited(info) => self.on_exit(info),
        }
    }

    pub(super) fn on_message(&mut self, message: ClaudeMessage) {
        if self.turn.is_some() {
            self.path.watch(&self.ctx.id, &message);
        }
        self.idle.saw(&message);
        match message {
            ClaudeMessage::ControlRequest(req) => self.on_control_request(req),
            ClaudeMessage::ControlCancelRequest { request_id } => {
                // claude withdrew the ask: withdraw the editor's request too; a late answer is dropped.
                self.asks.withdraw(&request_id);
            }
            ClaudeMessage::Result(result) => {
                if let Some(state) = result.fast_mode_state.as_deref() {
                    self.fast_mode_reported(state, result.fast_mode_disabled_reason.as_deref());
                }
                if self
                    .turn
                    .as_ref()
                    .is_some_and(|t| is_model_command(&t.blocks))
                {
                    // The user changed the model in the prompt: the picker follows claude.
                    self.read_claude_settings();
                }
                let end = self.translator.on_result(&result);
                for update in end.updates {
                    self.ctx.editor.session_update(&self.ctx.id, update);
                }
                // A result no prompt of ours waits on (a background task's follow-up, or one
                // during `/undo`) ends no turn.
                let named = result.user_message_uuids.as_deref();
                if !self.queue.ledger.result(named, result.autonomous()) {
                    tracing::debug!(session = %self.ctx.id, "a result outside any turn was dropped");
                    return;
                }
                if self.turn.as_ref().is_some_and(|t| t.by_claude)
                    && let Some(symptom) = self.path.take_break()
                {
                    self.switch_to_mcp_and_retry(symptom);
                    return;
                }
                let outcome = end.outcome.map_err(|message| match end.sign_in_needed {
                    true => AgentError::AuthRequired(format!(
                        "{message} (sign in with `claude-acp login`)"
                    )),
                    false => turn_error(message),
                });
                // The turn, and the prompts behind it this same result answered (claude ran
                // them as one turn), each answered with it. A cancelled turn ends at its first
                // result: what it still waited on (a steer) was dropped with the interrupt.
                while let Some(turn) = self.turn.as_mut()
                    && turn.by_claude
                    && (turn.cancelled || !self.queue.ledger.waits_on(turn.serial))
                {
                    turn.usage = end.usage;
                    self.finish_turn(outcome.clone());
                }
            }
            other => {
                let out = self.translator.on_message(other);
                for update in out.updates {
                    let update = self.keep_terminal_shown(update);
                    self.ctx.editor.session_update(&self.ctx.id, update);
                }
                for signal in out.signals {
                    self.on_signal(signal);
                }
            }
        }
    }

    pub(super) fn on_signal(&mut self, signal: translate::TurnSignal) {
        match signal {
            translate::TurnSignal::ModeChanged(mode) => self.mode_changed(mode),
            translate::TurnSignal::BackgroundJobEnded(end) => self.background_job_ended(end),
            translate::TurnSignal::Init(info) => {
                if let Some(state) = info.fast_mode_state.as_deref() {
                    self.fast_mode_reported(state, info.fast_mode_disabled_reason.as_deref());
                }
                if let Some(version) = info.claude_code_version.as_deref() {
                    tracing::debug!(session = %self.ctx.id, version = %version, "claude's version");
                    check_version(version);
                }
            }
        }
    }

    pub(super) fn on_control_request(&mut self, req: crate::claude::wire::InboundControlRequest) {
        let Some(handle) = self.claude.handle() else {
            return;
        };
        let request_id = req.request_id.clone();
        match classify(req) {
            ControlAction::Reply(value) => deliver(handle.respond_success(&request_id, value)),
            ControlAction::Fail(error) => deliver(handle.respond_error(&request_id, &error)),
            ControlAction::Mcp(message) => self.on_mcp_message(request_id, handle, message),
            ControlAction::Elicit(ask) => self.on_elicitation(request_id, handle, *ask),
            ControlAction::AskPermission(ask) => {
                self.path
                    .saw_can_use_tool(ask.tool_use_id.as_deref().unwrap_or_default());
                let asker = self.asker.clone();
                let internal = self.inbox.tx.clone();
                let rid = request_id.clone();
                let task = tokio::spawn(async move {
                    let (reply, by) = asker.decide(*ask).await;
                    let _ = handle.answer_permission(&rid, reply, by).await;
                    let _ = internal.send(Internal::PermissionDone { request_id: rid });
                });
                self.asks.started(request_id, task, AskKind::Permission);
            }
        }
    }

    pub(super) fn on_exit(&mut self, info: ExitInfo) {
        tracing::info!(session = %self.ctx.id, status = %info.status, "claude exited");
        self.claude.ended();
        for update in self.translator.claude_ended() {
            self.ctx.editor.session_update(&self.ctx.id, update);
        }
        self.asks.withdraw_all();
        // A session answer waiting for claude's models waits no more.
        self.options_known();
        self.abort_file_tasks();
        if self.turn.as_ref().is_some_and(|t| !t.cancelled)
            && let Some(symptom) = self
                .path
                .take_break_on_exit(&self.ctx.id, &info.stderr_tail)
        {
            tracing::warn!(session = %self.ctx.id, status = %info.status, "switching after claude exited");
            self.switch_to_mcp_and_retry(symptom);
            return;
        }
        if self.turn.is_some() {
            let tail = info.stderr_tail.trim();
            let detail = if tail.is_empty() {
                String::new()
            } else {
                format!("; its last output: {tail}")
            };
            // The prompts claude had queued die with it: each gets the running one's answer
            // (cancelled ones `cancelled`); those kept here start a new claude.
            self.end_turns(
                Err(AgentError::Internal(format!(
                    "claude exited during the turn ({}){detail}. The next prompt restarts it with the conversation intact.",
                    info.status
                ))),
                false,
            );
        }
    }

    pub(super) fn stop_claude(&mut self) {
        if let Some(claude) = self.claude.ended() {
            claude.kill();
        }
    }
}

/// A prompt that runs claude's own `/model` command.
fn is_model_command(blocks: &[crate::domain::PromptBlock]) -> bool {
    matches!(blocks.first(), Some(crate::domain::PromptBlock::Text(text))
        if text.trim_start().strip_prefix("/model").is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace)))
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
