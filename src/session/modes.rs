//! claude's permission modes as ACP session modes and as the "mode" config option.

use crate::domain::{ConfigOption, ConfigValue, ModeState, SessionMode};

const MODES: &[(&str, &str, &str)] = &[
    (
        "default",
        "Default",
        "Ask before each tool that needs permission",
    ),
    (
        "acceptEdits",
        "Accept Edits",
        "Edits in the workspace are allowed without asking",
    ),
    ("plan", "Plan", "Explore and plan; no edits or commands"),
    (
        "bypassPermissions",
        "Bypass Permissions",
        "Every tool runs without asking",
    ),
];

pub(crate) fn available(allow_bypass: bool) -> Vec<SessionMode> {
    MODES
        .iter()
        .filter(|(id, ..)| allow_bypass || *id != "bypassPermissions")
        .map(|(id, name, description)| SessionMode {
            id: (*id).into(),
            name: (*name).into(),
            description: Some((*description).into()),
        })
        .collect()
}

pub(crate) fn is_known(mode: &str, allow_bypass: bool) -> bool {
    available(allow_bypass).iter().any(|m| m.id == mode)
}

pub(crate) fn state(current: &str, allow_bypass: bool) -> ModeState {
    ModeState {
        current: current.into(),
        available: available(allow_bypass),
    }
}

pub(crate) fn config_option(current: &str, allow_bypass: bool) -> ConfigOption {
    ConfigOption {
        id: "mode".into(),
        name: "Mode".into(),
        description: Some("How claude asks before it acts".into()),
        category: Some("mode".into()),
        current: current.into(),
        values: available(allow_bypass)
            .into_iter()
            .map(|m| ConfigValue {
                id: m.id,
                name: m.name,
                description: m.description,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bypass_is_offered_only_where_claude_accepts_it() {
        assert!(is_known("bypassPermissions", true));
        assert!(!is_known("bypassPermissions", false));
        assert_eq!(config_option("plan", false).values.len(), 3);
    }
}
