//! The choices made through config options alone:
//! - the effort: the levels claude offers for the current model, changed on the running claude
//!   through its flag-settings layer (no restart), and kept as `--effort` for a claude started
//!   again (after a crash, or an idle stop);
//! - Fast mode and ultracode: offered where claude says the current model has them, set on the
//!   running claude through its flag-settings layer, given again to every claude the session
//!   starts, and following claude when it turns Fast mode off itself;
//! - the agent: the main thread run as one of the user's or the project's custom agents
//!   (`~/.claude/agents/`, `.claude/agents/`, as claude's `initialize` reply lists them), or as
//!   claude's standard agent ("Default"). The agent is the conversation's, fixed when it begins
//!   (seen with the pinned claude on the mock API: it accepts `apply_flag_settings {agent}` but its
//!   model requests do not change, and a `--resume`d conversation keeps its first agent whatever
//!   `--agent` says). So the agent is picked before the first prompt: claude, started with the
//!   session, is started again with `--agent`;
//! - "File edits" and "Terminal", which claude takes only at its start.

use super::{DEFAULT_AGENT, DEFAULT_EFFORT, Setting, SettingReply, Settings, Switches, Toggle};
use crate::claude::ClaudeHandle;
use crate::claude::wire::OutboundControl;
use crate::domain::{AgentError, ConfigOption};
use crate::editor_tools::setting::{FILE_EDITS, ToolSetting};
use crate::translate;

use super::SessionContext;

impl Settings {
    /// Starts an effort change (the `effort` config option): the running claude is asked through
    /// its flag-settings layer and answers like a mode change; with no claude running it takes
    /// effect at once (the next claude starts with `--effort`).
    pub(in crate::session::actor) fn set_effort(
        &mut self,
        ctx: &mut SessionContext,
        value: String,
        claude: Option<ClaudeHandle>,
        reply: SettingReply,
    ) {
        let levels = self.effort_levels();
        if value != DEFAULT_EFFORT && !levels.contains(&value) {
            reply.send_error(AgentError::InvalidParams(format!(
                "unknown effort `{value}` for this model (expected default or one of: {})",
                levels.join(", ")
            )));
            return;
        }
        let level = (value != DEFAULT_EFFORT).then_some(value);
        match claude {
            Some(handle) => {
                let request = OutboundControl::set_effort(level.as_deref());
                self.await_setting(handle, request, Setting::Effort(level), reply);
            }
            None => {
                self.effort_set(ctx, level);
                self.reply_setting(ctx, reply);
            }
        }
    }

    /// The effort is in force: kept for a claude started again, which would otherwise fall back
    /// to the model's default.
    pub(in crate::session::actor) fn effort_set(
        &mut self,
        ctx: &mut SessionContext,
        level: Option<String>,
    ) {
        match &level {
            Some(level) => ctx.flags.set("--effort", level),
            None => ctx.flags.remove("--effort"),
        }
        self.effort = level;
    }

    /// Starts a Fast mode or ultracode change: the running claude is asked, and answers like a
    /// mode change; with no claude running it takes effect when the next one starts.
    pub(in crate::session::actor) fn set_toggle(
        &mut self,
        ctx: &SessionContext,
        toggle: Toggle,
        value: &str,
        claude: Option<ClaudeHandle>,
        reply: SettingReply,
    ) {
        let offered = self
            .toggle_options(false, false)
            .iter()
            .any(|o| o.id == toggle.id());
        if !offered {
            reply.send_error(AgentError::InvalidParams(format!(
                "{} is not available for this model",
                toggle.name()
            )));
            return;
        }
        let Some(on) = ConfigOption::toggle_value(value) else {
            reply.send_error(AgentError::InvalidParams(format!(
                "{} takes on or off (or a boolean), got `{value}`",
                toggle.name()
            )));
            return;
        };
        match claude {
            Some(handle) => {
                let request = OutboundControl::set_switches(&[(toggle.key(), on)]);
                self.await_setting(handle, request, Setting::Toggle(toggle, on), reply);
            }
            None => {
                self.toggle_set(toggle, on);
                self.reply_setting(ctx, reply);
            }
        }
    }

