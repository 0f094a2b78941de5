//! What claude reports that the user should know and that is not a message -> notices: an MCP
//! server that failed, needs a login or was disabled, a model fallback, a hook's block or message,
//! Fast mode turned off, a rate-limit warning, claude outside the tested versions, a stopped
//! background task. Each is said once, when it becomes true: claude repeats its `system/init` (MCP
//! servers, Fast mode, version) at every turn, and sends a rate-limit event whenever a figure moves.
//!
//! Shapes as the pinned claude prints them (typed in the Agent SDK's `sdk.d.ts` of that release):
//! `system/init.mcp_servers[{name, status, error?}]`, `system/model_refusal_fallback`,
//! `system/informational {content, level}`, `system/notification {text, priority}`,
//! `system/hook_response {hook_name, hook_event, outcome, exit_code, stderr}` (with
//! `--include-hook-events`), `system/task_notification {status, summary}`, `fast_mode_state` on
//! init, status and result lines, and `rate_limit_event`.

use std::collections::HashMap;

use serde_json::Value;

use crate::claude::install::{TESTED_CLAUDE_VERSIONS, VersionFit, version_fit};
use crate::claude::wire::{RateLimitInfo, SystemMessage};
use crate::domain::{Notice, NoticeSeverity};

/// The `_meta.claudeCode.kind` of each notice.
pub(crate) mod kind {
    pub(crate) const MCP_SERVER_FAILED: &str = "mcp_server_failed";
    pub(crate) const MCP_SERVER_NEEDS_AUTH: &str = "mcp_server_needs_auth";
    pub(crate) const MCP_SERVER_DISABLED: &str = "mcp_server_disabled";
    pub(crate) const MCP_ELICITATION_DECLINED: &str = "mcp_elicitation_declined";
    pub(crate) const MODEL_FALLBACK: &str = "model_fallback";
    pub(crate) const HOOK_BLOCKED: &str = "hook_blocked";
    pub(crate) const HOOK_MESSAGE: &str = "hook_message";
    pub(crate) const FAST_MODE_OFF: &str = "fast_mode_off";
    pub(crate) const RATE_LIMIT: &str = "rate_limit";
    pub(crate) const CLAUDE_VERSION: &str = "claude_version";
    pub(crate) const TASK_STOPPED: &str = "task_stopped";
    pub(crate) const CLAUDE_MESSAGE: &str = "claude_message";
}

/// One session's notices so far: what was already said, so that it is said once.
#[derive(Debug, Default)]
pub(crate) struct Notices {
    /// Each MCP server's last status that was told (`failed`, `needs-auth`, `disabled`); a server
    /// seen `connected` again is forgotten, so a later failure is told again.
    mcp: HashMap<String, String>,
    version_told: bool,
    fast_mode: Option<String>,
    /// Each rate-limit window's last status that was told.
    rate_limits: HashMap<String, String>,
}

impl Notices {
    /// Reads a `system` line; nothing for lines that say nothing the user must know.
    pub(crate) fn on_system(&mut self, s: &SystemMessage) -> Vec<Notice> {
        let mut out = Vec::new();
        self.fast_mode(
            s.str_field("fast_mode_state"),
            s.str_field("fast_mode_disabled_reason"),
            &mut out,
        );
        match s.subtype.as_str() {
            "init" => {
                self.mcp_servers(s.rest.get("mcp_servers"), &mut out);
                if let Some(version) = s.str_field("claude_code_version") {
                    self.version(version, &mut out);
                }
            }
            "model_refusal_fallback" => {
                let model = s
                    .str_field("fallback_model")
                    .unwrap_or("the fallback model");
                out.push(notice(
                    NoticeSeverity::Warning,
                    kind::MODEL_FALLBACK,
                    format!("Switched to {model}"),
                    Some(
                        "The model declined to answer; claude retried with the fallback model."
                            .into(),
                    ),
                ));
            }
            "informational" => {
                let content = s.str_field("content").unwrap_or_default().trim();
                let severity = match s.str_field("level") {
                    Some("warning") => NoticeSeverity::Warning,
                    Some("notice" | "suggestion") => NoticeSeverity::Info,
                    // `info` lines show only in claude's transcript view.
                    _ => return out,
                };
                if !content.is_empty() {
                    let kind = if content.starts_with("Switched to ") {
                        kind::MODEL_FALLBACK
                    } else if s.rest.get("prevent_continuation").and_then(Value::as_bool)
                        == Some(true)
                    {
                        kind::HOOK_BLOCKED
                    } else {
                        kind::CLAUDE_MESSAGE
                    };
                    out.push(notice(
                        severity,
                        kind,
                        first_line(content),
                        rest_lines(content),
                    ));
                }
            }
            "notification" => {
                let text = s.str_field("text").unwrap_or_default().trim();
                let severity = match s.str_field("priority") {
                    Some("high" | "immediate") => NoticeSeverity::Warning,
                    _ => NoticeSeverity::Info,
                };
                if !text.is_empty() {
                    out.push(notice(
                        severity,
                        kind::CLAUDE_MESSAGE,
                        first_line(text),
                        rest_lines(text),
                    ));
                }
            }
            "hook_response" => self.hook_response(s, &mut out),
            "task_notification" if s.str_field("status") == Some("stopped") => {
                let summary = s
                    .str_field("summary")
                    .map(str::trim)
                    .filter(|t| !t.is_empty());
                out.push(notice(
                    NoticeSeverity::Info,
                    kind::TASK_STOPPED,
                    "A background task was stopped".into(),
                    summary.map(str::to_owned),
                ));
            }
            _ => {}
        }
        out
    }

