//! The permission rules in force for one session, from every source claude applies (managed
//! policy, user, project and local settings, `--settings` and `_meta` settings,
//! `allowedTools`/`disallowedTools`, the session's own "always" answers), for the tools the editor
//! serves: claude applies none of them to an MCP tool standing in for its own.
//!
//! The running claude is asked first (`list_permission_rules`, the pinned claude and later): it answers with
//! the rules it holds, from every source, as it applies them (a project's allow rules are left out
//! of a workspace whose trust was never accepted). A claude without it gets the sources read here
//! the way claude reads them, failing closed: a file that exists but cannot be read puts the
//! session in doubt, and nothing is then allowed unasked on a rule's strength.
//!
//! claude's own `--disallowedTools` of the built-ins the editor serves (`Read`, `Bash`, ...) are
//! not the user's: the command-line rules are taken from the session's `_meta` flags instead.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::path_rules::{self, Lean, Place};
use super::rules::SessionRules;

/// What a rule does when it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Behavior {
    Allow,
    Ask,
    Deny,
}

impl Behavior {
    fn parse(text: &str) -> Option<Self> {
        match text {
            "allow" => Some(Self::Allow),
            "ask" => Some(Self::Ask),
            "deny" => Some(Self::Deny),
            _ => None,
        }
    }
}

/// One rule: `Bash(npm test:*)` is tool `Bash` with content `npm test:*`; `Read` has none (every
/// call of the tool).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rule {
    pub(crate) behavior: Behavior,
    pub(crate) tool: String,
    pub(crate) content: Option<String>,
    /// Where claude says it comes from (`userSettings`, `cliArg`, ...).
    pub(crate) source: String,
}

impl Rule {
    /// Parses a rule as settings spell it; `None` for an empty or malformed one.
    pub(crate) fn parse(behavior: Behavior, text: &str, source: &str) -> Option<Self> {
        let text = text.trim();
        let (tool, content) = match text.find('(') {
            Some(open) => {
                let inner = text[open + 1..].strip_suffix(')')?;
                let inner = inner.replace("\\(", "(").replace("\\)", ")");
                let content = match inner.as_str() {
                    // `Bash(*)` and `Bash()` are the whole tool, as claude reads them.
                    "" | "*" => None,
                    _ => Some(inner),
                };
                (&text[..open], content)
            }
            None => (text, None),
        };
        if tool.is_empty() {
            return None;
        }
        Some(Self {
            behavior,
            tool: tool.to_owned(),
            content,
            source: source.to_owned(),
        })
    }

    /// Whether the rule is about `tool` (`*`, a withheld rule's tool, is about every tool).
    pub(crate) fn is_for(&self, tool: &str) -> bool {
        self.tool == tool || self.tool == "*"
    }
}

/// The rules in force and the workspace they apply in.
#[derive(Debug, Clone, Default)]
pub(crate) struct RulesInForce {
    pub(crate) rules: Vec<Rule>,
    /// The session's cwd, as given.
    pub(crate) cwd: PathBuf,
    /// The workspace: the cwd and every additional directory, resolved.
    pub(crate) roots: Vec<PathBuf>,
    /// A source could not be read: nothing is allowed unasked on a rule's or the workspace's
    /// strength.
    pub(crate) doubt: bool,
    /// The user's home directory (`~/` in a rule), resolved.
    pub(crate) home: Option<PathBuf>,
}

