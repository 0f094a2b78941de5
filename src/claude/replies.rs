//! The answers claude gives to our control requests that the session reads (as of the pinned CLI):
//! the models and agents of `initialize`, the context window of `get_context_usage`. Lenient like every
//! inbound shape: a field of an unexpected shape costs that field, never the answer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::lenient;

/// A model of claude's `initialize` reply (`models[]`), as the session offers it; also what the
/// options cache stores, so it serializes back under claude's own names.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct ModelInfo {
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub value: String,
    #[serde(
        default,
        rename = "displayName",
        deserialize_with = "lenient::any_shape"
    )]
    pub display_name: Option<String>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub description: Option<String>,
    #[serde(
        default,
        rename = "supportsEffort",
        deserialize_with = "lenient::any_shape"
    )]
    pub supports_effort: bool,
    #[serde(
        default,
        rename = "supportedEffortLevels",
        deserialize_with = "lenient::any_shape"
    )]
    pub supported_effort_levels: Vec<String>,
    /// Whether claude offers Fast mode on this model.
    #[serde(
        default,
        rename = "supportsFastMode",
        deserialize_with = "lenient::any_shape"
    )]
    pub supports_fast_mode: bool,
    /// Whether claude offers its `auto` permission mode on this model.
    #[serde(
        default,
        rename = "supportsAutoMode",
        deserialize_with = "lenient::any_shape"
    )]
    pub supports_auto_mode: bool,
    /// The model an alias stands for now (`opus` -> `claude-opus-5-5`).
    #[serde(
        default,
        rename = "resolvedModel",
        deserialize_with = "lenient::any_shape"
    )]
    pub resolved_model: Option<String>,
}

impl ModelInfo {
    /// The models of an `initialize` reply; entries without a `value` are skipped.
    pub fn from_initialize_reply(reply: &Value) -> Vec<ModelInfo> {
        let Some(models) = reply.get("models").and_then(Value::as_array) else {
            return Vec::new();
        };
        models
            .iter()
            .filter_map(|m| serde_json::from_value::<ModelInfo>(m.clone()).ok())
            .filter(|m| !m.value.is_empty())
            .collect()
    }

    /// The effort levels this model takes (none: it has no effort setting).
    pub fn effort_levels(&self) -> &[String] {
        if self.supports_effort {
            &self.supported_effort_levels
        } else {
            &[]
        }
    }
}

/// The agents claude ships (its built-in subagents and its catch-all), which are not a persona a
/// user picks for the main thread; `default` is the picker's own "Default" value.
const NOT_PERSONAS: &[&str] = &[
    "claude",
    "general-purpose",
    "Explore",
    "Plan",
    "statusline-setup",
    "default",
];

/// A custom agent of claude's `initialize` reply (`agents[]`: the user's `~/.claude/agents/`,
/// the project's `.claude/agents/`, plugins'), which the session can run as its main thread.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct AgentInfo {
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub name: String,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub description: Option<String>,
}

impl AgentInfo {
    /// The custom agents of an `initialize` reply: claude's own are left out, and entries
    /// without a name.
    pub fn from_initialize_reply(reply: &Value) -> Vec<AgentInfo> {
        let Some(agents) = reply.get("agents").and_then(Value::as_array) else {
            return Vec::new();
        };
        agents
            .iter()
            .filter_map(|a| serde_json::from_value::<AgentInfo>(a.clone()).ok())
            .filter(|a| !a.name.is_empty() && !NOT_PERSONAS.contains(&a.name.as_str()))
            .collect()
    }
}

/// One row of claude's `get_context_usage` answer: a category of what fills the context window.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ContextCategory {
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub name: String,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub tokens: u64,
    /// `used`, `free`, `buffer` or `deferred` (out of the window); absent from older CLIs.
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub kind: Option<String>,
}

/// claude's answer to `get_context_usage`: the context window by category.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ContextUsage {
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub categories: Vec<ContextCategory>,
    #[serde(
        default,
        rename = "totalTokens",
        deserialize_with = "lenient::any_shape"
    )]
    pub total_tokens: u64,
    #[serde(default, rename = "maxTokens", deserialize_with = "lenient::any_shape")]
    pub max_tokens: u64,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub percentage: f64,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub model: String,
}

impl ContextUsage {
    pub fn from_reply(reply: Value) -> Option<ContextUsage> {
        serde_json::from_value(reply).ok()
    }
}

#[cfg(test)]
mod agent_tests {
    use super::*;

    #[test]
    fn only_custom_agents_are_personas() {
        // The pinned claude's reply with a project agent `.claude/agents/reviewer.md`.
        let reply = serde_json::json!({"agents": [
            {"name": "claude", "description": "Catch-all"},
            {"name": "Explore", "description": "Fast read-only search", "model": "inherit"},
            {"name": "general-purpose", "description": "General"},
            {"name": "Plan", "description": "Architect", "model": "inherit"},
            {"name": "reviewer", "description": "Reviews diffs for bugs"},
            {"name": "statusline-setup", "description": "Status line"},
            {"name": "default"},
            {"description": "no name"},
            {"name": "terse", "description": 7}
        ]});
        let names: Vec<(String, Option<String>)> = AgentInfo::from_initialize_reply(&reply)
            .into_iter()
            .map(|a| (a.name, a.description))
            .collect();
        assert_eq!(
            names,
            [
                (
                    "reviewer".to_owned(),
                    Some("Reviews diffs for bugs".to_owned())
                ),
                ("terse".to_owned(), None)
            ]
        );
        assert!(AgentInfo::from_initialize_reply(&serde_json::json!({})).is_empty());
    }
}
