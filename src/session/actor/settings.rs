//! A session's settings as the editor sees them: the mode and model, their config options, and
//! what claude's `initialize` reply says about them (commands, models, its starting mode).

use serde_json::Value;

use super::{CONTROL_TIMEOUT, Internal, Reply, SessionActor};
use crate::claude::wire::{AgentInfo, ModelInfo, OutboundControl};
use crate::claude::{ClaudeError, ClaudeHandle};
use crate::domain::{AgentError, ConfigOption, SessionUpdate};
use crate::editor_tools::setting::{FILE_EDITS, TERMINAL};
use crate::session::modes;
use crate::session::spawn::SessionFlags;
use crate::translate;

/// A change of the session's settings that claude has to make.
pub(super) enum Setting {
    Mode(String),
    Model(String),
    /// `None`: back to the model's own level.
    Effort(Option<String>),
    /// Fast mode or ultracode, on or off.
    Toggle(super::toggles::Toggle, bool),
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Mode(mode) => write!(f, "mode change to `{mode}`"),
            Self::Model(model) => write!(f, "model change to `{model}`"),
            Self::Effort(level) => write!(
                f,
                "effort change to `{}`",
                level.as_deref().unwrap_or("default")
            ),
            Self::Toggle(toggle, on) => write!(
                f,
                "{} change to {}",
                toggle.name(),
                if *on { "on" } else { "off" }
            ),
        }
    }
}

/// Whether [`SessionActor::offer_models`] tells a running claude of a model change, or leaves it
/// to the next claude (one that is about to start, or to be replaced for a new route).
#[derive(Clone, Copy)]
pub(super) enum ClaudeModel {
    Tell,
    NextStart,
}

/// Who waits for a change: `session/set_mode`, or `session/set_config_option` (the options after it).
pub(super) enum SettingReply {
    Mode(Reply<()>),
    ConfigOption(Reply<Vec<ConfigOption>>),
}

impl SettingReply {
    pub(super) fn send_error(self, error: AgentError) {
        match self {
            Self::Mode(reply) => drop(reply.send(Err(error))),
            Self::ConfigOption(reply) => drop(reply.send(Err(error))),
        }
    }
}

/// The session's mode, model and effort as the editor sees them, and what it was last told.
pub(super) struct Settings {
    pub(super) mode: String,
    /// Whether the mode was set or seen changing since the session opened.
    pub(super) mode_touched: bool,
    /// claude's models (from its `initialize` reply, or the options cache); empty when unknown.
    pub(super) claude_models: Vec<ModelInfo>,
    /// The models this session offers: claude's, or those of them the gateway lists.
    pub(super) models: Vec<ModelInfo>,
    /// Whether `models` is narrowed to a gateway's listing (and may then be empty).
    pub(super) narrowed: bool,
    /// The model chosen (`--model`, the model option); `None`: claude's default.
    pub(super) model: Option<String>,
    /// The effort level chosen (`--effort`, `_meta`, the effort option); `None`: the model's own.
    pub(super) effort: Option<String>,
    /// The config options the editor was told, and the session answer waiting for them.
    pub(super) announced: super::options::Announced,
    /// Fast mode and ultracode.
    pub(super) toggles: super::toggles::Toggles,
    /// claude's custom agents (its `initialize` reply); empty when it has none or has not said.
    pub(super) agents: Vec<AgentInfo>,
    /// The agent the main thread runs as (`--agent`, `_meta`, the agent option); `None`: claude's
    /// standard agent.
    pub(super) agent: Option<String>,
}

impl Settings {
    pub(super) fn new(mode: String, models: Vec<ModelInfo>, flags: &SessionFlags) -> Self {
        Self {
            mode,
            mode_touched: false,
            claude_models: models.clone(),
            models,
            narrowed: false,
            model: flags.value_of("--model").map(str::to_owned),
            effort: flags.value_of("--effort").map(str::to_owned),
            announced: super::options::Announced::default(),
            toggles: super::toggles::Toggles::default(),
            agents: Vec::new(),
            agent: flags.value_of("--agent").map(str::to_owned),
        }
    }

    /// The model claude runs: the one chosen, else claude's first (its default).
    pub(super) fn current_model(&self) -> Option<String> {
        self.model
            .clone()
            .or_else(|| self.models.first().map(|m| m.value.clone()))
    }

    /// The current model's entry in claude's list, when known.
    pub(super) fn current_model_info(&self) -> Option<&ModelInfo> {
        let current = self.current_model()?;
        self.models.iter().find(|m| m.value == current)
    }

    /// claude runs `model` (its resolved id, or an alias): the choice follows unless the current
    /// one already resolves to it (`default` and `opus` may be the same model).
    /// Returns the new choice, if it changed.
    pub(super) fn follow_model(&mut self, model: &str) -> Option<String> {
        let runs = |m: &ModelInfo| m.value == model || m.resolved_model.as_deref() == Some(model);
        if self.current_model_info().is_some_and(runs) {
            return None;
        }
        let found = self.models.iter().find(|m| runs(m))?.value.clone();
        self.model = Some(found.clone());
        Some(found)
    }

