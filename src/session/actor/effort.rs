//! The effort option (ACP category `thought_level`): the levels claude offers for the current
//! model, changed on the running claude through its flag-settings layer (no restart), and kept
//! as `--effort` for a claude started again (after a crash, or an idle stop).

use super::SessionActor;
use super::settings::{Setting, SettingReply, Settings};
use crate::claude::wire::OutboundControl;
use crate::domain::{AgentError, ConfigOption, ConfigValue};

/// The value meaning "no level chosen": the model's own default.
const DEFAULT: &str = "default";

impl Settings {
    /// The levels the current model takes (empty: it has no effort setting, or is unknown).
    fn effort_levels(&self) -> Vec<String> {
        let Some(current) = self.current_model() else {
            return Vec::new();
        };
        self.models
            .iter()
            .find(|m| m.value == current)
            .map(|m| m.effort_levels().to_vec())
            .unwrap_or_default()
    }

    pub(super) fn effort_option(&self) -> Option<ConfigOption> {
        let levels = self.effort_levels();
        if levels.is_empty() {
            return None;
        }
        let current = self
            .effort
            .clone()
            .filter(|e| levels.contains(e))
            .unwrap_or_else(|| DEFAULT.into());
        let mut values = vec![ConfigValue {
            id: DEFAULT.into(),
            name: "Default".into(),
            description: Some("The model's own effort level".into()),
        }];
        values.extend(levels.into_iter().map(|level| ConfigValue {
            name: capitalized(&level),
            id: level,
            description: None,
        }));
        Some(ConfigOption {
            id: "effort".into(),
            name: "Effort".into(),
            description: Some("How much the model thinks before it answers".into()),
            category: Some("thought_level".into()),
            current,
            values,
            boolean: false,
        })
    }
}

impl SessionActor {
    /// Starts an effort change (the `effort` config option): the running claude is asked through
    /// its flag-settings layer and answers like a mode change; with no claude running it takes
    /// effect at once (the next claude starts with `--effort`).
    pub(super) fn set_effort(&mut self, value: String, reply: SettingReply) {
        let levels = self.settings.effort_levels();
        if value != DEFAULT && !levels.contains(&value) {
            reply.send_error(AgentError::InvalidParams(format!(
                "unknown effort `{value}` for this model (expected default or one of: {})",
                levels.join(", ")
            )));
            return;
        }
        let level = (value != DEFAULT).then_some(value);
        match self.claude.handle() {
            Some(handle) => {
                let request = OutboundControl::set_effort(level.as_deref());
                self.await_setting(handle, request, Setting::Effort(level), reply);
            }
            None => {
                self.effort_set(level);
                self.reply_setting(reply);
            }
        }
    }

    /// The effort is in force: kept for a claude started again, which would otherwise fall back
    /// to the model's default.
    pub(super) fn effort_set(&mut self, level: Option<String>) {
        match &level {
            Some(level) => self.ctx.flags.set("--effort", level),
            None => self.ctx.flags.remove("--effort"),
        }
        self.settings.effort = level;
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
