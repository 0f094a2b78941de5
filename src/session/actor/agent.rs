//! The "Agent" config option: the main thread run as one of the user's or the project's custom
//! agents (`~/.claude/agents/`, `.claude/agents/`, as claude's `initialize` reply lists them), or
//! as claude's standard agent ("Default"). Offered only where there is one. The agent is the
//! conversation's, fixed when it begins (seen with the pinned claude on the mock API: it accepts
//! `apply_flag_settings {agent}` but its model requests do not change, and a `--resume`d
//! conversation keeps its first agent whatever `--agent` says). So the agent is picked before the
//! first prompt: claude, started with the session, is started again with `--agent`.

use super::SessionActor;
use super::settings::Settings;
use crate::domain::{AgentError, ConfigOption, ConfigValue};
use crate::session::spawn::Start;

/// The config option's id and its standard-agent value, as the TypeScript adapter names them.
pub(super) const AGENT_ID: &str = "agent";
const DEFAULT_ID: &str = "default";

impl Settings {
    pub(super) fn agent_option(&self) -> Option<ConfigOption> {
        if self.agents.is_empty() {
            return None;
        }
        let standard = ConfigValue {
            id: DEFAULT_ID.into(),
            name: "Default".into(),
            description: Some("Standard Claude Code agent".into()),
        };
        let custom = self.agents.iter().map(|a| ConfigValue {
            id: a.name.clone(),
            name: a.name.clone(),
            description: a.description.clone().filter(|d| !d.is_empty()),
        });
        // An agent given at start that claude does not list shows as the standard one.
        let current = self
            .agent
            .as_deref()
            .filter(|name| self.agents.iter().any(|a| a.name == *name))
            .unwrap_or(DEFAULT_ID);
        Some(ConfigOption {
            id: AGENT_ID.into(),
            name: "Agent".into(),
            description: Some("Main-thread agent persona".into()),
            category: None,
            current: current.into(),
            values: std::iter::once(standard).chain(custom).collect(),
            boolean: false,
        })
    }
}

impl SessionActor {
    /// Picks the agent of a conversation not begun yet: the running claude is stopped and the
    /// first prompt starts one with `--agent`.
    pub(super) fn set_agent(&mut self, value: &str) -> Result<(), AgentError> {
        let agent = match value {
            DEFAULT_ID => None,
            name if self.settings.agents.iter().any(|a| a.name == name) => Some(name.to_owned()),
            _ => {
                let known: Vec<&str> = std::iter::once(DEFAULT_ID)
                    .chain(self.settings.agents.iter().map(|a| a.name.as_str()))
                    .collect();
                return Err(AgentError::InvalidParams(format!(
                    "unknown agent `{value}`: claude offers {}",
                    known.join(", ")
                )));
            }
        };
        if agent == self.settings.agent {
            return Ok(());
        }
        if self.next.conversation_stored || !matches!(self.next.start, Start::New) {
            return Err(AgentError::InvalidParams(
                "claude keeps the agent a conversation began with: pick the agent before the \
                 first prompt, or in a new session"
                    .into(),
            ));
        }
        match &agent {
            Some(name) => self.ctx.flags.set("--agent", name),
            None => self.ctx.flags.remove("--agent"),
        }
        self.settings.agent = agent;
        self.tool_setting_changed();
        Ok(())
    }
}
