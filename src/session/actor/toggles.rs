//! Fast mode and ultracode: on/off config options offered where claude says the current model
//! has them, set on the running claude through its flag-settings layer (no restart), given again
//! to every claude the session starts, and following claude when it turns Fast mode off itself;
//! and what claude's `get_settings` says (ultracode's availability, the model a `/model` in the
//! prompt chose).

use serde_json::Value;

use super::settings::{Setting, SettingReply, Settings};
use super::{CONTROL_TIMEOUT, Internal, SessionActor};
use crate::claude::wire::OutboundControl;
use crate::domain::{AgentError, ConfigOption};
use crate::translate;

/// The config option ids, as the TypeScript adapter names them.
pub(super) const FAST_ID: &str = "fast";
pub(super) const ULTRACODE_ID: &str = "ultracode";

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

    pub(super) fn name(self) -> &'static str {
        match self {
            Toggle::Fast => "Fast mode",
            Toggle::Ultracode => "ultracode",
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
pub(super) struct Toggles {
    pub(super) fast: bool,
    pub(super) ultracode: bool,
    /// claude's `ultracodeAvailable` (its `get_settings`): `None` until claude said.
    pub(super) ultracode_available: Option<bool>,
    /// Why claude last said Fast mode cannot serve, where that is worth showing.
    pub(super) fast_unavailable: Option<&'static str>,
}

impl Settings {
    fn fast_offered(&self) -> bool {
        self.current_model_info()
            .is_some_and(|m| m.supports_fast_mode)
    }

    /// Offered while claude says ultracode can run; before it has said, where the model takes
    /// `xhigh` effort (claude checks both alike).
    fn ultracode_offered(&self) -> bool {
        self.toggles.ultracode_available.unwrap_or_else(|| {
            self.current_model_info()
                .is_some_and(|m| m.effort_levels().iter().any(|l| l == "xhigh"))
        })
    }

    pub(super) fn toggle_options(&self, as_boolean: bool) -> Vec<ConfigOption> {
        let mut options = Vec::new();
        if self.fast_offered() {
            let mut description = "Faster responses on supported models".to_owned();
            if let Some(why) = self.toggles.fast_unavailable.filter(|_| !self.toggles.fast) {
                description = format!("{description} ({why})");
            }
            options.push(ConfigOption::toggle(
                FAST_ID,
                "Fast mode",
                description,
                self.toggles.fast,
                as_boolean,
            ));
        }
        if self.ultracode_offered() {
            options.push(ConfigOption::toggle(
                ULTRACODE_ID,
                "Ultracode",
                "Dynamic workflows on every task, at any effort level".into(),
                self.toggles.ultracode,
                as_boolean,
            ));
        }
        options
    }

    /// The toggles as they stand, for a session opened over this one.
    pub(super) fn switches(&self) -> Switches {
        Switches {
            fast: self.toggles.fast,
            ultracode: self.toggles.ultracode,
        }
    }

    /// The toggles that are on, as claude's settings keys, for a claude just started.
    pub(super) fn toggle_settings(&self) -> Option<Vec<(&'static str, bool)>> {
        let mut settings = Vec::new();
        if self.toggles.fast {
            settings.push((Toggle::Fast.key(), true));
        }
        if self.toggles.ultracode {
            settings.push((Toggle::Ultracode.key(), true));
        }
        (!settings.is_empty()).then_some(settings)
    }
}

impl SessionActor {
    /// Starts a Fast mode or ultracode change: the running claude is asked, and answers like a
    /// mode change; with no claude running it takes effect when the next one starts.
    pub(super) fn set_toggle(&mut self, toggle: Toggle, value: &str, reply: SettingReply) {
        let offered = self
            .settings
            .toggle_options(false)
            .iter()
            .any(|o| o.id == toggle_id(toggle));
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
        match self.claude.handle() {
            Some(handle) => {
                let request = OutboundControl::set_switches(&[(toggle.key(), on)]);
                self.await_setting(handle, request, Setting::Toggle(toggle, on), reply);
            }
            None => {
                self.toggle_set(toggle, on);
                self.reply_setting(reply);
            }
        }
    }

    pub(super) fn toggle_set(&mut self, toggle: Toggle, on: bool) {
        match toggle {
            Toggle::Fast => {
                self.settings.toggles.fast = on;
                self.settings.toggles.fast_unavailable = None;
            }
            Toggle::Ultracode => self.settings.toggles.ultracode = on,
        }
    }

    /// claude's `fast_mode_state` (its `system/init` and a turn's `result`): claude turning Fast
    /// mode off on its own (the account, the provider, the model) turns the option off (the notice
    /// that tells the user is the translation's). A `cooldown` after a rate limit changes nothing: it comes back by itself.
    pub(super) fn fast_mode_reported(&mut self, state: &str, reason: Option<&str>) {
        if !self.settings.fast_offered() || state == "cooldown" {
            return;
        }
        let on = state == "on";
        let why = if on {
            None
        } else {
            reason.and_then(translate::fast_mode_unavailable_because)
        };
        let toggles = &self.settings.toggles;
        if on == toggles.fast && why == toggles.fast_unavailable {
            return;
        }
        // The user is told by the notice of claude's own report (`translate::notices`).
        self.settings.toggles.fast = on;
        self.settings.toggles.fast_unavailable = why;
        if self.options_announced() {
            self.announce_options();
        }
    }

    /// Asks claude for its settings as in force; the answer comes back as
    /// `Internal::ClaudeSettings`.
    pub(super) fn read_claude_settings(&self) {
        let Some(handle) = self.claude.handle() else {
            return;
        };
        let answer = handle.request(OutboundControl::GetSettings, CONTROL_TIMEOUT);
        let internal = self.inbox.tx.clone();
        tokio::spawn(async move {
            if let Ok(reply) = answer.await {
                let _ = internal.send(Internal::ClaudeSettings(reply));
            }
        });
    }

    /// claude's `get_settings` answer: whether ultracode can run, and the model in force (a
    /// `/model` typed in the prompt changes it behind the editor's back).
    pub(super) fn on_claude_settings(&mut self, reply: &Value) {
        let applied = &reply["applied"];
        if let Some(available) = applied["ultracodeAvailable"].as_bool() {
            self.settings.toggles.ultracode_available = Some(available);
        }
        if let Some(model) = applied["model"]
            .as_str()
            .and_then(|m| self.settings.follow_model(m))
        {
            // Kept for a restarted claude, as a change from the editor is.
            self.ctx.flags.set("--model", &model);
        }
        self.options_known();
    }
}

fn toggle_id(toggle: Toggle) -> &'static str {
    match toggle {
        Toggle::Fast => FAST_ID,
        Toggle::Ultracode => ULTRACODE_ID,
    }
}
