//! The claude side: the `claude` CLI as a child process speaking stream-json.

pub mod connection;
mod control;
pub mod error;
mod events;
mod group;
mod lenient;
pub mod locate;
pub mod process;
mod redact;
mod streams;
pub mod wire;

pub use connection::ClaudeHandle;
pub use error::ClaudeError;
pub use events::EventReceiver;
pub use group::kill_all_children;
pub use locate::{ClaudeCommand, LocateEnv, LocateError, locate};
pub use process::{ClaudeEvent, ClaudeProcess, ExitInfo, SpawnOptions};

#[cfg(test)]
mod tests;
