//! Client-specific claude options carried in `_meta` of `session/new` (also load, resume and fork),
//! turned into claude CLI flags and environment, so clients written for the TypeScript adapter
//! (`claude-agent-acp`, e.g. acpx) get the same behaviour here.
//!
//! Accepted shape (that adapter's, whose `options` are the Claude Agent SDK's `Options`):
//!
//! ```json
//! {"systemPrompt": "replace" | {"append": "extra"},
//!  "additionalRoots": ["/dir"],
//!  "disableBuiltInTools": true,
//!  "claudeCode": {"options": {"model": "...", "allowedTools": ["Read"], "maxTurns": 3, ...}}}
//! ```
//!
//! Every recognised key is type-checked: a wrong type fails `session/new` with a message naming the
//! key, rather than starting claude with flags it rejects. Keys that only make sense inside the
//! TypeScript SDK (callbacks, `cwd`, `executable`, ...) or that the adapter manages itself are
//! ignored, as that adapter ignores them. See [`KEYS`] for the table.

#[cfg(test)]
mod tests;

use serde_json::{Map, Value};

use super::spawn::SessionFlags;
use crate::claude::wire::{McpConfig, McpServerConfig};

/// Why `_meta` could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("_meta.{key}: {problem}")]
pub(crate) struct MetaError {
    /// Path of the offending key, e.g. `claudeCode.options.maxTurns`.
    pub(crate) key: String,
    pub(crate) problem: String,
}

