//! Command-line arguments of the `claude-acp` binary.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::session::config::PermissionTransport;

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

    #[command(subcommand)]
    pub command: Option<Command>,
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
    /// Log in to Claude (runs claude's own login in this terminal).
    Login,
}
