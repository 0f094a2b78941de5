//! The session's settings as the editor sees them, and their handling: the mode and model, the
//! effort, Fast mode and ultracode, the agent, the editor-served tools' "File edits" and
//! "Terminal", their config options, and what claude's `initialize` and `get_settings` replies
//! say about them (models, agents, its starting mode). A change claude has to make is asked of
//! the running claude, its answer coming back as [`Done::Changed`], so the loop never waits
//! on claude (a hung claude must not hold up a cancel); the option builders are `options.rs`,
//! the choices made through config options alone `choices.rs`.

use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::ctx::{CONTROL_TIMEOUT, Reply, SessionContext, Tell};
use crate::claude::wire::{AgentInfo, ModelInfo, OutboundControl};
use crate::claude::{ClaudeError, ClaudeHandle};
use crate::domain::{AgentError, ConfigOption, ModeState, SessionUpdate};
use crate::editor_tools::setting::ServedBy;
use crate::session::modes;
use crate::session::spawn::SessionFlags;

mod choices;
mod options;

/// The session's modes and config options, for the answer that opens it.
pub(crate) type OpenedOptions = (ModeState, Vec<ConfigOption>);

/// The config option ids of the toggles, as the TypeScript adapter names them.
pub(super) const FAST_ID: &str = "fast";
pub(super) const ULTRACODE_ID: &str = "ultracode";
/// The agent's config option id and its standard-agent value, as the TypeScript adapter names them.
pub(super) const AGENT_ID: &str = "agent";
const DEFAULT_AGENT: &str = "default";
/// The effort value meaning "no level chosen": the model's own default.
const DEFAULT_EFFORT: &str = "default";

/// What the settings' own tasks report back.
pub(super) enum Done {
    /// claude's answer to `get_settings`.
    ClaudeSettings(Value),
    /// A session that waited for claude's models waited long enough.
    OptionsDeadline,
    /// claude answered a mode or model change, or did not in time.
    Changed {
        setting: Setting,
        answer: Result<(), ClaudeError>,
        reply: SettingReply,
    },
}

/// A change of the session's settings that claude has to make.
pub(super) enum Setting {
    Mode(String),
    Model(String),
    /// `None`: back to the model's own level.
    Effort(Option<String>),
    /// Fast mode or ultracode, on or off.
    Toggle(Toggle, bool),
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

/// One of the two toggles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Toggle {
    Fast,
    Ultracode,
}

impl Toggle {
    /// claude's settings key (`apply_flag_settings`).
    fn key(self) -> &'static str {
        match self {
            Toggle::Fast => "fastMode",
            Toggle::Ultracode => "ultracode",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Toggle::Fast => "Fast mode",
            Toggle::Ultracode => "ultracode",
        }
    }

    fn id(self) -> &'static str {
        match self {
            Toggle::Fast => FAST_ID,
            Toggle::Ultracode => ULTRACODE_ID,
        }
    }
}

/// Fast mode and ultracode, on or off, as handed from a session to one opened over it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Switches {
    pub(crate) fast: bool,
    pub(crate) ultracode: bool,
}

/// What the session holds of the toggles.
#[derive(Debug, Default)]
struct Toggles {
    fast: bool,
    ultracode: bool,
    /// claude's `ultracodeAvailable` (its `get_settings`): `None` until claude said.
    ultracode_available: Option<bool>,
    /// Why claude last said Fast mode cannot serve, where that is worth showing.
    fast_unavailable: Option<&'static str>,
}

/// Whether [`Settings::offer_models`] tells a running claude of a model change, or leaves it
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

/// What the editor was told, and who waits to be told.
#[derive(Default)]
struct Announced {
    /// The options last sent (in an answer or an update); `None` before the session's answer.
    options: Option<Vec<ConfigOption>>,
    waiting: Vec<Reply<OpenedOptions>>,
}

