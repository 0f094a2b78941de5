//! claude's `Bash(...)` permission rules (`PowerShell(...)` for claude for Windows' PowerShell)
//! from its settings files, applied to the command tool run in the editor's terminal: claude
//! applies them to its own tool only, not to an MCP tool standing in for it, so they are read here
//! where claude reads them (`~/.claude/settings.json`, the project's `.claude/settings.json` and
//! `.claude/settings.local.json`, where "Always allow" saves them).
//!
//! Matching fails closed: an allow rule with a pattern (`npm test:*`, `git log *`) allows only a
//! simple command (no `;`, `&&`, `|`, redirection or substitution), an exact rule only that exact
//! command; a deny rule denies when it matches the command or any part of it.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// One command tool's rules in force from the settings files: their contents (`None`: every
/// command).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BashRules {
    pub allow: Vec<Option<String>>,
    pub deny: Vec<Option<String>>,
}

impl BashRules {
    /// The rules for command tool `tool` (`Bash`, `PowerShell`) of the files claude reads for a
    /// session in `cwd`.
    pub fn load(cwd: &Path, tool: &str) -> Self {
        let mut files: Vec<PathBuf> = Vec::new();
        if let Some(dir) = crate::claude::config_dir::default_config_dir() {
            files.push(dir.join("settings.json"));
        }
        files.push(cwd.join(".claude").join("settings.json"));
        files.push(cwd.join(".claude").join("settings.local.json"));
        let mut rules = Self::default();
        for file in files {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let Ok(settings) = serde_json::from_str::<Value>(&text) else {
                tracing::warn!(file = %file.display(), "settings not read: not JSON");
                continue;
            };
            rules.add(&settings, tool);
        }
        rules
    }

    fn add(&mut self, settings: &Value, tool: &str) {
        let list = |key: &str| -> Vec<Option<String>> {
            settings["permissions"][key]
                .as_array()
                .map(|rules| {
                    rules
                        .iter()
                        .filter_map(Value::as_str)
                        .filter_map(|rule| rule_content(rule, tool))
                        .collect()
                })
                .unwrap_or_default()
        };
        self.allow.extend(list("allow"));
        self.deny.extend(list("deny"));
    }

    pub fn allows(&self, command: &str) -> bool {
        self.allow
            .iter()
            .any(|rule| allows(rule.as_deref(), command))
    }

    pub fn denies(&self, command: &str) -> bool {
        self.deny
            .iter()
            .any(|rule| denies(rule.as_deref(), command))
    }
}

/// For `tool` Bash: `Bash` -> `Some(None)`, `Bash(npm test)` -> `Some(Some("npm test"))`, other
/// tools' rules -> `None`.
fn rule_content(rule: &str, tool: &str) -> Option<Option<String>> {
    let rest = rule.strip_prefix(tool)?;
    if rest.is_empty() {
        return Some(None);
    }
    let content = rest.strip_prefix('(')?.strip_suffix(')')?;
    Some(Some(content.to_owned()))
}

/// Whether `command` does more than run one program with its arguments.
fn is_compound(command: &str) -> bool {
    ["&&", "||", ";", "|", "&", ">", "<", "`", "$(", "\n"]
        .iter()
        .any(|s| command.contains(s))
}

fn allows(rule: Option<&str>, command: &str) -> bool {
    let command = command.trim();
    match rule {
        None => true,
        Some(rule) if rule == command => true,
        Some(_) if is_compound(command) => false,
        Some(rule) => matches_pattern(rule, command),
    }
}

fn denies(rule: Option<&str>, command: &str) -> bool {
    let Some(rule) = rule else { return true };
    let parts = command.split(['&', '|', ';', '\n', '(', ')', '`']);
    std::iter::once(command)
        .chain(parts)
        .map(str::trim)
        .any(|part| part == rule || matches_pattern(rule, part))
}

/// claude's patterns: `prefix:*` (the command starts with the prefix), or `*` as any text.
fn matches_pattern(rule: &str, command: &str) -> bool {
    if let Some(prefix) = rule.strip_suffix(":*") {
        return command == prefix || command.starts_with(&format!("{prefix} "));
    }
    if !rule.contains('*') {
        return false;
    }
    let pieces: Vec<&str> = rule.split('*').collect();
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    if !command.starts_with(first) || command.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &command[first.len()..];
    for piece in &pieces[1..pieces.len() - 1] {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(allow: &[&str], deny: &[&str]) -> BashRules {
        let mut rules = BashRules::default();
        rules.add(
            &json!({"permissions": {"allow": allow, "deny": deny}}),
            "Bash",
        );
        rules
    }

    #[test]
    fn allow_rules_match_as_claudes_and_never_a_compound_command_by_pattern() {
        let r = rules(
            &[
                "Bash(make lint)",
                "Bash(npm test:*)",
                "Bash(git log *)",
                "Read",
            ],
            &[],
        );
        assert!(r.allows("make lint"));
        assert!(!r.allows("make lint2"));
        assert!(r.allows("npm test"));
        assert!(r.allows("npm test -- --watch"));
        assert!(!r.allows("npm tester"));
        assert!(r.allows("git log --oneline"));
        assert!(!r.allows("npm test && rm -rf /"));
        assert!(!r.allows("git log > out.txt"));
        assert!(!r.allows("cat a.txt"), "Read is not a Bash rule");
        assert!(rules(&["Bash"], &[]).allows("anything at all; really"));
    }

    #[test]
    fn deny_rules_match_any_part_of_a_command() {
        let r = rules(&["Bash"], &["Bash(rm -rf:*)", "Bash(git push)"]);
        assert!(r.denies("rm -rf build"));
        assert!(r.denies("make && rm -rf build"));
        assert!(r.denies("echo ok; git push"));
        assert!(!r.denies("git push --dry-run"));
        assert!(!r.denies("make"));
    }

    #[test]
    fn powershell_reads_its_own_rules_only() {
        let mut r = BashRules::default();
        let settings = json!({"permissions": {
            "allow": ["PowerShell(Get-ChildItem:*)", "Bash(make lint)", "PowerShellX"],
            "deny": ["PowerShell(Remove-Item:*)", "Bash"]}});
        r.add(&settings, "PowerShell");
        assert!(r.allows("Get-ChildItem src"));
        assert!(!r.allows("make lint"), "a Bash rule");
        assert!(r.denies("Get-ChildItem; Remove-Item build -Recurse"));
        assert!(!r.denies("Get-Content a.txt"), "Bash's deny-all is Bash's");
        assert_eq!(r.allow.len(), 1, "{r:?}");
    }
}
