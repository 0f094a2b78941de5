//! The choices a permission prompt offers, named from what claude suggests.
//!
//! "Always allow" applies claude's own `permission_suggestions` unchanged, so its label says what
//! they do and where they are kept: the session, or the project's `.claude/settings.local.json`.
//! "Always reject" adds a deny rule for the same tool and input pattern, for this session.

use std::path::Path;

use serde_json::Value;

use crate::claude::wire::{CanUseTool, PermissionRule, PermissionUpdate, UpdateKind};
use crate::domain::{PermissionOption, PermissionOptionKind};

pub const ALLOW_ONCE: &str = "allow_once";
pub const ALLOW_ALWAYS: &str = "allow_always";
pub const REJECT_ONCE: &str = "reject_once";
pub const REJECT_ALWAYS: &str = "reject_always";

/// The options of one prompt and what the "always" ones do.
#[derive(Debug, Clone, PartialEq)]
pub struct Choices {
    pub options: Vec<PermissionOption>,
    /// `updatedPermissions` of an "always allow" answer: the suggestions we could name.
    pub allow_always: Vec<PermissionUpdate>,
    /// The mode "always allow" switches claude to (a `setMode` suggestion), if any.
    pub allow_always_mode: Option<String>,
    /// Deny rules of an "always reject" answer.
    pub deny_rules: Vec<ToolRule>,
}

pub fn build(req: &CanUseTool, cwd: &Path) -> Choices {
    let mut options = vec![option(ALLOW_ONCE, "Allow", PermissionOptionKind::AllowOnce)];
    let mut allow_always = Vec::new();
    let mut phrases = Vec::new();
    let mut saves_rules = false;
    let mut allow_always_mode = None;
    for suggestion in &req.permission_suggestions {
        if let Some(phrase) = describe(suggestion, req) {
            match suggestion.kind() {
                Some(UpdateKind::AddRules { .. }) => saves_rules = true,
                Some(UpdateKind::SetMode { mode, .. }) => allow_always_mode = Some(mode.clone()),
                _ => {}
            }
            phrases.push(phrase);
            allow_always.push(suggestion.clone());
        }
    }
    if !phrases.is_empty() {
        let verb = if saves_rules { "Always allow" } else { "Allow" };
        options.push(option(
            ALLOW_ALWAYS,
            &format!("{verb} {}", join(&phrases)),
            PermissionOptionKind::AllowAlways,
        ));
    }
    options.push(option(
        REJECT_ONCE,
        "Reject",
        PermissionOptionKind::RejectOnce,
    ));
    let deny_rules = deny_rules(req, cwd);
    if !deny_rules.is_empty() {
        options.push(option(
            REJECT_ALWAYS,
            &format!("Always reject {} in this session", labels(&deny_rules)),
            PermissionOptionKind::RejectAlways,
        ));
    }
    Choices {
        options,
        allow_always,
        allow_always_mode,
        deny_rules,
    }
}

fn option(id: &str, name: &str, kind: PermissionOptionKind) -> PermissionOption {
    PermissionOption {
        id: id.into(),
        name: name.into(),
        kind,
    }
}

/// What one suggestion allows, as the end of "Always allow ...". `None` for a suggestion we
/// cannot state plainly: it is then left out of the answer too.
fn describe(suggestion: &PermissionUpdate, req: &CanUseTool) -> Option<String> {
    let kind = suggestion.kind()?;
    let place = kept_in(kind.destination())?;
    match kind {
        UpdateKind::AddRules {
            rules, behavior, ..
        } if behavior == "allow" => {
            let rules: Vec<String> = rules.iter().map(|rule| rule_label(rule, req)).collect();
            (!rules.is_empty()).then(|| format!("{}{place}", rules.join(", ")))
        }
        UpdateKind::SetMode { mode, .. } => match mode.as_str() {
            "acceptEdits" => Some(format!("all edits{place}")),
            "bypassPermissions" => Some(format!("every tool{place}")),
            _ => None,
        },
        UpdateKind::AddDirectories { directories, .. } => (!directories.is_empty())
            .then(|| format!("access to {}{place}", directories.join(", "))),
        UpdateKind::AddRules { .. } => None,
    }
}