/// The session's settings as the editor sees them, and what it was last told.
pub(super) struct Settings {
    pub(super) mode: String,
    /// Whether the mode was set or seen changing since the session opened.
    mode_touched: bool,
    /// claude's models (from its `initialize` reply, or the options cache); empty when unknown.
    claude_models: Vec<ModelInfo>,
    /// The models this session offers: claude's, or those of them the gateway lists.
    models: Vec<ModelInfo>,
    /// Whether `models` is narrowed to a gateway's listing (and may then be empty).
    narrowed: bool,
    /// The model chosen (`--model`, the model option); `None`: claude's default.
    model: Option<String>,
    /// The effort level chosen (`--effort`, `_meta`, the effort option); `None`: the model's own.
    effort: Option<String>,
    /// The config options the editor was told, and the session answer waiting for them.
    announced: Announced,
    /// Fast mode and ultracode.
    toggles: Toggles,
    /// claude's custom agents (its `initialize` reply); empty when it has none or has not said.
    agents: Vec<AgentInfo>,
    /// The agent the main thread runs as (`--agent`, `_meta`, the agent option); `None`: claude's
    /// standard agent.
    agent: Option<String>,
    /// The "File edits" setting; `None` where the editor cannot serve files.
    pub(super) file_edits: Option<ServedBy>,
    /// The "Terminal" setting; `None` where the editor declared no terminal.
    pub(super) terminal: Option<ServedBy>,
    /// The mode as the permission asker reads it.
    asker_mode: Arc<Mutex<String>>,
    tell: Tell<Done>,
}

/// What a session's settings start from.
pub(super) struct Initial {
    pub(super) mode: String,
    pub(super) models: Vec<ModelInfo>,
    pub(super) switches: Switches,
    pub(super) file_edits: Option<ServedBy>,
    pub(super) terminal: Option<ServedBy>,
}

impl Settings {
    pub(super) fn new(
        initial: Initial,
        flags: &SessionFlags,
        asker_mode: Arc<Mutex<String>>,
        tell: Tell<Done>,
    ) -> Self {
        let Initial {
            mode,
            models,
            switches,
            file_edits,
            terminal,
        } = initial;
        Self {
            mode,
            mode_touched: false,
            claude_models: models.clone(),
            models,
            narrowed: false,
            model: flags.value_of("--model").map(str::to_owned),
            effort: flags.value_of("--effort").map(str::to_owned),
            announced: Announced::default(),
            toggles: Toggles {
                fast: switches.fast,
                ultracode: switches.ultracode,
                ..Toggles::default()
            },
            agents: Vec::new(),
            agent: flags.value_of("--agent").map(str::to_owned),
            file_edits,
            terminal,
            asker_mode,
            tell,
        }
    }

    /// The model claude runs: the one chosen, else claude's first (its default).
    fn current_model(&self) -> Option<String> {
        self.model
            .clone()
            .or_else(|| self.models.first().map(|m| m.value.clone()))
    }

    /// The current model's entry in claude's list, when known.
    fn current_model_info(&self) -> Option<&ModelInfo> {
        let current = self.current_model()?;
        self.models.iter().find(|m| m.value == current)
    }

    /// claude runs `model` (its resolved id, or an alias): the choice follows unless the current
    /// one already resolves to it (`default` and `opus` may be the same model).
    /// Returns the new choice, if it changed.
    fn follow_model(&mut self, model: &str) -> Option<String> {
        let runs = |m: &ModelInfo| m.value == model || m.resolved_model.as_deref() == Some(model);
        if self.current_model_info().is_some_and(runs) {
            return None;
        }
        let found = self.models.iter().find(|m| runs(m))?.value.clone();
        self.model = Some(found.clone());
        Some(found)
    }

    /// What the session changed since it opened goes on the command line of a restarted claude:
    /// the mode (set by the editor, or by claude itself after ExitPlanMode or a permission answer).
    pub(super) fn carry_into_flags(&self, flags: &mut SessionFlags) {
        if self.mode_touched {
            flags.set("--permission-mode", &self.mode);
        }
    }

    /// Checks a mode change (`session/set_mode`, or the `mode` config option) before claude is
    /// woken for it.
    pub(super) fn check_mode(&self, ctx: &SessionContext, mode: &str) -> Result<(), AgentError> {
        let offered = self.offered_modes(ctx);
        if !modes::is_known(mode, offered) {
            let known: Vec<String> = modes::available(offered)
                .into_iter()
                .map(|m| m.id)
                .collect();
            return Err(AgentError::InvalidParams(format!(
                "unknown mode `{mode}` (this session offers: {})",
                known.join(", ")
            )));
        }
        Ok(())
    }

