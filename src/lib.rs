//! claude-acp: an Agent Client Protocol agent that drives the Claude Code CLI over stream-json.

pub(crate) mod acp;
pub use acp::Protocol;
pub(crate) mod auth;
pub mod claude;
pub mod cli;
pub mod demo;
pub mod doctor;
pub mod domain;
pub(crate) mod editor_tools;
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
pub mod history;
pub(crate) mod json_size;
pub(crate) mod json_stream;
pub mod logging;
pub(crate) mod pending;
pub mod permissions;
pub mod platform;
pub mod serve;
pub mod session;
pub mod standin;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod time;
pub(crate) mod translate;
pub(crate) mod utf8;