    /// A `rate_limit_event`: a warning when a window nears its limit, an error when it is reached,
    /// each once until the window's status changes.
    pub(crate) fn on_rate_limit(&mut self, info: &RateLimitInfo) -> Vec<Notice> {
        let mut out = Vec::new();
        for (window, w) in info.windows() {
            if self.rate_limits.get(&window) == Some(&w.status) {
                continue;
            }
            self.rate_limits.insert(window.clone(), w.status.clone());
            let name = window_name(&window);
            let resets = w.resets_at.map(reset_text);
            let (severity, title) = match w.status.as_str() {
                "allowed_warning" => {
                    let share = w
                        .utilization
                        .map(|u| format!("{:.0}% of ", u * 100.0))
                        .unwrap_or_default();
                    (
                        NoticeSeverity::Warning,
                        format!("You have used {share}your {name}"),
                    )
                }
                "rejected" => (NoticeSeverity::Error, format!("Your {name} is reached")),
                // Back under the limit: nothing to warn about (a later warning is told again).
                _ => continue,
            };
            out.push(notice(severity, kind::RATE_LIMIT, title, resets));
        }
        out
    }

    fn mcp_servers(&mut self, servers: Option<&Value>, out: &mut Vec<Notice>) {
        let Some(servers) = servers.and_then(Value::as_array) else {
            return;
        };
        for server in servers {
            let (Some(name), Some(status)) = (
                server.get("name").and_then(Value::as_str),
                server.get("status").and_then(Value::as_str),
            ) else {
                continue;
            };
            let (severity, kind, title) = match status {
                "failed" => (
                    NoticeSeverity::Error,
                    kind::MCP_SERVER_FAILED,
                    format!("MCP server {name} failed to start"),
                ),
                "needs-auth" => (
                    NoticeSeverity::Warning,
                    kind::MCP_SERVER_NEEDS_AUTH,
                    format!("MCP server {name} needs authentication"),
                ),
                "disabled" => (
                    NoticeSeverity::Info,
                    kind::MCP_SERVER_DISABLED,
                    format!("MCP server {name} is disabled"),
                ),
                _ => {
                    if status == "connected" {
                        self.mcp.remove(name);
                    }
                    continue;
                }
            };
            if self.mcp.get(name).map(String::as_str) == Some(status) {
                continue;
            }
            self.mcp.insert(name.to_owned(), status.to_owned());
            let description = match status {
                "failed" => Some(
                    server
                        .get("error")
                        .and_then(Value::as_str)
                        .map(|e| {
                            format!("{e}. Its tools are not available; `/mcp` lists the servers.")
                        })
                        .unwrap_or_else(|| {
                            "Its tools are not available; `/mcp` lists the servers.".into()
                        }),
                ),
                "needs-auth" => {
                    Some("Its tools are not available until you log in to it (`/mcp`).".into())
                }
                _ => Some(format!("`/mcp enable {name}` turns it on.")),
            };
            out.push(notice(severity, kind, title, description));
        }
    }

    /// Only a claude older than the tested range is told in the conversation: it breaks. A newer
    /// one is what users run days after a release (claude updates itself), and works; its version
    /// is in the log and in `claude-acp doctor`.
    fn version(&mut self, version: &str, out: &mut Vec<Notice>) {
        if self.version_told {
            return;
        }
        self.version_told = true;
        if version_fit(version) != VersionFit::TooOld {
            return;
        }
        let (lo, hi) = TESTED_CLAUDE_VERSIONS;
        out.push(notice(
            NoticeSeverity::Warning,
            kind::CLAUDE_VERSION,
            format!("claude {version} is older than claude-acp supports"),
            Some(format!(
                "claude-acp is tested with {lo} to {hi}; update claude (`claude update`)."
            )),
        ));
    }

