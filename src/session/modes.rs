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
        "auto",
        "Auto",
        "claude decides: a safety check of its own allows routine actions and asks or refuses risky ones",
    ),
    (
        "bypassPermissions",
        "Bypass Permissions",
        "Every tool runs without asking",
    ),
];

/// Which of claude's modes this session may offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Offered {
    /// `bypassPermissions`: claude refuses it when running as root (outside a sandbox).
    pub(crate) bypass: bool,
    /// `auto`: only where claude says the current model supports it (`supportsAutoMode`).
    pub(crate) auto: bool,
}

impl Offered {
    /// Every mode: to recognise what claude itself reports.
    pub(crate) const ALL: Offered = Offered {
        bypass: true,
        auto: true,
    };
}

pub(crate) fn available(offered: Offered) -> Vec<SessionMode> {
    MODES
        .iter()
        .filter(|(id, ..)| match *id {
            "bypassPermissions" => offered.bypass,
            "auto" => offered.auto,
            _ => true,
        })
        .map(|(id, name, description)| SessionMode {
            id: (*id).into(),
            name: (*name).into(),
            description: Some((*description).into()),
        })
        .collect()
}

pub(crate) fn is_known(mode: &str, offered: Offered) -> bool {
    available(offered).iter().any(|m| m.id == mode)
}

pub(crate) fn state(current: &str, offered: Offered) -> ModeState {
    ModeState {
        current: current.into(),
        available: available(offered),
    }
}

pub(crate) fn config_option(current: &str, offered: Offered) -> ConfigOption {
    ConfigOption {
        id: "mode".into(),
        name: "Mode".into(),
        description: Some("How claude asks before it acts".into()),
        category: Some("mode".into()),
        current: current.into(),
        values: available(offered)
            .into_iter()
            .map(|m| ConfigValue {
                id: m.id,
                name: m.name,
                description: m.description,
            })
            .collect(),
        boolean: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bypass_and_auto_are_offered_only_where_claude_accepts_them() {
        let none = Offered {
            bypass: false,
            auto: false,
        };
        assert!(is_known("bypassPermissions", Offered::ALL));
        assert!(!is_known("bypassPermissions", none));
        assert!(!is_known("auto", none));
        assert_eq!(config_option("plan", none).values.len(), 3);
        let auto = Offered {
            bypass: false,
            auto: true,
        };
        let ids: Vec<String> = available(auto).into_iter().map(|m| m.id).collect();
        assert_eq!(ids, ["default", "acceptEdits", "plan", "auto"]);
    }
}