    /// The modes this session offers: `auto` where claude says the model takes it.
    pub(super) fn offered_modes(&self, allow_bypass: bool) -> modes::Offered {
        modes::Offered {
            bypass: allow_bypass,
            auto: self
                .current_model_info()
                .is_some_and(|m| m.supports_auto_mode),
        }
    }

    pub(super) fn model_option(&self) -> Option<ConfigOption> {
        Some(ConfigOption {
            id: "model".into(),
            name: "Model".into(),
            description: Some("The model claude uses in this session".into()),
            category: Some("model".into()),
            current: self.current_model()?,
            values: self
                .models
                .iter()
                .map(|m| crate::domain::ConfigValue {
                    id: m.value.clone(),
                    name: m.display_name.clone().unwrap_or_else(|| m.value.clone()),
                    description: m.description.clone(),
                })
                .collect(),
            boolean: false,
        })
    }
}

impl SessionActor {
    /// The modes this session offers now (they follow the current model).
    pub(super) fn offered_modes(&self) -> modes::Offered {
        self.settings
            .offered_modes(self.ctx.config.allow_bypass_permissions)
    }

    pub(crate) fn config_options(&self) -> Vec<ConfigOption> {
        let mut options = vec![modes::config_option(
            &self.settings.mode,
            self.offered_modes(),
        )];
        options.extend(self.settings.model_option());
        options.extend(self.settings.effort_option());
        options.extend(
            self.settings
                .toggle_options(self.ctx.editor.supports_boolean_options()),
        );
        options.extend(self.settings.agent_option());
        options.extend(self.tools.file_edits.map(|v| FILE_EDITS.config_option(v)));
        options.extend(self.tools.terminal.map(|v| TERMINAL.config_option(v)));
        options
    }

    /// Starts a mode change (`session/set_mode`, or the `mode` config option): claude is asked,
    /// and its answer comes back as [`Internal::SettingDone`], so the loop never waits on claude
    /// (a hung claude must not hold up a cancel). With no claude running it takes effect at once.
    pub(super) fn set_mode(&mut self, mode: String, reply: SettingReply) {
        let offered = self.offered_modes();
        if !modes::is_known(&mode, offered) {
            let known: Vec<String> = modes::available(offered)
                .into_iter()
                .map(|m| m.id)
                .collect();
            reply.send_error(AgentError::InvalidParams(format!(
                "unknown mode `{mode}` (this session offers: {})",
                known.join(", ")
            )));
            return;
        }
        if let Err(e) = self.wake_if_stopped() {
            reply.send_error(e);
            return;
        }
        match self.claude.handle() {
            Some(handle) => {
                let request = OutboundControl::SetPermissionMode { mode: mode.clone() };
                self.await_setting(handle, request, Setting::Mode(mode), reply);
            }
            None => {
                self.ctx.flags.set("--permission-mode", &mode);
                self.mode_changed(mode);
                self.reply_setting(reply);
            }
        }
    }

    /// Starts a model change (the `model` config option); answered like [`Self::set_mode`].
    pub(super) fn set_model(&mut self, model: String, reply: SettingReply) {
        if (self.settings.narrowed || !self.settings.models.is_empty())
            && !self.settings.models.iter().any(|m| m.value == model)
        {
            let known: Vec<&str> = self
                .settings
                .models
                .iter()
                .map(|m| m.value.as_str())
                .collect();
            reply.send_error(AgentError::InvalidParams(format!(
                "unknown model `{model}`: claude offers {}",
                known.join(", ")
            )));
            return;
        }
        if let Err(e) = self.ensure_claude() {
            reply.send_error(e);
            return;
        }
        let handle = self.claude.handle().expect("claude is running");
        let request = OutboundControl::SetModel {
            model: Some(model.clone()),
        };
        self.await_setting(handle, request, Setting::Model(model), reply);
    }

    /// Sends the change's control request now (so it reaches claude before anything sent after
    /// it) and waits for claude's answer in a task of its own.
    pub(super) fn await_setting(
        &self,
        handle: ClaudeHandle,
        request: OutboundControl,
        setting: Setting,
        reply: SettingReply,
    ) {
        let answer = handle.request(request, CONTROL_TIMEOUT);
        let internal = self.inbox.tx.clone();
        tokio::spawn(async move {
            let answer = answer.await.map(drop);
            let _ = internal.send(Internal::SettingDone {
                setting,
                answer,
                reply,
            });
        });
    }

    /// claude answered a change (or failed to, in time): applied and the editor answered.
    pub(super) fn setting_done(
        &mut self,
        setting: Setting,
        answer: Result<(), ClaudeError>,
        reply: SettingReply,
    ) {
        if let Err(e) = answer {
            reply.send_error(AgentError::Internal(format!(
                "the {setting} did not take effect: {e}"
            )));
            return;
        }
        match setting {
            Setting::Mode(mode) => self.mode_changed(mode),
            Setting::Model(model) => {
                // Kept for a restarted claude, which would otherwise fall back to the default model.
                self.ctx.flags.set("--model", &model);
                self.settings.model = Some(model);
            }
            Setting::Effort(level) => self.effort_set(level),
            Setting::Toggle(toggle, on) => self.toggle_set(toggle, on),
        }
        self.reply_setting(reply);
    }