    fn fast_mode(&mut self, state: Option<&str>, reason: Option<&str>, out: &mut Vec<Notice>) {
        let Some(state) = state else { return };
        let was_on = self.fast_mode.as_deref() == Some("on");
        self.fast_mode = Some(state.to_owned());
        if was_on && state != "on" {
            let description = match (state, reason) {
                ("cooldown", _) => {
                    "Paused after a rate limit; claude turns it back on by itself.".to_owned()
                }
                (_, Some(reason)) => match fast_mode_unavailable_because(reason) {
                    Some(why) => format!("Fast mode is {why}."),
                    None => format!("Reason: {}.", reason.replace('_', " ")),
                },
                _ => "The session runs at standard speed.".to_owned(),
            };
            out.push(notice(
                NoticeSeverity::Info,
                kind::FAST_MODE_OFF,
                "Fast mode is off".into(),
                Some(description),
            ));
        }
    }

    fn hook_response(&mut self, s: &SystemMessage, out: &mut Vec<Notice>) {
        let name = s
            .str_field("hook_name")
            .or_else(|| s.str_field("hook_event"))
            .unwrap_or("a hook");
        let said = [
            s.str_field("stderr"),
            s.str_field("output"),
            s.str_field("stdout"),
        ]
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|t| !t.is_empty())
        .map(str::to_owned);
        let exit = s.rest.get("exit_code").and_then(Value::as_i64);
        // Exit code 2 is a hook's block (claude's hooks contract); another failure is an error.
        match (s.str_field("outcome"), exit) {
            (_, Some(2)) => out.push(notice(
                NoticeSeverity::Warning,
                kind::HOOK_BLOCKED,
                format!("Hook {name} blocked the action"),
                said,
            )),
            (Some("error"), _) => out.push(notice(
                NoticeSeverity::Warning,
                kind::HOOK_MESSAGE,
                format!("Hook {name} failed"),
                said,
            )),
            _ => {}
        }
    }
}

/// An MCP server's question that was answered no without the user (`why`: what the editor lacks,
/// or how showing it failed), so that a tool that then fails is not a mystery.
pub(crate) fn elicitation_declined(server: &str, why: String) -> Notice {
    notice(
        NoticeSeverity::Warning,
        kind::MCP_ELICITATION_DECLINED,
        format!("MCP server {server} asked for your input; declined"),
        Some(why),
    )
}

fn notice(
    severity: NoticeSeverity,
    kind: &'static str,
    title: String,
    description: Option<String>,
) -> Notice {
    Notice {
        severity,
        kind,
        title,
        description,
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().trim().to_owned()
}

fn rest_lines(text: &str) -> Option<String> {
    let rest = text.split_once('\n').map(|(_, r)| r.trim())?;
    (!rest.is_empty()).then(|| rest.to_owned())
}

/// "5-hour limit", "weekly limit", ...
pub(crate) fn window_name(window: &str) -> String {
    match window {
        "five_hour" => "5-hour limit".into(),
        "seven_day" => "weekly limit".into(),
        "seven_day_opus" => "weekly Opus limit".into(),
        "seven_day_sonnet" => "weekly Sonnet limit".into(),
        "seven_day_overage_included" => "weekly limit (with extra usage)".into(),
        "overage" => "extra usage".into(),
        other => format!("{} limit", other.replace('_', " ")),
    }
}

/// "Resets at 2026-12-04 07:00 UTC."
fn reset_text(epoch_seconds: f64) -> String {
    format!("Resets at {}.", utc_minute(epoch_seconds))
}

/// `2026-12-04 07:00 UTC` for seconds since the epoch.
pub(crate) fn utc_minute(epoch_seconds: f64) -> String {
    let time =
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(epoch_seconds.max(0.0) as u64);
    let stamp = crate::time::rfc3339(time);
    format!("{} {} UTC", &stamp[..10], &stamp[11..16])
}

#[cfg(test)]
mod tests;

/// claude's `fast_mode_disabled_reason`s a user can act on, as a phrase ("not available on the
/// free plan"). The others (an SDK session's `sdk_opt_in_required`, which the option itself
/// answers; `preference`, `pending`, `unknown`) say nothing worth showing.
pub(crate) fn fast_mode_unavailable_because(reason: &str) -> Option<&'static str> {
    Some(match reason {
        "free" => "not available on the free plan",
        "extra_usage_disabled" => "off until extra usage is turned on for this account",
        "model_not_allowed" => "not available for this model",
        "not_first_party" => "not available with this API provider",
        "disabled_by_env" => "turned off by the environment",
        "network_error" => "off: claude could not check it (network error)",
        _ => return None,
    })
}