/// Where claude keeps an update, as the label says it.
fn kept_in(destination: &str) -> Option<&'static str> {
    match destination {
        "session" | "cliArg" => Some(" in this session"),
        "localSettings" => Some(" in this project (saved in .claude/settings.local.json)"),
        "projectSettings" => Some(" in this project (saved in .claude/settings.json)"),
        "userSettings" => Some(" everywhere (saved in ~/.claude/settings.json)"),
        _ => None,
    }
}

/// `Bash(npm test:*)`; an MCP tool by its display names ("acp: Write Note").
fn rule_label(rule: &PermissionRule, req: &CanUseTool) -> String {
    let tool = &rule.tool_name;
    match &rule.rule_content {
        Some(content) => format!("{tool}({content})"),
        None if *tool == req.tool_name && tool.starts_with("mcp__") => {
            let server = req
                .mcp_server
                .as_ref()
                .and_then(|s| s["name"].as_str())
                .unwrap_or("MCP");
            let name = req.display_name.as_deref().unwrap_or(tool);
            format!("{server}: {name}")
        }
        None => tool.clone(),
    }
}

/// A permission rule: a tool, and the input pattern it applies to (none: every call).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRule {
    pub tool: String,
    pub content: Option<String>,
}

impl ToolRule {
    fn new(tool: &str, content: Option<&str>) -> Self {
        Self {
            tool: tool.to_owned(),
            content: content.map(str::to_owned),
        }
    }

    /// As people read it: `Bash(npm test:*)`.
    pub fn label(&self) -> String {
        match &self.content {
            Some(content) => format!("{}({content})", self.tool),
            None => self.tool.clone(),
        }
    }

    /// As claude's settings hold it: `\`, `(` and `)` in the content escaped with a backslash.
    pub fn setting(&self) -> String {
        match &self.content {
            Some(content) => {
                let content = content
                    .replace('\\', "\\\\")
                    .replace('(', "\\(")
                    .replace(')', "\\)");
                format!("{}({content})", self.tool)
            }
            None => self.tool.clone(),
        }
    }
}

/// The deny rules that match this call the way the allow suggestions do: claude's own patterns
/// when it suggested some, else one built from the input.
fn deny_rules(req: &CanUseTool, cwd: &Path) -> Vec<ToolRule> {
    let suggested: Vec<ToolRule> = req
        .permission_suggestions
        .iter()
        .filter_map(|s| match s.kind() {
            Some(UpdateKind::AddRules {
                rules, behavior, ..
            }) if behavior == "allow" => Some(rules),
            _ => None,
        })
        .flatten()
        .map(|rule| ToolRule::new(&rule.tool_name, rule.rule_content.as_deref()))
        .collect();
    if !suggested.is_empty() {
        return suggested;
    }
    derived_rule(req, cwd).into_iter().collect()
}

fn derived_rule(req: &CanUseTool, cwd: &Path) -> Option<ToolRule> {
    let s = |key: &str| {
        req.input
            .get(key)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
    };
    // claude matches every file-editing tool against `Edit` rules. Paths are absolute (`//`
    // + path): a relative one would be read against a settings file's folder. On Windows the
    // path is in the form claude matches (`//c/dir/file`).
    let path = |tool: &str, p: &str| {
        ToolRule::new(
            tool,
            Some(&format!("/{}", crate::translate::rule_path(p, cwd))),
        )
    };
    let tool = req.tool_name.as_str();
    match tool {
        "Write" | "Edit" | "MultiEdit" => s("file_path").map(|p| path("Edit", p)),
        "NotebookEdit" => s("notebook_path").map(|p| path("Edit", p)),
        "Read" => s("file_path").map(|p| path("Read", p)),
        // One command, never the whole tool: PowerShell is claude for Windows' Bash.
        "Bash" | "PowerShell" => s("command").map(|c| ToolRule::new(tool, Some(c))),
        "WebFetch" => s("url")
            .and_then(host)
            .map(|h| ToolRule::new("WebFetch", Some(&format!("domain:{h}")))),
        // A question or a plan is answered, never ruled on.
        "AskUserQuestion" | "ExitPlanMode" | "EnterPlanMode" => None,
        _ => Some(ToolRule::new(tool, None)),
    }
}

fn host(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?.split(':').next()?;
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

pub fn labels(rules: &[ToolRule]) -> String {
    rules
        .iter()
        .map(ToolRule::label)
        .collect::<Vec<_>>()
        .join(", ")
}

/// "a", "a and b", "a, b and c".
fn join(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