/// How one `_meta.claudeCode.options` key becomes claude flags.
#[derive(Debug, Clone, Copy)]
enum Rule {
    /// A string: `--flag value`.
    Text(&'static str),
    /// A list of strings, comma-joined: `--flag a,b` (an empty list passes `""`).
    CommaList(&'static str),
    /// An integer ≥ the minimum: `--flag n`.
    Integer(&'static str, u64),
    /// A non-negative number: `--flag x`.
    Number(&'static str),
    /// `true` adds `--flag`.
    Switch(&'static str),
    /// One of the listed strings: `--flag value`.
    OneOf(&'static str, &'static [&'static str]),
    /// A string, or an object passed as JSON text: `--flag text`.
    TextOrJson(&'static str),
    /// Handled by its own function.
    Special,
    /// Managed by claude-acp or meaningless outside the TypeScript SDK.
    Ignored,
}

/// claude's permission modes (the pinned CLI).
pub(crate) const PERMISSION_MODES: &[&str] = &[
    "default",
    "acceptEdits",
    "plan",
    "auto",
    "bypassPermissions",
    "dontAsk",
];

const SETTING_SOURCES: &[&str] = &["user", "project", "local"];

/// claude's effort levels (`--effort`, the pinned CLI).
const EFFORT_LEVELS: &[&str] = &["low", "medium", "high", "xhigh", "max"];

/// `_meta.claudeCode.options` keys and their flags (checked against `claude --help` of the pinned CLI;
/// `--max-turns` and `--max-thinking-tokens` are hidden flags the SDK itself passes).
const KEYS: &[(&str, Rule)] = &[
    ("model", Rule::Text("--model")),
    ("fallbackModel", Rule::Text("--fallback-model")),
    ("allowedTools", Rule::CommaList("--allowedTools")),
    ("disallowedTools", Rule::CommaList("--disallowedTools")),
    ("tools", Rule::Special),
    ("maxTurns", Rule::Integer("--max-turns", 1)),
    (
        "maxThinkingTokens",
        Rule::Integer("--max-thinking-tokens", 0),
    ),
    ("maxBudgetUsd", Rule::Number("--max-budget-usd")),
    ("effort", Rule::OneOf("--effort", EFFORT_LEVELS)),
    ("settingSources", Rule::Special),
    (
        "permissionMode",
        Rule::OneOf("--permission-mode", PERMISSION_MODES),
    ),
    ("additionalDirectories", Rule::Special),
    ("strictMcpConfig", Rule::Switch("--strict-mcp-config")),
    ("mcpServers", Rule::Special),
    ("settings", Rule::TextOrJson("--settings")),
    ("agents", Rule::TextOrJson("--agents")),
    ("agent", Rule::Text("--agent")),
    ("betas", Rule::CommaList("--betas")),
    ("plugins", Rule::Special),
    ("systemPrompt", Rule::Special),
    ("customSystemPrompt", Rule::Special),
    ("appendSystemPrompt", Rule::Special),
    ("extraArgs", Rule::Special),
    ("env", Rule::Special),
    ("forwardSubagentText", Rule::Special),
    ("cwd", Rule::Ignored),
    ("resume", Rule::Ignored),
    ("forkSession", Rule::Ignored),
    ("continue", Rule::Ignored),
    ("sessionId", Rule::Ignored),
    ("includePartialMessages", Rule::Ignored),
    ("canUseTool", Rule::Ignored),
    ("hooks", Rule::Ignored),
    ("executable", Rule::Ignored),
    ("executableArgs", Rule::Ignored),
    ("pathToClaudeCodeExecutable", Rule::Ignored),
    ("permissionPromptToolName", Rule::Ignored),
    ("allowDangerouslySkipPermissions", Rule::Ignored),
    ("abortController", Rule::Ignored),
    ("stderr", Rule::Ignored),
];

/// Flags the adapter itself sets: an `extraArgs` entry may not override them, because claude
/// would then stop speaking the protocol the adapter expects.
const RESERVED_FLAGS: &[&str] = &[
    "input-format",
    "output-format",
    "print",
    "p",
    "verbose",
    "include-partial-messages",
    "replay-user-messages",
    "permission-prompt-tool",
    "permission-prompts",
    "resume",
    "r",
    "continue",
    "c",
    "fork-session",
    "session-id",
    "no-session-persistence",
    "dangerously-skip-permissions",
];

/// The claude flags and environment `_meta` asks for (nothing when it is absent).
///
/// Some of these flags are variadic in claude's parser (`--allowedTools`, `--add-dir`, `--betas`,
/// `--mcp-config`): they take every following argument up to the next `--flag`, so nothing
/// positional may follow them on claude's command line.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn flags_from_meta(meta: Option<&Value>) -> Result<SessionFlags, MetaError> {
    flags_for_session(meta, &[])
}

/// Like [`flags_from_meta`], with the request's own `additionalDirectories` first: every directory
/// of the request, of `_meta.additionalRoots` and of the `_meta` option is passed once as `--add-dir`.
pub(crate) fn flags_for_session(
    meta: Option<&Value>,
    additional_directories: &[String],
) -> Result<SessionFlags, MetaError> {
    let mut directories = additional_directories.to_vec();
    let mut flags = meta_flags(meta, &mut directories)?;
    let mut seen = Vec::new();
    for directory in directories {
        if !seen.contains(&directory) {
            push(&mut flags.extra_args, "--add-dir", directory.clone());
            seen.push(directory);
        }
    }
    Ok(flags)
}

fn meta_flags(
    meta: Option<&Value>,
    directories: &mut Vec<String>,
) -> Result<SessionFlags, MetaError> {
    let mut flags = SessionFlags::default();
    let Some(meta) = meta.filter(|m| !m.is_null()) else {
        return Ok(flags);
    };
    let meta = object(meta, "")?;
    let options = match meta.get("claudeCode").filter(|v| !v.is_null()) {
        Some(claude_code) => {
            let claude_code = object(claude_code, "claudeCode")?;
            match claude_code.get("options").filter(|v| !v.is_null()) {
                Some(options) => Some(object(options, "claudeCode.options")?),
                None => None,
            }
        }
        None => None,
    };
    let empty = Map::new();
    let options = options.unwrap_or(&empty);

    system_prompt(meta, options, &mut flags)?;
    match options.get("forwardSubagentText") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(on)) => flags.forward_subagent_text = *on,
        Some(other) => {
            return Err(wrong(
                "claudeCode.options.forwardSubagentText",
                "expected true or false",
                other,
            ));
        }
    }
    if let Some(Value::Array(roots)) = meta.get("additionalRoots") {
        // As the TypeScript adapter does: entries that are not strings are skipped.
        directories.extend(roots.iter().filter_map(Value::as_str).map(str::to_owned));
    }
    if !options.contains_key("tools") && meta.get("disableBuiltInTools") == Some(&Value::Bool(true))
    {
        flags.extra_args.extend(["--tools".into(), String::new()]);
    }

    for key in options.keys() {
        if !KEYS.iter().any(|(name, _)| name == key) {
            tracing::debug!("ignoring unknown _meta.claudeCode.options.{key}");
        }
    }
    // In table order, so the command line does not depend on the client's key order.
    for (key, rule) in KEYS {
        let Some(value) = options.get(*key).filter(|v| !v.is_null()) else {
            continue;
        };
        let path = format!("claudeCode.options.{key}");
        let args = &mut flags.extra_args;
        match *rule {
            Rule::Text(flag) => push(args, flag, string(value, &path)?),
            Rule::CommaList(flag) => push(args, flag, strings(value, &path)?.join(",")),
            Rule::Integer(flag, min) => match value.as_u64().filter(|n| *n >= min) {
                Some(n) => push(args, flag, n.to_string()),
                None => return Err(wrong(&path, &format!("expected an integer ≥ {min}"), value)),
            },
            Rule::Number(flag) => match value.as_f64().filter(|n| *n >= 0.0) {
                Some(_) => push(args, flag, value.to_string()),
                None => return Err(wrong(&path, "expected a non-negative number", value)),
            },
            Rule::Switch(flag) => match value {
                Value::Bool(true) => args.push(flag.to_owned()),
                Value::Bool(false) => {}
                _ => return Err(wrong(&path, "expected true or false", value)),
            },
            Rule::OneOf(flag, allowed) => {
                let text = string(value, &path)?;
                if !allowed.contains(&text.as_str()) {
                    return Err(wrong(&path, &format!("expected one of {allowed:?}"), value));
                }
                push(args, flag, text);
            }
            // JSON (settings hold API key helpers and env, agents their prompts) goes through a
            // file; a path is passed as it is.
            Rule::TextOrJson(flag) => match value {
                Value::String(text) if text.trim_start().starts_with('{') => {
                    flags.secret_files.push((flag.to_owned(), text.clone()))
                }
                Value::String(text) => push(args, flag, text.clone()),
                Value::Object(_) => flags
                    .secret_files
                    .push((flag.to_owned(), value.to_string())),
                _ => return Err(wrong(&path, "expected a string or an object", value)),
            },
            Rule::Special => special(key, value, &path, &mut flags, directories)?,
            Rule::Ignored => tracing::debug!("_meta.{path} is managed by claude-acp: ignored"),
        }
    }

    Ok(flags)
}

/// The keys whose shape needs more than a table entry.
fn special(
    key: &str,
    value: &Value,
    path: &str,
    flags: &mut SessionFlags,
    directories: &mut Vec<String>,
) -> Result<(), MetaError> {
    let args = &mut flags.extra_args;
    match key {
        "tools" => match value {
            // `{"type": "preset", "preset": "claude_code"}`: claude's own default set.
            Value::Object(_) => {}
            _ => push(args, "--tools", strings(value, path)?.join(",")),
        },
        "settingSources" => {
            let sources = strings(value, path)?;
            if let Some(bad) = sources
                .iter()
                .find(|s| !SETTING_SOURCES.contains(&s.as_str()))
            {
                return Err(wrong(
                    path,
                    &format!("expected sources among {SETTING_SOURCES:?}"),
                    &Value::String(bad.clone()),
                ));
            }
            push(args, "--setting-sources", sources.join(","));
        }
        "additionalDirectories" => directories.extend(strings(value, path)?),
        "systemPrompt" => {}        // read by `system_prompt`
        "forwardSubagentText" => {} // read before the table
        "customSystemPrompt" => flags.system_prompt.replace = Some(string(value, path)?),
        "appendSystemPrompt" => flags.system_prompt.append = Some(string(value, path)?),
        "mcpServers" => {
            let servers = object(value, path)?;
            if !servers.is_empty() {
                let config = McpConfig {
                    servers: servers
                        .iter()
                        .map(|(name, server)| {
                            (name.clone(), McpServerConfig::AsGiven(server.clone()))
                        })
                        .collect(),
                };
                flags
                    .secret_files
                    .push(("--mcp-config".to_owned(), config.to_json()));
            }
        }
        "plugins" => {
            let Value::Array(plugins) = value else {
                return Err(wrong(
                    path,
                    "expected a list of {type: \"local\", path}",
                    value,
                ));
            };
            for plugin in plugins {
                match plugin.get("path").and_then(Value::as_str) {
                    Some(dir) if plugin.get("type").and_then(Value::as_str) == Some("local") => {
                        push(args, "--plugin-dir", dir.to_owned())
                    }
                    _ => {
                        return Err(wrong(
                            path,
                            "expected {type: \"local\", path: string}",
                            plugin,
                        ));
                    }
                }
            }
        }
        "extraArgs" => {
            for (flag, flag_value) in object(value, path)? {
                let name = flag.trim_start_matches('-');
                let plain =
                    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
                if !plain || RESERVED_FLAGS.contains(&name) {
                    return Err(MetaError {
                        key: format!("{path}.{flag}"),
                        problem: "this flag is set by claude-acp and cannot be overridden".into(),
                    });
                }
                match flag_value {
                    Value::Null => args.push(format!("--{name}")),
                    Value::String(text) => push(args, &format!("--{name}"), text.clone()),
                    other => {
                        return Err(wrong(
                            &format!("{path}.{flag}"),
                            "expected a string or null",
                            other,
                        ));
                    }
                }
            }
        }
        "env" => {
            for (name, env_value) in object(value, path)? {
                match env_value {
                    Value::String(text) => flags.extra_env.push((name.clone(), text.clone())),
                    other => {
                        return Err(wrong(&format!("{path}.{name}"), "expected a string", other));
                    }
                }
            }
        }
        _ => unreachable!("every Special key is handled: {key}"),
    }
    Ok(())
}

/// `_meta.systemPrompt` (string: replace; `{append}`: add to claude's own), overridden by
/// `claudeCode.options.systemPrompt` in the SDK's shape (string, or
/// `{type: "preset", preset: "claude_code", append?}`), as in the TypeScript adapter. claude gets
/// the text in its `initialize` request, not on its command line.
fn system_prompt(
    meta: &Map<String, Value>,
    options: &Map<String, Value>,
    flags: &mut SessionFlags,
) -> Result<(), MetaError> {
    let (path, value) = match (options.get("systemPrompt"), meta.get("systemPrompt")) {
        (Some(v), _) if !v.is_null() => ("claudeCode.options.systemPrompt", v),
        (_, Some(v)) if !v.is_null() => ("systemPrompt", v),
        _ => return Ok(()),
    };
    match value {
        Value::String(text) => flags.system_prompt.replace = Some(text.clone()),
        Value::Object(prompt) => match prompt.get("append") {
            Some(Value::String(extra)) => flags.system_prompt.append = Some(extra.clone()),
            None | Some(Value::Null) => {}
            Some(other) => {
                return Err(wrong(&format!("{path}.append"), "expected a string", other));
            }
        },
        other => return Err(wrong(path, "expected a string or {append: string}", other)),
    }
    Ok(())
}

fn push(args: &mut Vec<String>, flag: &str, value: String) {
    args.push(flag.to_owned());
    args.push(value);
}

fn object<'a>(value: &'a Value, path: &str) -> Result<&'a Map<String, Value>, MetaError> {
    value
        .as_object()
        .ok_or_else(|| wrong(path, "expected an object", value))
}

fn string(value: &Value, path: &str) -> Result<String, MetaError> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| wrong(path, "expected a string", value))
}

fn strings(value: &Value, path: &str) -> Result<Vec<String>, MetaError> {
    let items = value
        .as_array()
        .ok_or_else(|| wrong(path, "expected a list of strings", value))?;
    items
        .iter()
        .map(|item| {
            string(item, path).map_err(|_| wrong(path, "expected a list of strings", value))
        })
        .collect()
}

fn wrong(path: &str, expected: &str, got: &Value) -> MetaError {
    let mut shown = got.to_string();
    if shown.chars().count() > 60 {
        shown = shown.chars().take(57).collect::<String>() + "...";
    }
    MetaError {
        key: if path.is_empty() {
            "(root)".into()
        } else {
            path.to_owned()
        },
        problem: format!("{expected}, got {shown}"),
    }
}
