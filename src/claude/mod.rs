//! The claude side: the `claude` CLI as a child process speaking stream-json.

pub(crate) mod auth;
pub(crate) mod big_line;
pub(crate) mod config_dir;
pub(crate) mod connection;
pub(crate) mod error;
mod events;
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) mod fuzzing;
pub(crate) mod gateway;
mod group;
#[cfg(test)]
mod in_process;
pub mod install;
pub(crate) mod launch;
mod lenient;
pub(crate) mod locate;
mod pending;
pub(crate) mod process;
mod redact;
mod replies;
pub(crate) mod sdk_mcp;
mod streams;
pub mod wire;

/// The subcommand of claude-acp that runs the stand-in for claude (`claude-acp standin ...`): a
/// claude found to be claude-acp itself is started with it (`locate.rs`).
pub const STANDIN_SUBCOMMAND: &str = "standin";

/// The arguments that make claude speak stream-json on stdin and stdout (`--verbose` is required
/// with `--output-format stream-json`). Every spawn of claude, real or stand-in, starts with them.
pub const STREAM_JSON_ARGS: [&str; 5] = [
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
];

pub(crate) use connection::ClaudeHandle;
pub(crate) use error::ClaudeError;
pub(crate) use events::EventReceiver;
pub(crate) use events::{ClaudeEvent, ExitInfo};
pub(crate) use group::kill_all_children;
#[cfg(test)]
pub(crate) use locate::ClaudeCommand;
pub(crate) use locate::locate;
#[cfg(test)]
pub(crate) use process::{ClaudeProcess, SpawnOptions};

#[cfg(test)]
mod tests;