    /// Starts a mode change (checked): claude is asked, and its answer comes back as
    /// [`Done::Changed`]. With no claude running it takes effect at once.
    pub(super) fn set_mode(
        &mut self,
        ctx: &mut SessionContext,
        mode: String,
        claude: Option<ClaudeHandle>,
        reply: SettingReply,
    ) {
        match claude {
            Some(handle) => {
                let request = OutboundControl::SetPermissionMode { mode: mode.clone() };
                self.await_setting(handle, request, Setting::Mode(mode), reply);
            }
            None => {
                ctx.flags.set("--permission-mode", &mode);
                self.mode_changed(ctx, mode);
                self.reply_setting(ctx, reply);
            }
        }
    }

    /// Checks a model change (the `model` config option) before claude is started for it.
    pub(super) fn check_model(&self, model: &str) -> Result<(), AgentError> {
        if (self.narrowed || !self.models.is_empty())
            && !self.models.iter().any(|m| m.value == model)
        {
            let known: Vec<&str> = self.models.iter().map(|m| m.value.as_str()).collect();
            return Err(AgentError::InvalidParams(format!(
                "unknown model `{model}`: claude offers {}",
                known.join(", ")
            )));
        }
        Ok(())
    }

    /// Starts a model change (checked) on the running claude; answered like [`Self::set_mode`].
    pub(super) fn set_model(&self, model: String, claude: ClaudeHandle, reply: SettingReply) {
        let request = OutboundControl::SetModel {
            model: Some(model.clone()),
        };
        self.await_setting(claude, request, Setting::Model(model), reply);
    }

    /// Sends the change's control request now (so it reaches claude before anything sent after
    /// it) and waits for claude's answer in a task of its own.
    fn await_setting(
        &self,
        handle: ClaudeHandle,
        request: OutboundControl,
        setting: Setting,
        reply: SettingReply,
    ) {
        let answer = handle.request(request, CONTROL_TIMEOUT);
        let tell = self.tell.clone();
        tokio::spawn(async move {
            let answer = answer.await.map(drop);
            tell.tell(Done::Changed {
                setting,
                answer,
                reply,
            });
        });
    }

    /// What the settings' own tasks reported.
    pub(super) fn on_done(&mut self, ctx: &mut SessionContext, done: Done) {
        match done {
            Done::ClaudeSettings(reply) => self.on_claude_settings(ctx, &reply),
            Done::OptionsDeadline => self.options_known(ctx),
            Done::Changed {
                setting,
                answer,
                reply,
            } => self.setting_done(ctx, setting, answer, reply),
        }
    }

