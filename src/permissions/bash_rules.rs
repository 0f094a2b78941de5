//! claude's `Bash(...)` permission rules (`PowerShell(...)` for claude for Windows' PowerShell),
//! applied to the command tool run in the editor's terminal: claude applies them to its own tool
//! only, not to an MCP tool standing in for it. They come from every source claude reads
//! ([`super::in_force`]).
//!
//! Matching fails closed: an allow rule with a pattern (`npm test:*`, `git log *`) allows only a
//! simple command (no `;`, `&&`, `|`, redirection or substitution), an exact rule only that exact
//! command; an ask or deny rule matches when it matches the command or any part of it.

use super::in_force::{Behavior, RulesInForce};

/// One command tool's rules in force: their contents (`None`: every command).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BashRules {
    pub allow: Vec<Option<String>>,
    pub ask: Vec<Option<String>>,
    pub deny: Vec<Option<String>>,
}

impl BashRules {
    /// The rules for command tool `tool` (`Bash`, `PowerShell`) among those in force.
    pub(crate) fn of(rules: &RulesInForce, tool: &str) -> Self {
        let tools = [tool];
        let list = |behavior| {
            rules
                .of(behavior, &tools)
                .map(|r| r.content.clone())
                .collect::<Vec<_>>()
        };
        Self {
            allow: list(Behavior::Allow),
            ask: list(Behavior::Ask),
            deny: list(Behavior::Deny),
        }
    }

    pub fn allows(&self, command: &str) -> bool {
        self.allow
            .iter()
            .any(|rule| allows(rule.as_deref(), command))
    }

    pub fn asks(&self, command: &str) -> bool {
        self.ask.iter().any(|rule| denies(rule.as_deref(), command))
    }

    pub fn denies(&self, command: &str) -> bool {
        self.deny
            .iter()
            .any(|rule| denies(rule.as_deref(), command))
    }
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
    use crate::permissions::in_force::Rule;
    use serde_json::json;

    fn rules_of(settings: serde_json::Value, tool: &str) -> BashRules {
        let mut in_force = RulesInForce::default();
        for (key, behavior) in [
            ("allow", Behavior::Allow),
            ("ask", Behavior::Ask),
            ("deny", Behavior::Deny),
        ] {
            for text in settings[key].as_array().into_iter().flatten() {
                let rule = Rule::parse(behavior, text.as_str().unwrap(), "userSettings");
                in_force.rules.extend(rule);
            }
        }
        BashRules::of(&in_force, tool)
    }

    fn rules(allow: &[&str], deny: &[&str]) -> BashRules {
        rules_of(json!({"allow": allow, "deny": deny}), "Bash")
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
        let r = rules_of(
            json!({
            "allow": ["PowerShell(Get-ChildItem:*)", "Bash(make lint)", "PowerShellX"],
            "ask": ["PowerShell(git push:*)"],
            "deny": ["PowerShell(Remove-Item:*)", "Bash"]}),
            "PowerShell",
        );
        assert!(r.allows("Get-ChildItem src"));
        assert!(!r.allows("make lint"), "a Bash rule");
        assert!(r.denies("Get-ChildItem; Remove-Item build -Recurse"));
        assert!(!r.denies("Get-Content a.txt"), "Bash's deny-all is Bash's");
        assert!(r.asks("git status; git push origin"));
        assert_eq!(r.allow.len(), 1, "{r:?}");
    }
}
