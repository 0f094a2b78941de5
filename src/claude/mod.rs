//! The claude side: the `claude` CLI as a child process speaking stream-json.

pub mod auth;
mod big_line;
pub mod connection;
pub mod error;
mod events;
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) mod fuzzing;
mod group;
mod in_process;
pub mod install;
pub mod launch;
mod lenient;
pub mod locate;
mod pending;
pub mod process;
mod redact;
mod replies;
pub mod sdk_mcp;
mod streams;
pub mod wire;

/// The arguments that make claude speak stream-json on stdin and stdout (`--verbose` is required
/// with `--output-format stream-json`). Every spawn of claude, real or stand-in, starts with them.
pub const STREAM_JSON_ARGS: [&str; 5] = [
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
];

pub use connection::ClaudeHandle;
pub use error::ClaudeError;
pub use events::EventReceiver;
pub use group::kill_all_children;
pub use launch::{Launch, Launched, ProcessLauncher, StartedClaude};
pub use locate::{ClaudeCommand, LocateEnv, LocateError, locate};
pub use process::{ClaudeEvent, ClaudeProcess, ExitInfo, SpawnOptions};

#[cfg(test)]
mod tests;