    pub(in crate::session::actor) fn toggle_set(&mut self, toggle: Toggle, on: bool) {
        match toggle {
            Toggle::Fast => {
                self.toggles.fast = on;
                self.toggles.fast_unavailable = None;
            }
            Toggle::Ultracode => self.toggles.ultracode = on,
        }
    }

    /// claude's `fast_mode_state` (its `system/init` and a turn's `result`): claude turning Fast
    /// mode off on its own (the account, the provider, the model) turns the option off (the notice
    /// that tells the user is the translation's). A `cooldown` after a rate limit changes nothing: it comes back by itself.
    pub(in crate::session::actor) fn fast_mode_reported(
        &mut self,
        ctx: &SessionContext,
        state: &str,
        reason: Option<&str>,
    ) {
        if !self.fast_offered() || state == "cooldown" {
            return;
        }
        let on = state == "on";
        let why = if on {
            None
        } else {
            reason.and_then(translate::fast_mode_unavailable_because)
        };
        let toggles = &self.toggles;
        if on == toggles.fast && why == toggles.fast_unavailable {
            return;
        }
        // The user is told by the notice of claude's own report (`translate::notices`).
        self.toggles.fast = on;
        self.toggles.fast_unavailable = why;
        if self.options_announced() {
            self.announce_options(ctx);
        }
    }

    /// The toggles as they stand, for a session opened over this one.
    pub(in crate::session::actor) fn switches(&self) -> Switches {
        Switches {
            fast: self.toggles.fast,
            ultracode: self.toggles.ultracode,
        }
    }

    /// The toggles that are on, as claude's settings keys, for a claude just started.
    pub(in crate::session::actor) fn toggle_settings(&self) -> Option<Vec<(&'static str, bool)>> {
        let mut settings = Vec::new();
        if self.toggles.fast {
            settings.push((Toggle::Fast.key(), true));
        }
        if self.toggles.ultracode {
            settings.push((Toggle::Ultracode.key(), true));
        }
        (!settings.is_empty()).then_some(settings)
    }

    /// Picks the agent of a conversation not begun yet (`begun`: claude stored it, or the session
    /// opened on one); returns whether it changed, so that the running claude is stopped and the
    /// first prompt starts one with `--agent`.
    pub(in crate::session::actor) fn set_agent(
        &mut self,
        ctx: &mut SessionContext,
        value: &str,
        begun: bool,
    ) -> Result<bool, AgentError> {
        let agent = match value {
            DEFAULT_AGENT => None,
            name if self.agents.iter().any(|a| a.name == name) => Some(name.to_owned()),
            _ => {
                let known: Vec<&str> = std::iter::once(DEFAULT_AGENT)
                    .chain(self.agents.iter().map(|a| a.name.as_str()))
                    .collect();
                return Err(AgentError::InvalidParams(format!(
                    "unknown agent `{value}`: claude offers {}",
                    known.join(", ")
                )));
            }
        };
        if agent == self.agent {
            return Ok(false);
        }
        if begun {
            return Err(AgentError::InvalidParams(
                "claude keeps the agent a conversation began with: pick the agent before the \
                 first prompt, or in a new session"
                    .into(),
            ));
        }
        match &agent {
            Some(name) => ctx.flags.set("--agent", name),
            None => ctx.flags.remove("--agent"),
        }
        self.agent = agent;
        Ok(true)
    }

    /// Switches "File edits" or "Terminal"; returns whether it changed (claude takes the tools
    /// only at a start).
    pub(in crate::session::actor) fn set_tool_setting(
        &mut self,
        setting: &ToolSetting,
        value: &str,
    ) -> Result<bool, AgentError> {
        let slot = match setting.option_id == FILE_EDITS.option_id {
            true => &mut self.file_edits,
            false => &mut self.terminal,
        };
        let new = setting.change(*slot, value)?;
        if *slot == Some(new) {
            return Ok(false);
        }
        *slot = Some(new);
        Ok(true)
    }
}