impl RulesInForce {
    /// The rules of `behavior` about one of `tools`.
    pub(crate) fn of<'a: 't, 't>(
        &'a self,
        behavior: Behavior,
        tools: &'t [&'t str],
    ) -> impl Iterator<Item = &'a Rule> + 't {
        self.rules
            .iter()
            .filter(move |r| r.behavior == behavior && tools.iter().any(|t| r.is_for(t)))
    }

    /// The rule that decides a call of one of `tools` on `written` (the path as claude named it,
    /// absolute) resolved to `real`: a deny before an ask before an allow; `None` when no rule
    /// covers it. In doubt no allow rule counts.
    pub(crate) fn for_path(
        &self,
        tools: &[&str],
        written: &Path,
        real: Option<&Path>,
    ) -> Option<&Rule> {
        let place = |real| Place {
            written,
            real,
            cwd: &self.cwd,
            roots: &self.roots,
            home: self.home.as_deref(),
        };
        let wide = place(real.unwrap_or(written));
        for behavior in [Behavior::Deny, Behavior::Ask] {
            let rule = self.of(behavior, tools).find(|r| match &r.content {
                None => true,
                Some(pattern) => path_rules::matches(pattern, &wide, Lean::Wide),
            });
            if rule.is_some() {
                return rule;
            }
        }
        let real = real.filter(|_| !self.doubt)?;
        let narrow = place(real);
        self.of(Behavior::Allow, tools).find(|r| match &r.content {
            None => true,
            Some(pattern) => path_rules::matches(pattern, &narrow, Lean::Narrow),
        })
    }

    /// Whether `path` (resolved) is inside the workspace.
    pub(crate) fn in_workspace(&self, path: &Path) -> bool {
        self.roots.iter().any(|root| path.starts_with(root))
    }

    /// The rules claude answered `list_permission_rules` with (its `response`), with the
    /// command-line rules of `sources` in place of claude's own; `None` when the answer cannot be
    /// read.
    pub(crate) fn from_claude(answer: &Value, sources: &RuleSources) -> Option<Self> {
        let state = answer.get("state")?;
        let list = state.get("rules")?.as_array()?;
        let mut rules = Vec::new();
        let withheld = state.get("withheld").and_then(Value::as_bool) == Some(true);
        let mut doubt = withheld;
        for entry in list {
            if entry.get("notInEffect").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            let source = entry.get("source").and_then(Value::as_str).unwrap_or("");
            if source == "cliArg" {
                continue;
            }
            let behavior = entry
                .get("behavior")
                .and_then(Value::as_str)
                .and_then(Behavior::parse);
            let text = entry.get("rule").and_then(Value::as_str);
            match (behavior, text) {
                (Some(behavior), Some(text)) => match Rule::parse(behavior, text, source) {
                    // A cut rule (`Read(withheld)`, `*(withheld)`): an allow says nothing, an ask
                    // or deny covers the whole tool.
                    Some(rule) if withheld && rule.content.as_deref() == Some("withheld") => {
                        if behavior != Behavior::Allow {
                            rules.push(Rule {
                                content: None,
                                ..rule
                            });
                        }
                    }
                    Some(rule) => rules.push(rule),
                    None => doubt = true,
                },
                _ => doubt = true,
            }
        }
        rules.extend(sources.cli.iter().cloned());
        let mut dirs: Vec<PathBuf> = state
            .get("workspaceDirectories")
            .and_then(Value::as_array)
            .map(|dirs| {
                dirs.iter()
                    .filter_map(|d| d.get("path").and_then(Value::as_str))
                    .map(PathBuf::from)
                    .collect()
            })
            .unwrap_or_default();
        dirs.extend(sources.added_dirs.iter().cloned());
        Some(Self {
            rules,
            cwd: sources.cwd.clone(),
            roots: roots(&sources.cwd, &dirs),
            doubt,
            home: home_dir(),
        })
    }

    /// The rules read from the sources themselves, for a claude that cannot list them, with the
    /// session's own "always" answers.
    pub(crate) fn from_files(sources: &RuleSources, session: &SessionRules) -> Self {
        let mut found = Self {
            cwd: sources.cwd.clone(),
            roots: roots(&sources.cwd, &sources.added_dirs),
            home: home_dir(),
            ..Self::default()
        };
        let project = sources.cwd.join(".claude");
        let user = crate::claude::config_dir::default_config_dir();
        let mut files: Vec<(PathBuf, &str)> = crate::platform::dirs::managed_settings_files()
            .into_iter()
            .map(|f| (f, "policySettings"))
            .collect();
        if sources.reads("user")
            && let Some(dir) = &user
        {
            files.push((dir.join("settings.json"), "userSettings"));
        }
        // A project's deny and ask rules are read whatever the sources say (stricter); its allow
        // rules only where claude keeps them.
        files.push((project.join("settings.json"), "projectSettings"));
        files.push((project.join("settings.local.json"), "localSettings"));
        for (file, source) in files {
            let text = match std::fs::read_to_string(&file) {
                Ok(text) => text,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(_) => {
                    found.doubt = true;
                    continue;
                }
            };
            match serde_json::from_str::<Value>(&text) {
                Ok(settings) => found.add_settings(&settings, source, sources, user.as_deref()),
                Err(_) => {
                    tracing::warn!(
                        file = %file.display(),
                        "this settings file is not JSON: until it is fixed, its rules are not read and no rule allows a call unasked"
                    );
                    found.doubt = true;
                }
            }
        }
        if let Some(settings) = &sources.flag_settings {
            found.add_settings(settings, "flagSettings", sources, user.as_deref());
        }
        found.rules.extend(sources.cli.iter().cloned());
        if let Some(settings) = session.flag_settings() {
            found.add_settings(&settings, "session", sources, user.as_deref());
        }
        found
    }

    fn add_settings(
        &mut self,
        settings: &Value,
        source: &str,
        sources: &RuleSources,
        config_dir: Option<&Path>,
    ) {
        let keeps_allow = match source {
            "projectSettings" => {
                sources.reads("project") && project_trusted(&sources.cwd, config_dir)
            }
            "localSettings" => sources.reads("local"),
            _ => true,
        };
        for (key, behavior) in [
            ("allow", Behavior::Allow),
            ("ask", Behavior::Ask),
            ("deny", Behavior::Deny),
        ] {
            if behavior == Behavior::Allow && !keeps_allow {
                continue;
            }
            let Some(list) = settings["permissions"][key].as_array() else {
                if !settings["permissions"][key].is_null() {
                    self.doubt = true;
                }
                continue;
            };
            for text in list {
                match text.as_str().and_then(|t| Rule::parse(behavior, t, source)) {
                    Some(rule) => self.rules.push(rule),
                    None => self.doubt = true,
                }
            }
        }
        if let Some(dirs) = settings["permissions"]["additionalDirectories"].as_array()
            && keeps_allow
        {
            let dirs: Vec<PathBuf> = dirs
                .iter()
                .filter_map(Value::as_str)
                .map(|d| self.cwd.join(d))
                .collect();
            let more = roots(&self.cwd, &dirs);
            for root in more {
                if !self.roots.contains(&root) {
                    self.roots.push(root);
                }
            }
        }
    }
}

