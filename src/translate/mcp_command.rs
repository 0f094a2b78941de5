//! `/mcp` in the prompt box: claude's MCP servers and their states, and `/mcp reconnect|enable|
//! disable NAME`. claude-acp answers them itself through claude's control requests (`mcp_status`,
//! `mcp_reconnect`, `mcp_toggle`), with no model request: claude's own `/mcp` answers only a
//! count and "use `/mcp` in the terminal", and its subcommands are "not available in this session"
//! over stream-json.

use super::context_usage::is_command_alone;
use crate::claude::wire::{McpServerStatus, OutboundControl};
use crate::domain::{PromptBlock, SlashCommand};

/// The command's name in the prompt box.
pub(crate) const MCP_COMMAND: &str = "mcp";

const USAGE: &str = "`/mcp` lists the servers; `/mcp reconnect NAME`, `/mcp enable NAME` and \
                     `/mcp disable NAME` act on one.";

/// What a `/mcp` prompt asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum McpCommand {
    List,
    Act(McpAction, String),
    /// Input that asks for nothing claude-acp can do, and why; the list follows.
    Bad(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum McpAction {
    Reconnect,
    Enable,
    Disable,
}

impl McpAction {
    /// claude's control request for it.
    pub(crate) fn request(self, server: &str) -> OutboundControl {
        let server_name = server.to_owned();
        match self {
            McpAction::Reconnect => OutboundControl::McpReconnect { server_name },
            McpAction::Enable | McpAction::Disable => OutboundControl::McpToggle {
                server_name,
                enabled: self == McpAction::Enable,
            },
        }
    }

    fn verb(self) -> &'static str {
        match self {
            McpAction::Reconnect => "reconnect",
            McpAction::Enable => "enable",
            McpAction::Disable => "disable",
        }
    }

    fn done(self) -> &'static str {
        match self {
            McpAction::Reconnect => "Reconnected",
            McpAction::Enable => "Enabled",
            McpAction::Disable => "Disabled",
        }
    }
}

/// The command a prompt is, when its only text is `/mcp ...`.
pub(crate) fn mcp_command(blocks: &[PromptBlock]) -> Option<McpCommand> {
    if !is_command_alone(blocks, MCP_COMMAND) {
        return None;
    }
    let text = blocks.iter().find_map(|b| match b {
        PromptBlock::Text(t) if !t.trim().is_empty() => Some(t.trim()),
        _ => None,
    })?;
    let rest = text["/mcp".len()..].trim();
    if rest.is_empty() {
        return Some(McpCommand::List);
    }
    let (word, name) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let action = match word {
        "reconnect" => McpAction::Reconnect,
        "enable" => McpAction::Enable,
        "disable" => McpAction::Disable,
        other => {
            return Some(McpCommand::Bad(format!(
                "`/mcp {}` is not a command claude-acp knows. {USAGE}",
                inline(other)
            )));
        }
    };
    let name = name
        .trim()
        .trim_matches(|c| c == '`' || c == '"' || c == '\'');
    if name.is_empty() {
        return Some(McpCommand::Bad(format!(
            "`/mcp {word}` needs the name of a server: `/mcp {word} NAME`."
        )));
    }
    Some(McpCommand::Act(action, name.to_owned()))
}

/// Offers `/mcp` with its subcommands (claude's own entry, if any, is described anew).
pub(crate) fn with_mcp_command(mut commands: Vec<SlashCommand>) -> Vec<SlashCommand> {
    let description = "List the MCP servers and their states; reconnect, enable or disable one";
    let hint = Some("[reconnect|enable|disable NAME]".to_owned());
    match commands.iter_mut().find(|c| c.name == MCP_COMMAND) {
        Some(c) => {
            c.description = description.into();
            c.input_hint = hint;
        }
        None => commands.push(SlashCommand {
            name: MCP_COMMAND.into(),
            description: description.into(),
            input_hint: hint,
            skill: false,
        }),
    }
    commands
}

/// What one action came to: claude's error, if it refused.
pub(crate) type ActionResult = Result<(), String>;

/// The Markdown answer: what the action did (or why not), then the servers, as claude now has
/// them (`Err`: why claude did not say).
pub(crate) fn mcp_text(
    command: &McpCommand,
    acted: Option<ActionResult>,
    servers: Result<Vec<McpServerStatus>, String>,
) -> String {
    let mut text = String::new();
    match (command, acted) {
        (McpCommand::Act(action, name), Some(Ok(()))) => {
            text.push_str(&format!("{} **{}**.\n\n", action.done(), inline(name)));
        }
        (McpCommand::Act(action, name), Some(Err(why))) => text.push_str(&format!(
            "Could not {} **{}**: {}\n\n",
            action.verb(),
            inline(name),
            inline(&why)
        )),
        (McpCommand::Bad(why), _) => text.push_str(&format!("{why}\n\n")),
        _ => {}
    }
    text.push_str("## MCP servers\n\n");
    match servers {
        Err(why) => text.push_str(&format!(
            "claude did not list its servers: {}\n",
            inline(&why)
        )),
        Ok(servers) if servers.is_empty() => {
            text.push_str("claude has no MCP servers in this session.\n");
        }
        Ok(servers) => {
            text.push_str("| Server | State | Tools |\n| --- | --- | ---: |\n");
            for s in &servers {
                text.push_str(&format!(
                    "| {} | {} | {} |\n",
                    cell(&s.name),
                    cell(&state(s)),
                    if s.status == "connected" {
                        s.tools.len().to_string()
                    } else {
                        "–".into()
                    }
                ));
            }
        }
    }
    if matches!(command, McpCommand::List) {
        text.push_str(&format!("\n{USAGE}\n"));
    }
    text
}

fn state(s: &McpServerStatus) -> String {
    match (s.status.as_str(), &s.error) {
        ("connected", _) => "✔ connected".into(),
        ("failed", Some(error)) => format!("✖ failed: {error}"),
        ("failed", None) => "✖ failed".into(),
        ("needs-auth", _) => "⚠ needs authentication".into(),
        ("pending", _) => "… connecting".into(),
        ("disabled", _) => "○ disabled".into(),
        (other, _) => other.to_owned(),
    }
}

/// Untrusted text (server names and errors are the configuration's and the server's) on one
/// line, in a table cell.
fn cell(text: &str) -> String {
    inline(text).replace('|', "\\|")
}

fn inline(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;
