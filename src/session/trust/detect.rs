//! What a workspace's own settings would run, or where they would send the user's requests and
//! credentials, as soon as claude starts there: read from the files' contents, no I/O.

use serde_json::Value;

/// The project settings files claude reads in a workspace, by setting source.
pub(crate) const PROJECT_SETTINGS: &str = ".claude/settings.json";
pub(crate) const LOCAL_SETTINGS: &str = ".claude/settings.local.json";
/// The project's MCP servers (claude reads one in the cwd and in each folder above it).
pub(crate) const MCP_FILE: &str = ".mcp.json";

/// Settings whose value is a shell command claude runs on its own: for credentials
/// (`apiKeyHelper`'s output is sent as the API key) and for telemetry headers.
const HELPERS: &[&str] = &[
    "apiKeyHelper",
    "awsAuthRefresh",
    "awsCredentialExport",
    "gcpAuthRefresh",
    "otelHeadersHelper",
];

/// `env` entries that only tune claude (limits, timeouts, models) or turn something off. Any
/// other variable may redirect claude's requests (`ANTHROPIC_BASE_URL`, a proxy, a cloud
/// provider) or change what the programs claude starts run (`NODE_OPTIONS`, `PATH`, `BASH_ENV`).
const TUNING_ENV: &[&str] = &[
    "BASH_DEFAULT_TIMEOUT_MS",
    "BASH_MAX_OUTPUT_LENGTH",
    "BASH_MAX_TIMEOUT_MS",
    "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
    "MAX_MCP_OUTPUT_TOKENS",
    "MAX_THINKING_TOKENS",
    "MCP_TIMEOUT",
    "MCP_TOOL_TIMEOUT",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "CLAUDE_CODE_SUBAGENT_MODEL",
];

/// Prefixes of `env` entries that only turn something off, or name a model.
const TUNING_ENV_PREFIXES: &[&str] = &["DISABLE_", "CLAUDE_CODE_DISABLE_", "ANTHROPIC_DEFAULT_"];

/// One settings file's contents, named as the user sees it (relative to the workspace).
pub(crate) struct SettingsFile<'a> {
    pub(crate) name: &'a str,
    pub(crate) value: &'a Value,
}

/// The user's view of what would run: one line per thing, sorted, each naming its file.
pub(crate) fn what_runs(settings: &[SettingsFile<'_>], mcp: &[SettingsFile<'_>]) -> Vec<String> {
    let mut lines = Vec::new();
    for file in settings {
        hooks(file, &mut lines);
        for key in HELPERS {
            if let Some(command) = file.value.get(*key).and_then(Value::as_str) {
                lines.push(format!(
                    "{}: `{key}` runs `{}`{}",
                    file.name,
                    one_line(command),
                    if *key == "apiKeyHelper" {
                        " and sends its output as your API key"
                    } else {
                        ""
                    }
                ));
            }
        }
        if let Some(env) = file.value.get("env").and_then(Value::as_object) {
            for (key, value) in env {
                if tuning(key) {
                    continue;
                }
                let value = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned);
                let effect = if key.ends_with("_URL") || key.to_ascii_uppercase().contains("PROXY")
                {
                    format!(
                        "claude's requests, with your credentials, go to {}",
                        one_line(&value)
                    )
                } else {
                    format!(
                        "set to `{}` for claude and everything it runs",
                        one_line(&value)
                    )
                };
                lines.push(format!("{}: `env.{key}`: {effect}", file.name));
            }
        }
    }
    for file in mcp {
        let servers = file.value.get("mcpServers").and_then(Value::as_object);
        for (name, server) in servers.into_iter().flatten() {
            lines.push(format!(
                "{}: MCP server `{name}` {}",
                file.name,
                server_runs(server)
            ));
        }
    }
    lines.sort();
    lines.dedup();
    lines
}

