//! What claude says about itself (the `initialize` reply, `system/init`) -> what the session shows.

use serde_json::Value;

use crate::claude::wire::SystemMessage;
use crate::domain::SlashCommand;

/// The facts of a `system/init` line (claude prints one at the start of every turn).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct InitInfo {
    pub(crate) session_id: Option<String>,
    pub(crate) claude_code_version: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) permission_mode: Option<String>,
    pub(crate) cwd: Option<String>,
    pub(crate) tools: Vec<String>,
    pub(crate) slash_commands: Vec<String>,
    /// Which of the commands are skills (a `SKILL.md`'s, or claude's own).
    pub(crate) skills: Vec<String>,
    /// `off`, `cooldown` or `on`, and why Fast mode cannot serve (absent from older claudes).
    pub(crate) fast_mode_state: Option<String>,
    pub(crate) fast_mode_disabled_reason: Option<String>,
}

impl InitInfo {
    pub(crate) fn from_system(m: &SystemMessage) -> Self {
        let strings = |key: &str| -> Vec<String> {
            m.rest
                .get(key)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        let owned = |key: &str| m.str_field(key).map(str::to_owned);
        InitInfo {
            session_id: m.session_id.clone(),
            claude_code_version: owned("claude_code_version"),
            model: owned("model"),
            permission_mode: owned("permissionMode"),
            cwd: owned("cwd"),
            tools: strings("tools"),
            slash_commands: strings("slash_commands"),
            skills: strings("skills"),
            fast_mode_state: owned("fast_mode_state"),
            fast_mode_disabled_reason: owned("fast_mode_disabled_reason"),
        }
    }
}

/// Commands that only make sense in claude's own terminal UI (they draw on it, manage the
/// terminal, the login or the process), so the editor's prompt box does not offer them.
const TERMINAL_ONLY_COMMANDS: &[&str] = &[
    "login",
    "logout",
    "doctor",
    "color",
    "focus",
    "reload-plugins",
    "heapdump",
    "terminal-setup",
    "vim",
    "theme",
    "statusline",
    "ide",
    "exit",
    "quit",
    "upgrade",
    "install-github-app",
    "resume",
    "__remote-workflow",
    "workflow-launch-exec",
];

fn is_terminal_only(name: &str) -> bool {
    TERMINAL_ONLY_COMMANDS.contains(&name)
}

/// The slash commands of claude's `initialize` reply (`commands[{name, description, argumentHint}]`),
/// without the terminal-only ones.
pub(crate) fn available_commands(reply: &Value) -> Option<Vec<SlashCommand>> {
    let commands = reply.get("commands")?.as_array()?;
    Some(
        commands
            .iter()
            .filter_map(|c| {
                let name = c
                    .get("name")
                    .and_then(Value::as_str)
                    .filter(|n| !n.is_empty() && !is_terminal_only(n))?;
                Some(SlashCommand {
                    name: name.to_owned(),
                    description: c
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    input_hint: c
                        .get("argumentHint")
                        .and_then(Value::as_str)
                        .filter(|h| !h.trim().is_empty())
                        .map(str::to_owned),
                    skill: false,
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands_keep_their_hint_only_when_there_is_one() {
        let reply = json!({"commands": [
            {"name": "debug", "description": "Debug", "argumentHint": "[issue]", "builtin": true},
            {"name": "verify", "description": "Verify", "argumentHint": ""},
            {"description": "nameless"},
        ]});
        let got = available_commands(&reply).unwrap();
        assert_eq!(
            got,
            vec![
                SlashCommand {
                    name: "debug".into(),
                    description: "Debug".into(),
                    input_hint: Some("[issue]".into()),
                    skill: false,
                },
                SlashCommand {
                    name: "verify".into(),
                    description: "Verify".into(),
                    input_hint: None,
                    skill: false,
                },
            ]
        );
        assert_eq!(available_commands(&json!({})), None);
    }

    #[test]
    fn terminal_only_commands_are_not_offered_to_the_editor() {
        let reply = json!({"commands": [
            {"name": "login", "description": "Log in"},
            {"name": "compact", "description": "Compact", "argumentHint": "<instructions>"},
            {"name": "color", "description": "Prompt bar color"},
        ]});
        let names: Vec<String> = available_commands(&reply)
            .unwrap()
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, vec!["compact".to_owned()]);
    }
}
