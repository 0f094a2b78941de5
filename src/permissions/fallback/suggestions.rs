//! The "always allow" suggestions claude gives on its stdio channel but not to an MCP permission
//! tool, rebuilt from the ask, so a prompt over MCP offers the same "always" option as over stdio.
//!
//! Only the two suggestions the pinned claude makes most, in its own shape (transcripts b, l): accept
//! edits for the session on a file edit, and a rule for the exact Bash command in the project's
//! `.claude/settings.local.json`. claude applies `updatedPermissions` of an MCP allow reply the same
//! way as on stdio. Other tools get none, so they offer allow once / reject as before.

use serde_json::Value;

use crate::claude::wire::{PermissionRule, PermissionUpdate, UpdateKind};

/// What claude would suggest for "always allow" of `tool_name` with `input`.
pub(crate) fn always_allow_suggestions(tool_name: &str, input: &Value) -> Vec<PermissionUpdate> {
    match tool_name {
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
            vec![PermissionUpdate::set_mode_for_session("acceptEdits")]
        }
        "Bash" | "PowerShell" => input
            .get("command")
            .and_then(Value::as_str)
            .filter(|command| !command.trim().is_empty())
            .map(|command| {
                vec![PermissionUpdate::new(UpdateKind::AddRules {
                    rules: vec![PermissionRule {
                        tool_name: tool_name.to_owned(),
                        rule_content: Some(command.to_owned()),
                    }],
                    behavior: "allow".to_owned(),
                    destination: "localSettings".to_owned(),
                })]
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The suggestions as claude reads them.
    fn suggested(tool_name: &str, input: Value) -> Vec<Value> {
        always_allow_suggestions(tool_name, &input)
            .iter()
            .map(|update| serde_json::to_value(update).unwrap())
            .collect()
    }

    #[test]
    fn an_edit_suggests_accepting_edits_for_the_session() {
        let suggestions = suggested("Edit", json!({"file_path": "/w/a.rs"}));
        assert_eq!(
            suggestions,
            [json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"})]
        );
    }

    #[test]
    fn a_command_suggests_a_rule_for_exactly_that_command() {
        let suggestions = suggested("Bash", json!({"command": "npm test"}));
        assert_eq!(
            suggestions,
            [
                json!({"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "npm test"}],
                    "behavior": "allow", "destination": "localSettings"})
            ]
        );
        assert!(always_allow_suggestions("Bash", &json!({"command": " "})).is_empty());
    }

    #[test]
    fn other_tools_get_no_suggestion() {
        assert!(always_allow_suggestions("WebFetch", &json!({"url": "https://x"})).is_empty());
        assert!(always_allow_suggestions("AskUserQuestion", &json!({})).is_empty());
    }
}
