//! Permission updates, both ways: the `permission_suggestions` of claude's `can_use_tool` and the
//! `updatedPermissions` of our allow reply, and the reply itself ([`PermissionDecision`]).
//!
//! An "always allow" hands claude's own suggestions back unchanged, so an update keeps the JSON
//! it was read from; the kinds this adapter understands are also read into [`UpdateKind`].

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// The answer to `can_use_tool`. claude rejects a deny without a message and, in some versions,
/// an allow without `updatedInput`, so both are required here.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "behavior", rename_all = "snake_case")]
pub enum PermissionDecision {
    Allow {
        #[serde(rename = "updatedInput")]
        updated_input: Value,
        #[serde(rename = "updatedPermissions", skip_serializing_if = "Vec::is_empty")]
        updated_permissions: Vec<PermissionUpdate>,
    },
    Deny {
        message: String,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        interrupt: bool,
    },
}

/// Who decided a `can_use_tool` answer (the agent SDK's `PermissionDecisionClassification`):
/// claude keeps it in the call's record. A person's answer as they gave it; `Config` for one the
/// host decided by itself (a mode, a rule) with nobody asked. Unset, claude infers a person's
/// answer (temporary for an allow, a reject for a deny).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionClassification {
    UserTemporary,
    UserPermanent,
    UserReject,
    Config,
}

impl PermissionDecision {
    /// [`PermissionDecision::into_value`] with who decided it, if known.
    pub fn into_value_by(self, by: Option<DecisionClassification>) -> Value {
        let mut reply = self.into_value();
        if let Some(by) = by {
            reply["decisionClassification"] =
                serde_json::to_value(by).expect("a classification serializes");
        }
        reply
    }

    /// The decision as the payload of claude's control response.
    pub fn to_value(&self) -> Value {
        // Strings, bools and JSON values only: serializing cannot fail.
        serde_json::to_value(self).expect("a permission decision serializes")
    }

    /// [`PermissionDecision::to_value`] that moves `updatedInput` in rather than copying it (a
    /// Write's input holds the whole file).
    pub fn into_value(self) -> Value {
        match self {
            PermissionDecision::Allow {
                updated_input,
                updated_permissions,
            } => {
                let mut reply = PermissionDecision::Allow {
                    updated_input: Value::Null,
                    updated_permissions,
                }
                .to_value();
                reply["updatedInput"] = updated_input;
                reply
            }
            deny => deny.to_value(),
        }
    }
}

/// One permission update, as claude wrote it (or as we built it).
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionUpdate {
    json: Value,
    kind: Option<UpdateKind>,
}

/// The updates this adapter reads (the pinned claude's names). `destination` is where claude keeps
/// it: `session`, `cliArg`, `localSettings`, `projectSettings` or `userSettings` (empty when
/// claude named none: such an update is described nowhere and kept nowhere by us).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum UpdateKind {
    AddRules {
        rules: Vec<PermissionRule>,
        #[serde(default = "allow")]
        behavior: String,
        #[serde(default)]
        destination: String,
    },
    SetMode {
        mode: String,
        #[serde(default)]
        destination: String,
    },
    AddDirectories {
        directories: Vec<String>,
        #[serde(default)]
        destination: String,
    },
}

fn allow() -> String {
    "allow".to_owned()
}

/// A rule: a tool, and the input pattern it applies to (none: every call of the tool).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionRule {
    #[serde(rename = "toolName")]
    pub tool_name: String,
    #[serde(
        rename = "ruleContent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub rule_content: Option<String>,
}

impl PermissionUpdate {
    pub fn new(kind: UpdateKind) -> Self {
        // Strings only: serializing cannot fail.
        let json = serde_json::to_value(&kind).expect("a permission update serializes");
        PermissionUpdate {
            json,
            kind: Some(kind),
        }
    }

    /// Switch claude's permission mode, for this session.
    pub fn set_mode_for_session(mode: &str) -> Self {
        Self::new(UpdateKind::SetMode {
            mode: mode.to_owned(),
            destination: "session".to_owned(),
        })
    }

    /// What the update does, when it is of a kind this adapter reads.
    pub fn kind(&self) -> Option<&UpdateKind> {
        self.kind.as_ref()
    }

    /// Whether claude keeps it for this session only (not in a settings file).
    pub fn is_for_session(&self) -> bool {
        matches!(
            self.json.get("destination").and_then(Value::as_str),
            Some("session" | "cliArg")
        )
    }
}

impl UpdateKind {
    pub fn destination(&self) -> &str {
        match self {
            UpdateKind::AddRules { destination, .. }
            | UpdateKind::SetMode { destination, .. }
            | UpdateKind::AddDirectories { destination, .. } => destination,
        }
    }
}

/// The `permissions` part of claude's flag settings (`apply_flag_settings`): a list that is sent
/// replaces claude's, so empty ones are left out rather than sent empty.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct PermissionSettings {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    #[serde(
        rename = "additionalDirectories",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub additional_directories: Vec<String>,
}

impl PermissionSettings {
    /// `{"permissions": {...}}`, the flag settings that put these lists in force.
    pub fn to_flag_settings(&self) -> Value {
        #[derive(Serialize)]
        struct FlagSettings<'a> {
            permissions: &'a PermissionSettings,
        }
        // Lists of strings only: serializing cannot fail.
        serde_json::to_value(FlagSettings { permissions: self })
            .expect("permission settings serialize")
    }
}

impl Serialize for PermissionUpdate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.json.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for PermissionUpdate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Value::deserialize(deserializer)?;
        let kind = UpdateKind::deserialize(&json).ok();
        Ok(PermissionUpdate { json, kind })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_suggestion_goes_back_to_claude_exactly_as_it_came() {
        let suggestion = json!({"type": "addRules", "rules": [{"toolName": "Bash",
            "ruleContent": "npm test:*"}], "behavior": "allow", "destination": "localSettings",
            "newField": 1});
        let update: PermissionUpdate = serde_json::from_value(suggestion.clone()).unwrap();
        assert_eq!(serde_json::to_value(&update).unwrap(), suggestion);
        let Some(UpdateKind::AddRules { rules, .. }) = update.kind() else {
            panic!("{update:?}")
        };
        assert_eq!(rules[0].rule_content.as_deref(), Some("npm test:*"));

        let unknown = json!({"type": "replaceRules", "rules": [], "destination": "session"});
        let update: PermissionUpdate = serde_json::from_value(unknown.clone()).unwrap();
        assert_eq!(update.kind(), None);
        assert!(update.is_for_session());
        assert_eq!(serde_json::to_value(&update).unwrap(), unknown);
    }

    #[test]
    fn flag_settings_leave_out_empty_lists() {
        let settings = PermissionSettings {
            deny: vec!["Bash(rm:*)".into()],
            ..Default::default()
        };
        assert_eq!(
            settings.to_flag_settings(),
            json!({"permissions": {"deny": ["Bash(rm:*)"]}})
        );
    }

    #[test]
    fn set_mode_is_claudes_shape() {
        assert_eq!(
            serde_json::to_value(PermissionUpdate::set_mode_for_session("acceptEdits")).unwrap(),
            json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"})
        );
    }
}