    /// claude answered a change (or failed to, in time): applied and the editor answered.
    fn setting_done(
        &mut self,
        ctx: &mut SessionContext,
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
            Setting::Mode(mode) => self.mode_changed(ctx, mode),
            Setting::Model(model) => {
                // Kept for a restarted claude, which would otherwise fall back to the default model.
                ctx.flags.set("--model", &model);
                self.model = Some(model);
            }
            Setting::Effort(level) => self.effort_set(ctx, level),
            Setting::Toggle(toggle, on) => self.toggle_set(toggle, on),
        }
        self.reply_setting(ctx, reply);
    }

    fn reply_setting(&self, ctx: &SessionContext, reply: SettingReply) {
        match reply {
            SettingReply::Mode(reply) => {
                let _ = reply.send(Ok(()));
            }
            SettingReply::ConfigOption(reply) => {
                let _ = reply.send(Ok(self.config_options(ctx)));
            }
        }
    }

    /// Tells the editor in both forms clients read: the mode update and the config options.
    pub(super) fn mode_changed(&mut self, ctx: &SessionContext, mode: String) {
        self.mode_touched = true;
        if self.mode == mode {
            return;
        }
        self.mode = mode.clone();
        *self.asker_mode.lock().unwrap_or_else(|p| p.into_inner()) = mode.clone();
        ctx.tell_editor(SessionUpdate::CurrentMode { mode_id: mode });
        self.announce_options(ctx);
    }

    /// claude's answer to `initialize`: its models, agents, Fast mode and starting mode.
    pub(super) fn on_initialized(
        &mut self,
        ctx: &mut SessionContext,
        reply: &Value,
        claude: Option<ClaudeHandle>,
    ) {
        if let Some(state) = reply.get("fast_mode_state").and_then(Value::as_str) {
            let reason = reply
                .get("fast_mode_disabled_reason")
                .and_then(Value::as_str);
            self.fast_mode_reported(ctx, state, reason);
        }
        self.agents = AgentInfo::from_initialize_reply(reply);
        let models = ModelInfo::from_initialize_reply(reply);
        if !models.is_empty() {
            self.remember_models(ctx, reply, &models);
            self.claude_models = models;
            self.offer_models(ctx, ClaudeModel::Tell, claude);
        }
        // claude's starting mode counts only until anyone (the editor, claude) has changed it: the
        // reply may arrive after an early `session/set_mode`.
        if let Some(mode) = reply.get("current_permission_mode").and_then(Value::as_str)
            && !self.mode_touched
            && modes::is_known(mode, modes::Offered::ALL)
            && mode != self.mode
        {
            self.mode = mode.to_owned();
            self.mode_touched = true;
            if self.options_announced() {
                ctx.tell_editor(SessionUpdate::CurrentMode {
                    mode_id: mode.to_owned(),
                });
            }
        }
        self.options_known(ctx);
    }

    /// Offers claude's models the route serves (all of them, unless a gateway listed its own).
    /// When that leaves out the model the session runs, it moves to the first model offered, as
    /// the TypeScript adapter does: the next claude starts on it, and `tell` a running one.
    pub(super) fn offer_models(
        &mut self,
        ctx: &mut SessionContext,
        tell: ClaudeModel,
        claude: Option<ClaudeHandle>,
    ) {
        let claude_models = &self.claude_models;
        let offered = ctx.config.route.offered_models(claude_models);
        self.narrowed = offered.is_some();
        self.models = offered.unwrap_or_else(|| claude_models.clone());
        let running = self
            .model
            .clone()
            .or_else(|| claude_models.first().map(|m| m.value.clone()));
        let models = &self.models;
        let (Some(running), Some(first)) = (running, models.first()) else {
            return;
        };
        if models.iter().any(|m| m.value == running) {
            return;
        }
        let first = first.value.clone();
        tracing::info!(session = %ctx.id, dropped = %running, model = %first,
            "the gateway does not list the session's model; moving to the first it lists");
        ctx.flags.set("--model", &first);
        self.model = Some(first.clone());
        if let (ClaudeModel::Tell, Some(handle)) = (tell, claude) {
            let request = OutboundControl::SetModel { model: Some(first) };
            tokio::spawn(async move {
                if let Err(e) = handle.request(request, CONTROL_TIMEOUT).await {
                    tracing::info!("claude did not take the gateway's model: {e}");
                }
            });
        }
    }

    /// Keeps claude's models for the next session's answer (the file is written off the loop).
    fn remember_models(&self, ctx: &SessionContext, reply: &Value, models: &[ModelInfo]) {
        let Ok(command) = ctx.config.claude.clone() else {
            return;
        };
        let version = reply
            .get("claude_code_version")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let (cache, models) = (ctx.config.options_cache.clone(), models.to_vec());
        tokio::task::spawn_blocking(move || cache.remember(&command, version.as_deref(), &models));
    }

    /// Asks claude for its settings as in force; the answer comes back as
    /// [`Done::ClaudeSettings`].
    pub(super) fn read_claude_settings(&self, claude: Option<ClaudeHandle>) {
        let Some(handle) = claude else {
            return;
        };
        let answer = handle.request(OutboundControl::GetSettings, CONTROL_TIMEOUT);
        let tell = self.tell.clone();
        tokio::spawn(async move {
            if let Ok(reply) = answer.await {
                tell.tell(Done::ClaudeSettings(reply));
            }
        });
    }

    /// How a claude just started reports its `get_settings` answer here.
    pub(super) fn claude_settings_reader(&self) -> impl Fn(Value) + Send + 'static {
        let tell = self.tell.clone();
        move |reply| tell.tell(Done::ClaudeSettings(reply))
    }

    /// claude's `get_settings` answer: whether ultracode can run, and the model in force (a
    /// `/model` typed in the prompt changes it behind the editor's back).
    fn on_claude_settings(&mut self, ctx: &mut SessionContext, reply: &Value) {
        let applied = &reply["applied"];
        if let Some(available) = applied["ultracodeAvailable"].as_bool() {
            self.toggles.ultracode_available = Some(available);
        }
        if let Some(model) = applied["model"].as_str().and_then(|m| self.follow_model(m)) {
            // Kept for a restarted claude, as a change from the editor is.
            ctx.flags.set("--model", &model);
        }
        self.options_known(ctx);
    }
}