/// The user's home directory, resolved.
fn home_dir() -> Option<PathBuf> {
    crate::platform::real_path::real_path(&crate::platform::dirs::home_dir()?)
}

/// The cwd and `dirs`, resolved, once each.
fn roots(cwd: &Path, dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    for dir in std::iter::once(cwd).chain(dirs.iter().map(PathBuf::as_path)) {
        let Some(real) = crate::platform::real_path::real_path(dir) else {
            continue;
        };
        if !roots.contains(&real) {
            roots.push(real);
        }
    }
    roots
}

/// Whether the user accepted claude's trust dialog for `cwd` (`hasTrustDialogAccepted` in
/// `.claude.json`, beside the config dir or in it when `CLAUDE_CONFIG_DIR` names it).
fn project_trusted(cwd: &Path, config_dir: Option<&Path>) -> bool {
    let Some(config_dir) = config_dir else {
        return false;
    };
    let file = match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
        Some(_) => config_dir.join(".claude.json"),
        None => match config_dir.parent() {
            Some(home) => home.join(".claude.json"),
            None => return false,
        },
    };
    let Ok(text) = std::fs::read_to_string(file) else {
        return false;
    };
    let Ok(config) = serde_json::from_str::<Value>(&text) else {
        return false;
    };
    let key = cwd.to_string_lossy();
    config["projects"][key.as_ref()]["hasTrustDialogAccepted"].as_bool() == Some(true)
}

/// What the session's start says about the rules: claude's command-line rules from `_meta`
/// (`allowedTools`, `disallowedTools`), its `--settings`, `settingSources` and added
/// directories.
#[derive(Debug, Clone, Default)]
pub struct RuleSources {
    cwd: PathBuf,
    cli: Vec<Rule>,
    flag_settings: Option<Value>,
    /// `--setting-sources`, when given: which of user, project and local are read.
    setting_sources: Option<Vec<String>>,
    added_dirs: Vec<PathBuf>,
}

impl RuleSources {
    /// From claude's flags for the session (`extra_args`, and `secret_files`: the `(flag, JSON)`
    /// pairs passed in files).
    pub fn from_flags(
        cwd: &Path,
        extra_args: &[String],
        secret_files: &[(String, String)],
    ) -> Self {
        let mut sources = Self {
            cwd: cwd.to_path_buf(),
            ..Self::default()
        };
        let mut args = extra_args.iter();
        while let Some(flag) = args.next() {
            let behavior = match flag.as_str() {
                "--allowedTools" | "--allowed-tools" => Some(Behavior::Allow),
                "--disallowedTools" | "--disallowed-tools" => Some(Behavior::Deny),
                _ => None,
            };
            let value = match flag.as_str() {
                "--allowedTools" | "--allowed-tools" | "--disallowedTools"
                | "--disallowed-tools" | "--settings" | "--setting-sources" | "--add-dir" => {
                    args.next()
                }
                _ => None,
            };
            let Some(value) = value else { continue };
            match (flag.as_str(), behavior) {
                (_, Some(behavior)) => {
                    for text in split_rules(value) {
                        if let Some(rule) = Rule::parse(behavior, &text, "cliArg") {
                            sources.cli.push(rule);
                        }
                    }
                }
                ("--settings", _) => sources.flag_settings = settings_value(value, cwd),
                ("--setting-sources", _) => {
                    sources.setting_sources =
                        Some(value.split(',').map(|s| s.trim().to_owned()).collect())
                }
                ("--add-dir", _) => sources.added_dirs.push(PathBuf::from(value)),
                _ => {}
            }
        }
        for (flag, json) in secret_files {
            if flag == "--settings" {
                sources.flag_settings = serde_json::from_str(json).ok();
            }
        }
        sources
    }

