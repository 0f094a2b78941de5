//! Pure translation between the editor's terms (`crate::domain`) and claude's stream-json
//! (`crate::claude::wire`): no I/O, no async. The session feeds lines in and forwards what comes out.

mod background;
mod compaction;
mod context_usage;
mod mcp_command;
mod message_blocks;
mod notices;
mod paths;
mod plan;
mod session_info;
mod subagents;
mod to_claude;
mod to_editor;
mod tool_result;
mod tools;
mod turn_end;
mod usage;

#[cfg(test)]
mod tests;

pub(crate) use background::{JobEnd, job_end_update};
pub(crate) use compaction::{Compactions, compaction_text};
pub(crate) use context_usage::{context_usage_text, is_context_command, with_context_command};
pub(crate) use mcp_command::{McpCommand, mcp_command, mcp_text, with_mcp_command};
pub(crate) use notices::{elicitation_declined, fast_mode_unavailable_because};
pub(crate) use session_info::available_commands;
pub(crate) use to_claude::{check_prompt, user_message};
pub(crate) use to_editor::{TurnSignal, TurnTranslator};
pub(crate) use tools::{rule_path, tool_call_without_input};
pub(crate) use usage::{is_usage_command, with_usage_command};
