//! claude-acp: an Agent Client Protocol agent that drives the Claude Code CLI over stream-json.

pub mod acp;
pub mod claude;
pub mod domain;
pub mod session;
pub mod standin;
pub mod translate;
