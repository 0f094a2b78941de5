//! Pure translation between the editor's terms (`crate::domain`) and claude's stream-json
//! (`crate::claude::wire`): no I/O, no async. The session feeds lines in and forwards what comes out.

mod compaction;
mod context_usage;
mod plan;
mod session_info;
mod to_claude;
mod to_editor;
mod tool_result;
mod tools;
mod turn_end;

#[cfg(test)]
mod tests;

pub use compaction::{CompactionNews, Compactions, compaction_text};
pub use context_usage::{context_usage_text, is_context_command, with_context_command};
pub use plan::{TaskList, todo_write_plan};
pub use session_info::{InitInfo, available_commands};
pub use to_claude::{EMPTY_PROMPT_TEXT, user_message};
pub use to_editor::{Translation, TurnSignal, TurnTranslator};
pub use tool_result::{ToolResult, tool_result_update};
pub use tools::{content_for, display_path, kind_for, locations_for, title_for, tool_call_for};
pub use turn_end::{ContextTokens, TurnEnd};