/// Every hook, whatever its event: `SessionStart` runs as claude starts, `UserPromptSubmit` at
/// the first prompt, the others around tool calls, none of them asked.
fn hooks(file: &SettingsFile<'_>, lines: &mut Vec<String>) {
    let events = file.value.get("hooks").and_then(Value::as_object);
    for (event, matchers) in events.into_iter().flatten() {
        let matchers = matchers.as_array().map(Vec::as_slice).unwrap_or_default();
        for matcher in matchers {
            let hooks = matcher.get("hooks").and_then(Value::as_array);
            for hook in hooks.map(Vec::as_slice).unwrap_or_default() {
                let what = match (
                    hook.get("command").and_then(Value::as_str),
                    hook.get("url").and_then(Value::as_str),
                ) {
                    (Some(command), _) => format!("runs `{}`", one_line(command)),
                    (None, Some(url)) => format!("sends the session's events to {}", one_line(url)),
                    (None, None) => format!("is a `{}` hook", one_line(&type_of(hook))),
                };
                lines.push(format!("{}: hook `{event}` {what}", file.name));
            }
        }
    }
}

fn type_of(hook: &Value) -> String {
    hook.get("type")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_owned()
}

/// What starting an MCP server does: the program it runs, or where it connects.
fn server_runs(server: &Value) -> String {
    if let Some(command) = server.get("command").and_then(Value::as_str) {
        let args: Vec<&str> = server
            .get("args")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let line = std::iter::once(command)
            .chain(args)
            .collect::<Vec<_>>()
            .join(" ");
        return format!("runs `{}`", one_line(&line));
    }
    match server.get("url").and_then(Value::as_str) {
        Some(url) => format!("connects to {}", one_line(url)),
        None => "starts".to_owned(),
    }
}

fn tuning(key: &str) -> bool {
    TUNING_ENV.contains(&key) || TUNING_ENV_PREFIXES.iter().any(|p| key.starts_with(p))
}

/// A value on one line, cut at 200 characters: the ask names it, the file holds it whole.
fn one_line(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let cut: String = flat.chars().take(200).collect();
    if cut.len() < flat.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// The project's deny and ask rules, which stay in force while its other settings wait for the
/// user's trust: an untrusted workspace is never looser than a trusted one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Guard {
    pub(crate) deny: Vec<String>,
    pub(crate) ask: Vec<String>,
}

impl Guard {
    pub(crate) fn of(settings: &[SettingsFile<'_>]) -> Guard {
        let mut guard = Guard::default();
        for file in settings {
            let rules = |kind: &str| -> Vec<String> {
                file.value
                    .pointer(&format!("/permissions/{kind}"))
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default()
            };
            guard.deny.extend(rules("deny"));
            guard.ask.extend(rules("ask"));
        }
        guard
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.deny.is_empty() && self.ask.is_empty()
    }

    /// Adds these rules to the `permissions` of `settings` (a `--settings` object).
    pub(crate) fn add_to(&self, settings: &mut Value) {
        if !settings.is_object() {
            *settings = Value::Object(Default::default());
        }
        let permissions = settings
            .as_object_mut()
            .expect("an object")
            .entry("permissions")
            .or_insert_with(|| Value::Object(Default::default()));
        if !permissions.is_object() {
            *permissions = Value::Object(Default::default());
        }
        let permissions = permissions.as_object_mut().expect("an object");
        for (kind, rules) in [("deny", &self.deny), ("ask", &self.ask)] {
            if rules.is_empty() {
                continue;
            }
            let list = permissions
                .entry(kind)
                .or_insert_with(|| Value::Array(Vec::new()));
            if !list.is_array() {
                *list = Value::Array(Vec::new());
            }
            let list = list.as_array_mut().expect("an array");
            for rule in rules {
                if !list.iter().any(|r| r.as_str() == Some(rule)) {
                    list.push(Value::String(rule.clone()));
                }
            }
        }
    }
}
