//! The effort option (ACP category `thought_level`): the levels claude offers for the current
//! model, changed on the running claude through its flag-settings layer (no restart), and kept
//! as `--effort` for a claude started again (after a crash, or an idle stop).

use super::{CONTROL_TIMEOUT, SessionActor};
use crate::claude::wire::OutboundControl;
use crate::domain::{AgentError, ConfigOption, ConfigValue};

/// The value meaning "no level chosen": the model's own default.
const DEFAULT: &str = "default";

impl SessionActor {
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
        })
    }

    pub(super) async fn set_effort(&mut self, value: &str) -> Result<(), AgentError> {
        let levels = self.effort_levels();
        if value != DEFAULT && !levels.iter().any(|l| l == value) {
            return Err(AgentError::InvalidParams(format!(
                "unknown effort `{value}` for this model (expected default or one of: {})",
                levels.join(", ")
            )));
        }
        let level = (value != DEFAULT).then_some(value);
        if let Some(handle) = self.claude.handle() {
            handle
                .request(OutboundControl::set_effort(level), CONTROL_TIMEOUT)
                .await
                .map_err(|e| {
                    AgentError::Internal(format!("claude refused the effort change: {e}"))
                })?;
        }
        self.effort = level.map(str::to_owned);
        // Kept for a claude started again, which would otherwise fall back to the default.
        match level {
            Some(level) => self.flags.set("--effort", level),
            None => self.flags.remove("--effort"),
        }
        Ok(())
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