    pub(super) fn reply_setting(&self, reply: SettingReply) {
        match reply {
            SettingReply::Mode(reply) => {
                let _ = reply.send(Ok(()));
            }
            SettingReply::ConfigOption(reply) => {
                let _ = reply.send(Ok(self.config_options()));
            }
        }
    }

    /// Tells the editor in both forms clients read: the mode update and the config options.
    pub(super) fn mode_changed(&mut self, mode: String) {
        self.settings.mode_touched = true;
        if self.settings.mode == mode {
            return;
        }
        self.settings.mode = mode.clone();
        *self.asker.mode.lock().unwrap_or_else(|p| p.into_inner()) = mode.clone();
        self.ctx
            .editor
            .session_update(&self.ctx.id, SessionUpdate::CurrentMode { mode_id: mode });
        self.announce_options();
    }

    pub(super) fn on_initialized(&mut self, reply: Value) {
        if let (Some(settings), Some(handle)) = (self.rules.flag_settings(), self.claude.handle()) {
            let request = OutboundControl::ApplyFlagSettings { settings };
            tokio::spawn(async move { handle.request(request, CONTROL_TIMEOUT).await });
        }
        if let Some(mut commands) = translate::available_commands(&reply) {
            // claude-acp runs these itself; a command of claude's by the same name would never run.
            let ours = super::rewind::commands();
            commands.retain(|c| !ours.iter().any(|o| o.name == c.name));
            commands.extend(ours);
            let commands = translate::with_usage_command(translate::with_context_command(commands));
            let commands = translate::with_mcp_command(commands);
            self.ctx
                .editor
                .session_update(&self.ctx.id, SessionUpdate::AvailableCommands { commands });
        }
        if let Some(state) = reply.get("fast_mode_state").and_then(Value::as_str) {
            let reason = reply
                .get("fast_mode_disabled_reason")
                .and_then(Value::as_str);
            self.fast_mode_reported(state, reason);
        }
        self.settings.agents = AgentInfo::from_initialize_reply(&reply);
        let models = ModelInfo::from_initialize_reply(&reply);
        if !models.is_empty() {
            self.remember_models(&reply, &models);
            self.settings.claude_models = models;
            self.offer_models(ClaudeModel::Tell);
        }
        // claude's starting mode counts only until anyone (the editor, claude) has changed it: the
        // reply may arrive after an early `session/set_mode`.
        if let Some(mode) = reply.get("current_permission_mode").and_then(Value::as_str)
            && !self.settings.mode_touched
            && modes::is_known(mode, modes::Offered::ALL)
            && mode != self.settings.mode
        {
            self.settings.mode = mode.to_owned();
            self.settings.mode_touched = true;
            if self.options_announced() {
                self.ctx.editor.session_update(
                    &self.ctx.id,
                    SessionUpdate::CurrentMode {
                        mode_id: mode.to_owned(),
                    },
                );
            }
        }
        self.options_known();
    }

    /// Offers claude's models the route serves (all of them, unless a gateway listed its own).
    /// When that leaves out the model the session runs, it moves to the first model offered, as
    /// the TypeScript adapter does: the next claude starts on it, and `tell` a running one.
    pub(super) fn offer_models(&mut self, tell: ClaudeModel) {
        let claude = &self.settings.claude_models;
        let offered = self.ctx.config.route.offered_models(claude);
        self.settings.narrowed = offered.is_some();
        self.settings.models = offered.unwrap_or_else(|| claude.clone());
        let running = self
            .settings
            .model
            .clone()
            .or_else(|| claude.first().map(|m| m.value.clone()));
        let models = &self.settings.models;
        let (Some(running), Some(first)) = (running, models.first()) else {
            return;
        };
        if models.iter().any(|m| m.value == running) {
            return;
        }
        let first = first.value.clone();
        tracing::info!(session = %self.ctx.id, dropped = %running, model = %first,
            "the gateway does not list the session's model; moving to the first it lists");
        self.ctx.flags.set("--model", &first);
        self.settings.model = Some(first.clone());
        if let (ClaudeModel::Tell, Some(handle)) = (tell, self.claude.handle()) {
            let request = OutboundControl::SetModel { model: Some(first) };
            tokio::spawn(async move {
                if let Err(e) = handle.request(request, CONTROL_TIMEOUT).await {
                    tracing::warn!("claude did not take the gateway's model: {e}");
                }
            });
        }
    }

    /// Keeps claude's models for the next session's answer (the file is written off the loop).
    fn remember_models(&self, reply: &Value, models: &[ModelInfo]) {
        let Ok(command) = self.ctx.config.claude.clone() else {
            return;
        };
        let version = reply
            .get("claude_code_version")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let (cache, models) = (self.ctx.config.options_cache.clone(), models.to_vec());
        tokio::task::spawn_blocking(move || cache.remember(&command, version.as_deref(), &models));
    }
}
