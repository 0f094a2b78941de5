//! Asks about the editor-served Read, Write and Edit (`mcp__acp__*`), which claude asks about as
//! MCP tools (always, whatever the mode): decided here as claude decides for its own tools, so
//! rules, modes and "always" answers keep their meaning.
//!
//! - The path is taken as claude takes it: resolved (`..` and symlinks), against the workspace's
//!   roots resolved too ([`crate::platform::real_path`]).
//! - The rules of every source ([`super::in_force`]): a deny rule (`Read(**/.env)`, a disallowed
//!   `Read`) refuses, an ask rule asks, whatever the mode; then the session's "always reject".
//! - Read inside the workspace is allowed without asking (claude's own Read is not asked there).
//! - Write and Edit: `plan` denies, `acceptEdits` allows inside the workspace, otherwise the
//!   editor is asked with the call shown as claude's own tool, the diff taken against the
//!   editor's buffer, and claude's own "always" suggestion for an edit (accept edits for the
//!   session).
//! - An allow rule covering the path allows.
//! - A file outside the workspace is offered what claude's own tool suggests there, so "always"
//!   covers its folder: `Read(//folder/**)` for a Read, accepting edits with the folder added
//!   for an edit.
//! - "Always reject" puts a rule for the built-in (`Read(//folder/**)`, `Edit(//path)`) in force;
//!   claude does not apply it to an MCP tool, so it is applied here before any ask.

use std::path::{Path, PathBuf};

use super::decision::{Asking, Decision, allowed_input, call_update, deny, tool_call};
use super::in_force::{Behavior, RulesInForce};
use super::{options, reply};
use crate::claude::wire::{
    CanUseTool, PermissionDecision, PermissionRule, PermissionUpdate, UpdateKind,
};
use crate::editor_tools::fs::EditorFiles;

/// Decides one call of `builtin` (Read, Write or Edit) served by the editor, in permission mode
/// `mode`, with the rules in force and the running claude's file tools (`files`).
pub async fn decide(
    asking: Asking<'_>,
    in_force: &RulesInForce,
    mode: &str,
    files: Option<EditorFiles>,
    builtin: &str,
    req: CanUseTool,
) -> Decision {
    let written: Option<PathBuf> = req
        .input
        .get("file_path")
        .and_then(serde_json::Value::as_str)
        .filter(|p| !p.is_empty())
        .map(|p| in_force.cwd.join(crate::platform::dirs::expand_home(p)));
    let real = written
        .as_deref()
        .and_then(crate::platform::real_path::real_path);
    let inside = !in_force.doubt && real.as_deref().is_some_and(|r| in_force.in_workspace(r));
    let rule_tools: &[&str] = match builtin {
        "Read" => &["Read"],
        _ => &["Edit", "Write"],
    };
    let ruled = match &written {
        Some(written) => in_force.for_path(rule_tools, written, real.as_deref()),
        None => in_force
            .of(Behavior::Deny, rule_tools)
            .chain(in_force.of(Behavior::Ask, rule_tools))
            .find(|r| r.content.is_none()),
    };
    if let Some(rule) = ruled.filter(|r| r.behavior == Behavior::Deny) {
        return Decision::without_asking(deny(format!(
            "Permission to use {builtin} on {} has been denied by a rule ({}, from {}).",
            written
                .as_deref()
                .map_or("this path".into(), |p| p.display().to_string()),
            rule_text(rule),
            rule.source
        )));
    }
    if builtin != "Read"
        && let Some(written) = &written
    {
        // claude refuses to write a file its Read rules keep, and to write through a symlink.
        let read_denied = in_force
            .for_path(&["Read"], written, real.as_deref())
            .is_some_and(|r| r.behavior == Behavior::Deny);
        if read_denied {
            return Decision::plain(deny(
                "File is covered by a Read deny rule in your permission settings and cannot be written.",
            ));
        }
        if std::fs::symlink_metadata(written).is_ok_and(|m| m.file_type().is_symlink()) {
            let target = real.as_deref().unwrap_or(written);
            return Decision::plain(deny(format!(
                "Refusing to write {}: it is a symbolic link. Write to the link's target path instead: {}",
                written.display(),
                target.display()
            )));
        }
    }
    let must_ask = ruled.is_some_and(|r| r.behavior == Behavior::Ask);
    // Files that configure tools or run code are asked about even in acceptEdits, as claude asks.
    let protected = real
        .as_deref()
        .is_some_and(|real| is_protected(real, &in_force.roots));
    let allowed_by_rule = ruled.is_some_and(|r| r.behavior == Behavior::Allow);
    let allow = || {
        Decision::without_asking(PermissionDecision::Allow {
            updated_input: allowed_input(&req),
            updated_permissions: Vec::new(),
        })
    };
    // The call as claude's own tool: its title, kind, options and rules.
    let mut shown = req.clone();
    shown.tool_name = builtin.to_owned();
    shown.display_name = None;
    shown.mcp_server = None;
    // claude's own suggestions for a file outside the workspace, so "always" covers its folder
    // as claude's own tool's answer does.
    shown.permission_suggestions = match (&written, inside) {
        (Some(written), false) => outside_suggestions(builtin, written, asking.cwd),
        _ => Vec::new(),
    };
    let choices = options::build(&shown, asking.cwd);
    let ruled_out: Vec<String> = choices.deny_rules.iter().map(|r| r.setting()).collect();
    if asking.rules.denies_all(&ruled_out) {
        // The person's "always reject" earlier in the session.
        return Decision::plain(deny(format!(
            "The user rejected every {builtin} call like this one for the rest of the session ({}).",
            options::labels(&choices.deny_rules)
        )))
        .by(crate::claude::wire::DecisionClassification::UserReject);
    }
    match builtin {
        "Write" | "Edit" if mode == "plan" => {
            return Decision::without_asking(deny(format!(
                "{builtin} is not allowed in plan mode: present the plan with ExitPlanMode first."
            )));
        }
        _ if must_ask => {}
        "Read" if inside || allowed_by_rule => return allow(),
        "Write" | "Edit" if (mode == "acceptEdits" && inside && !protected) || allowed_by_rule => {
            return allow();
        }
        "Write" | "Edit" if inside => {
            shown.permission_suggestions = vec![
                // claude's own suggestion for "always allow" of an edit (`b_write_allow`, seq 10).
                PermissionUpdate::set_mode_for_session("acceptEdits"),
            ]
        }
        _ => {}
    }
    let choices = options::build(&shown, asking.cwd);
    let mut call = call_update(tool_call(&shown, asking.cwd));
    if let Some(files) = &files
        && let Some(diff) = files.preview(builtin, &req.input).await
    {
        call.content = Some(vec![diff]);
    }
    let reason = shown.decision_reason.clone();
    let answer = asking.ask(call, choices.options.clone(), reason).await;
    reply::answer(&mut shown, &choices, answer, asking.rules)
}

