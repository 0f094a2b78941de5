//! Asks about the command tool (Bash, or claude for Windows' PowerShell) and TaskStop run in the
//! editor's terminal (`mcp__acp__Bash`, `mcp__acp__PowerShell`, `mcp__acp__TaskStop`), which
//! claude asks about as MCP tools: decided here as for claude's own tool, so the prompt, its
//! options and the session's rules read the same.
//!
//! claude applies no `Bash(...)` or `PowerShell(...)` rule to an MCP tool, so the rules are
//! applied here:
//!
//! - Deny rules first, in every mode: those of every source ([`super::in_force`], matched by
//!   [`super::bash_rules`]: `disallowedTools: ["Bash(cat:*)"]`, `deny: ["Bash"]`) and the
//!   session's "Always reject" (`Bash(npm test)`).
//! - `bypassPermissions` allows; TaskStop is not asked (claude's own is not either).
//! - An ask rule asks.
//! - Allow rules in force allow (a project's only where claude keeps them), and so does a
//!   command claude itself runs unasked ([`super::read_only`]: `ls`, `git status`, ... on paths
//!   inside the workspace, resolved, that no Read rule keeps; for PowerShell none, so every
//!   command no rule allows is asked about); "Always allow" offers claude's own
//!   suggestion for its tool, the exact command saved to the project's
//!   `.claude/settings.local.json` (claude writes it there), so it holds for claude's own tool too.

use std::path::Path;

use super::bash_rules::BashRules;
use super::decision::{Asking, Decision, allowed_input, call_update, deny, tool_call};
use super::in_force::{Behavior, RulesInForce};
use super::read_only::{self, PathCheck, Verdict};
use super::{options, reply};
use crate::claude::wire::{
    CanUseTool, PermissionDecision, PermissionRule, PermissionUpdate, UpdateKind,
};

/// Decides one call of `builtin` (Bash, PowerShell or TaskStop) run in the editor's terminal in
/// directory `dir`, in permission mode `mode`, with the rules in force.
pub async fn decide(
    asking: Asking<'_>,
    in_force: &RulesInForce,
    dir: &Path,
    mode: &str,
    builtin: &str,
    req: CanUseTool,
) -> Decision {
    let allow = || {
        Decision::without_asking(PermissionDecision::Allow {
            updated_input: allowed_input(&req),
            updated_permissions: Vec::new(),
        })
    };
    if builtin == "TaskStop" {
        return allow();
    }
    let command = req
        .input
        .get("command")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_owned();
    // The call as claude's own tool: its title, kind, options and rules.
    let mut shown = req.clone();
    shown.tool_name = builtin.to_owned();
    shown.display_name = None;
    shown.mcp_server = None;
    shown.permission_suggestions = vec![PermissionUpdate::new(UpdateKind::AddRules {
        rules: vec![PermissionRule {
            tool_name: builtin.to_owned(),
            rule_content: Some(command.clone()),
        }],
        behavior: "allow".into(),
        destination: "localSettings".into(),
    })];
    let choices = options::build(&shown, asking.cwd);
    let settings = BashRules::of(in_force, builtin);
    if settings.denies(&command) {
        return Decision::without_asking(deny(format!(
            "Permission to run `{command}` is denied by a {builtin} rule in the settings."
        )));
    }
    let ruled_out: Vec<String> = choices.deny_rules.iter().map(|r| r.setting()).collect();
    if asking.rules.denies_all(&ruled_out) {
        // The person's "always reject" earlier in the session.
        return Decision::plain(deny(format!(
            "The user rejected every {builtin} call like this one for the rest of the session ({}).",
            options::labels(&choices.deny_rules)
        )))
        .by(crate::claude::wire::DecisionClassification::UserReject);
    }
    let check = |arg: &str| path_check(in_force, dir, arg);
    let verdict = match builtin {
        "Bash" => read_only::judge(&command, &check),
        _ => Verdict::Ask,
    };
    // A command that reads a file a Read deny rule keeps is refused, as claude refuses it.
    let reads_denied = verdict == Verdict::Deny
        || (settings.allows(&command)
            && read_only::path_words(&command)
                .is_some_and(|words| words.iter().any(|w| check(w) == PathCheck::Deny)));
    if reads_denied {
        return Decision::plain(deny(format!(
            "Permission to use {builtin} with command {command} has been denied."
        )));
    }
    if mode == "bypassPermissions" {
        return allow();
    }
    if !settings.asks(&command) && !in_force.doubt {
        // An allow rule approves a command whose paths all stay in the workspace, as claude
        // checks a command's paths before its allow rules.
        let paths_inside = || {
            read_only::path_words(&command)
                .is_some_and(|words| words.iter().all(|w| check(w) == PathCheck::Inside))
        };
        if verdict == Verdict::ReadOnly || (settings.allows(&command) && paths_inside()) {
            return allow();
        }
        if mode == "plan" {
            return Decision::plain(deny(format!(
                "Permission to use {builtin} has been denied in plan mode, which runs only read-only commands: present the plan with ExitPlanMode first."
            )));
        }
    }
    let call = call_update(tool_call(&shown, asking.cwd));
    let reason = shown.decision_reason.clone();
    let answer = asking.ask(call, choices.options.clone(), reason).await;
    reply::answer(&mut shown, &choices, answer, asking.rules)
}

/// What path `arg` of a command run in `dir` is to the rules: inside the workspace once resolved
/// (`..` and symlinks) and kept by no Read rule, asked about, or refused by a Read deny rule.
fn path_check(in_force: &RulesInForce, dir: &Path, arg: &str) -> PathCheck {
    // claude asks about any `..` in a command's path, wherever it resolves.
    if arg.starts_with('~')
        || arg.is_empty()
        || Path::new(arg)
            .components()
            .any(|c| c == std::path::Component::ParentDir)
    {
        return PathCheck::Ask;
    }
    let written = dir.join(arg);
    let real = crate::platform::real_path::real_path(&written);
    match in_force.for_path(&["Read"], &written, real.as_deref()) {
        Some(rule) if rule.behavior == Behavior::Deny => return PathCheck::Deny,
        Some(rule) if rule.behavior == Behavior::Ask => return PathCheck::Ask,
        _ => {}
    }
    match real {
        Some(real) if in_force.in_workspace(&real) => PathCheck::Inside,
        _ => PathCheck::Ask,
    }
}