    fn reads(&self, source: &str) -> bool {
        self.setting_sources
            .as_ref()
            .is_none_or(|list| list.iter().any(|s| s == source))
    }

    /// The built-ins a command-line rule takes away whole (`disallowedTools: ["Read"]`): the
    /// editor does not serve them either.
    pub fn disallowed_whole(&self) -> Vec<String> {
        self.cli
            .iter()
            .filter(|r| r.behavior == Behavior::Deny && r.content.is_none())
            .map(|r| r.tool.clone())
            .collect()
    }
}

/// `--settings`' value: JSON, or a file holding it.
fn settings_value(value: &str, cwd: &Path) -> Option<Value> {
    if value.trim_start().starts_with('{') {
        return serde_json::from_str(value).ok();
    }
    let text = std::fs::read_to_string(cwd.join(value)).ok()?;
    serde_json::from_str(&text).ok()
}

/// A comma- or space-separated list of rules, as claude splits `--allowedTools`, commas and
/// spaces inside parentheses kept.
fn split_rules(value: &str) -> Vec<String> {
    let mut rules = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in value.chars() {
        match c {
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            ',' | ' ' if depth == 0 => {
                if !current.trim().is_empty() {
                    rules.push(current.trim().to_owned());
                }
                current.clear();
            }
            _ => current.push(c),
        }
    }
    if !current.trim().is_empty() {
        rules.push(current.trim().to_owned());
    }
    rules
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rules_parse_as_claude_spells_them() {
        let r = Rule::parse(Behavior::Deny, "Bash(cat:*)", "cliArg").unwrap();
        assert_eq!(
            (r.tool.as_str(), r.content.as_deref()),
            ("Bash", Some("cat:*"))
        );
        let r = Rule::parse(Behavior::Deny, "Read", "cliArg").unwrap();
        assert_eq!(r.content, None);
        let r = Rule::parse(Behavior::Deny, "Bash(*)", "cliArg").unwrap();
        assert_eq!(r.content, None, "the whole tool");
        assert!(Rule::parse(Behavior::Deny, "Bash(unclosed", "cliArg").is_none());
        assert_eq!(
            split_rules("Read,Bash(git log:*) Bash(a, b)"),
            ["Read", "Bash(git log:*)", "Bash(a, b)"]
        );
    }

    #[test]
    fn claudes_list_is_taken_with_the_sessions_own_command_line_rules() {
        let cwd = std::env::temp_dir();
        let args: Vec<String> = ["--disallowedTools", "Bash(cat:*),WebFetch", "--model", "x"]
            .map(str::to_owned)
            .into();
        let sources = RuleSources::from_flags(&cwd, &args, &[]);
        let answer = json!({"state": {"rules": [
            {"behavior": "deny", "source": "userSettings", "rule": "Read(**/.env)"},
            // claude-acp's own --disallowedTools of the built-ins it serves: not the user's.
            {"behavior": "deny", "source": "cliArg", "rule": "Read"},
            {"behavior": "allow", "source": "localSettings", "rule": "Bash(echo:*)"},
            {"behavior": "allow", "source": "userSettings", "rule": "Bash", "notInEffect": true},
        ], "workspaceDirectories": [], "originalCwd": "/", "managedOnly": false}});
        let rules = RulesInForce::from_claude(&answer, &sources).unwrap();
        let texts: Vec<(Behavior, &str, Option<&str>)> = rules
            .rules
            .iter()
            .map(|r| (r.behavior, r.tool.as_str(), r.content.as_deref()))
            .collect();
        assert_eq!(
            texts,
            [
                (Behavior::Deny, "Read", Some("**/.env")),
                (Behavior::Allow, "Bash", Some("echo:*")),
                (Behavior::Deny, "Bash", Some("cat:*")),
                (Behavior::Deny, "WebFetch", None),
            ]
        );
        assert!(
            !rules
                .rules
                .iter()
                .any(|r| r.tool == "Read" && r.content.is_none())
        );
        assert_eq!(sources.disallowed_whole(), ["WebFetch"]);
        assert!(!rules.doubt);
    }

    #[test]
    fn a_withheld_or_unreadable_list_is_a_doubt() {
        let sources = RuleSources::default();
        let answer = json!({"state": {"rules": [
            {"behavior": "deny", "source": "userSettings", "rule": "*(withheld)"}
        ], "withheld": true}});
        let rules = RulesInForce::from_claude(&answer, &sources).unwrap();
        assert!(rules.doubt);
        let read = rules.of(Behavior::Deny, &["Read"]).next().unwrap();
        assert_eq!(read.content, None, "{rules:?}");
        assert!(RulesInForce::from_claude(&json!({}), &sources).is_none());
    }
}
