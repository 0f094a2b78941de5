//! The "always allow" suggestions claude gives on its stdio channel but not to an MCP permission
//! tool, rebuilt from the ask, so a prompt over MCP offers the same "always" option as over stdio.
//!
//! Only the two suggestions claude 2.1.332 makes most, in its own shape (transcripts b, l): accept
//! edits for the session on a file edit, and a rule for the exact Bash command in the project's
//! `.claude/settings.local.json`. claude applies `updatedPermissions` of an MCP allow reply the same
//! way as on stdio. Other tools get none, so they offer allow once / reject as before.

use serde_json::{Value, json};

/// What claude would suggest for "always allow" of `tool_name` with `input`.
pub(crate) fn always_allow_suggestions(tool_name: &str, input: &Value) -> Vec<Value> {
    match tool_name {
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
            vec![json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"})]
        }
        "Bash" => input
            .get("command")
            .and_then(Value::as_str)
            .filter(|command| !command.trim().is_empty())
            .map(|command| {
                vec![json!({"type": "addRules",
                            "rules": [{"toolName": "Bash", "ruleContent": command}],
                            "behavior": "allow", "destination": "localSettings"})]
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_suggests_accepting_edits_for_the_session() {
        let suggestions = always_allow_suggestions("Edit", &json!({"file_path": "/w/a.rs"}));
        assert_eq!(
            suggestions,
            [json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"})]
        );
    }

    #[test]
    fn a_command_suggests_a_rule_for_exactly_that_command() {
        let suggestions = always_allow_suggestions("Bash", &json!({"command": "npm test"}));
        assert_eq!(suggestions[0]["rules"][0]["ruleContent"], "npm test");
        assert_eq!(suggestions[0]["destination"], "localSettings");
        assert!(always_allow_suggestions("Bash", &json!({"command": " "})).is_empty());
    }

    #[test]
    fn other_tools_get_no_suggestion() {
        assert!(always_allow_suggestions("WebFetch", &json!({"url": "https://x"})).is_empty());
        assert!(always_allow_suggestions("AskUserQuestion", &json!({})).is_empty());
    }
}