/// What claude suggests for "always allow" of its own `builtin` on `written` (absolute), a file
/// outside the workspace: a Read rule for the file's folder and everything in it
/// (`Read(//dir/**)`), or for an edit, accepting edits with the folder added to the workspace;
/// each for this session.
fn outside_suggestions(builtin: &str, written: &Path, cwd: &Path) -> Vec<PermissionUpdate> {
    let file = super::path_rules::lexically_normal(written);
    let Some(dir) = file.parent().map(|d| d.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    match builtin {
        "Read" => vec![PermissionUpdate::new(UpdateKind::AddRules {
            rules: vec![PermissionRule {
                tool_name: "Read".into(),
                rule_content: Some(format!(
                    "/{}/**",
                    crate::translate::rule_path(&dir, cwd).trim_end_matches('/')
                )),
            }],
            behavior: "allow".into(),
            destination: "session".into(),
        })],
        _ => vec![
            PermissionUpdate::set_mode_for_session("acceptEdits"),
            PermissionUpdate::new(UpdateKind::AddDirectories {
                directories: vec![dir],
                destination: "session".into(),
            }),
        ],
    }
}

/// A rule as settings spell it.
fn rule_text(rule: &super::in_force::Rule) -> String {
    match &rule.content {
        Some(content) => format!("{}({content})", rule.tool),
        None => rule.tool.clone(),
    }
}

/// claude's files and folders that configure a tool or run code (`.git`, `.claude`, `.bashrc`,
/// `.mcp.json`, ...), which acceptEdits does not cover.
const PROTECTED_FILES: &[&str] = &[
    ".gitconfig",
    ".gitmodules",
    ".bashrc",
    ".bash_profile",
    ".zshrc",
    ".zprofile",
    ".profile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".bash_login",
    ".bash_aliases",
    ".bash_logout",
    ".envrc",
    ".ripgreprc",
    ".mcp.json",
    ".claude.json",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnp.cjs",
    ".pnp.loader.mjs",
    ".pnp.js",
    ".pnp.data.json",
    ".pnpmfile.cjs",
    "bunfig.toml",
    ".bunfig.toml",
    ".bazelrc",
    ".bazelversion",
    ".bazeliskrc",
    ".pre-commit-config.yaml",
    "lefthook.yml",
    ".lefthook.yml",
    "lefthook.yaml",
    ".lefthook.yaml",
    "gradle-wrapper.properties",
    "maven-wrapper.properties",
    ".devcontainer.json",
    "pyrightconfig.json",
];
const PROTECTED_DIRS: &[&str] = &[
    ".git",
    ".vscode",
    ".idea",
    ".claude",
    ".husky",
    ".cargo",
    ".devcontainer",
    ".yarn",
    ".mvn",
];

/// Whether `real` (resolved) is one of claude's protected files, or in one of its folders, in
/// the workspace (names compared without case).
fn is_protected(real: &std::path::Path, roots: &[PathBuf]) -> bool {
    let rel = roots
        .iter()
        .find_map(|root| real.strip_prefix(root).ok())
        .unwrap_or(real);
    let names: Vec<String> = rel
        .iter()
        .map(|n| n.to_string_lossy().to_lowercase())
        .collect();
    let Some((file, dirs)) = names.split_last() else {
        return false;
    };
    PROTECTED_FILES.iter().any(|f| f.eq_ignore_ascii_case(file))
        || dirs.iter().any(|d| PROTECTED_DIRS.contains(&d.as_str()))
        || names.windows(2).any(|w| w[0] == ".config" && w[1] == "git")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claudes_protected_files_are_named_in_any_case_and_folder() {
        let roots = [PathBuf::from("/w")];
        let protected = |p: &str| is_protected(std::path::Path::new(p), &roots);
        assert!(protected("/w/.git/hooks/pre-commit"));
        assert!(protected("/w/.claude/settings.json"));
        assert!(protected("/w/sub/.BASHRC"));
        assert!(protected("/w/.mcp.json"));
        assert!(protected("/w/a/.vscode/settings.json"));
        assert!(!protected("/w/src/main.rs"));
        assert!(!protected("/w/.gitignore"));
    }
}
