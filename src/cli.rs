//! Command-line arguments of the `claude-acp` binary.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::permissions::PermissionTransport;

#[derive(Debug, Parser)]
#[command(
    name = "claude-acp",
    version,
    about = "Use Claude Code from any editor that speaks the Agent Client Protocol"
)]
pub struct Cli {
    /// The claude executable (default: $CLAUDE_CODE_EXECUTABLE, then `claude` on PATH, then
    /// ~/.local/bin/claude and ~/.claude/local/claude).
    #[arg(long, global = true, value_name = "PATH")]
    pub claude_path: Option<PathBuf>,

    /// Write logs to this file instead of stderr (level from RUST_LOG, default info).
    #[arg(long, global = true, value_name = "FILE")]
    pub log_file: Option<PathBuf>,

    /// How claude asks for permission: stdio control channel, MCP tool, or stdio with MCP fallback.
    #[arg(long, env = "CLAUDE_ACP_PERMISSION_TRANSPORT", default_value = "auto", value_parser = parse_transport)]
    pub permission_transport: PermissionTransport,

    /// Stop a session's claude after this many idle seconds; the next prompt resumes it (0: never).
    #[arg(long, env = "CLAUDE_ACP_IDLE_TIMEOUT", default_value_t = DEFAULT_IDLE_TIMEOUT_SECS, value_name = "SECONDS")]
    pub idle_timeout: u64,

    /// Which ACP versions to speak: v2 to editors that ask for it and v1 to the others (auto),
    /// v1 only (v2 editors are answered in v1), or v2 only (v1 editors are refused).
    #[arg(long, env = "CLAUDE_ACP_PROTOCOL", default_value = "auto", value_enum)]
    pub protocol: crate::Protocol,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Ten minutes: longer than a pause to read an answer or run the tests it suggested, short enough
/// that a thread left open for the day stops costing memory (`docs/sessions.md`, "Idle sessions").
pub(crate) const DEFAULT_IDLE_TIMEOUT_SECS: u64 = 600;

impl Cli {
    /// The idle timeout, `None` for 0 (never stop).
    pub fn idle_timeout(&self) -> Option<std::time::Duration> {
        (self.idle_timeout > 0).then(|| std::time::Duration::from_secs(self.idle_timeout))
    }
}

fn parse_transport(s: &str) -> Result<PermissionTransport, String> {
    s.parse()
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play one whole editor session and print it as a transcript (offline unless --real).
    Demo {
        /// Use the installed claude instead of the bundled offline stand-in (needs a login or API key).
        #[arg(long)]
        real: bool,
    },
    /// Check the claude installation this adapter would use.
    Doctor,
    /// Log in to Claude in this terminal: claude's own login screen, or straight to one kind.
    Login {
        /// With a Claude subscription (`claude auth login --claudeai`).
        #[arg(long, conflicts_with_all = ["console", "sso"])]
        claudeai: bool,
        /// With an Anthropic Console account, billed per API use (`claude auth login --console`).
        #[arg(long, conflicts_with = "sso")]
        console: bool,
        /// Through your organisation's single sign-on (`claude auth login --sso`).
        #[arg(long)]
        sso: bool,
    },
}
