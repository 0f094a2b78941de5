//! The pinned real claude CLI, offline against the mock Anthropic API: claude on its own in
//! stream-json mode (`smoke`, `mock_api`, `history_fixture`), and behind the built adapter.

mod acp_v1;
mod acp_v2;
mod adapter;
mod adapter_lifecycle;
mod background;
mod context;
mod editor_edits;
mod editor_terminal;
mod editor_tools;
mod gateway;
mod gateway_models;
mod history_fixture;
// Linux-only: claude's process is found in /proc.
#[cfg(target_os = "linux")]
mod idle;
mod logins;
mod mcp_health;
mod mcp_over_acp;
mod mock_api;
// Linux-only: the session's process tree is read from /proc.
#[cfg(target_os = "linux")]
mod nothing_outlives;
mod notices;
mod options;
mod options_before_a_session;
mod permissions;
mod plans;
mod powershell;
mod progress;
mod prompt_retry;
mod prompt_suggestions;
mod rewind;
mod session_archive;
mod session_cursors;
mod session_title;
mod sessions;
mod skills;
mod slash_commands;
mod smoke;
mod speed;
mod steering;
mod subagents;
mod toggles;
// Unix: the project's hooks and servers are shell commands.
#[cfg(unix)]
mod trust;
mod turn_queue;
mod usage_limit;
