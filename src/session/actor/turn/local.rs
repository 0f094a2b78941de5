//! The commands claude-acp answers itself, typed in the prompt box: what a prompt is (one parser,
//! for the turn that starts and for the queue that must not hand it to claude), and the list the
//! prompt box offers beside claude's own.

use crate::domain::{PromptBlock, SlashCommand};
use crate::session::actor::rewind::{self, RewindCommand};
use crate::translate::{self, McpCommand};

/// A prompt claude-acp answers itself, which cannot go into claude's queue.
pub(super) enum LocalCommand {
    /// `/undo` or `/rewind`.
    Rewind(RewindCommand),
    /// `/usage`, from what claude already said: no claude needed, no model request.
    Usage,
    /// `/context`, from claude's `get_context_usage`.
    Context,
    /// `/mcp` and its actions, from claude's MCP control requests.
    Mcp(McpCommand),
}

impl LocalCommand {
    /// What a prompt is, when it is one of claude-acp's own commands.
    pub(super) fn of(blocks: &[PromptBlock]) -> Option<Self> {
        if let Some(command) = RewindCommand::of(blocks) {
            return Some(Self::Rewind(command));
        }
        if translate::is_usage_command(blocks) {
            return Some(Self::Usage);
        }
        if translate::is_context_command(blocks) {
            return Some(Self::Context);
        }
        translate::mcp_command(blocks).map(Self::Mcp)
    }

    /// Whether claude must run before it starts (`/undo` and `/rewind` start it themselves,
    /// `/usage` needs none).
    pub(super) fn needs_claude(&self) -> bool {
        matches!(self, Self::Context | Self::Mcp(_))
    }

    /// A prompt that runs claude's own `/model` command (claude answers it; the model picker
    /// follows).
    pub(super) fn is_model_command(blocks: &[PromptBlock]) -> bool {
        matches!(blocks.first(), Some(PromptBlock::Text(text))
            if text.trim_start().strip_prefix("/model").is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace)))
    }
}

/// The prompt box's commands: claude's (from its `initialize` reply), with claude-acp's own in
/// place of any of claude's by the same name, which would never run.
pub(super) fn offered(mut commands: Vec<SlashCommand>) -> Vec<SlashCommand> {
    let ours = rewind::commands();
    commands.retain(|c| !ours.iter().any(|o| o.name == c.name));
    commands.extend(ours);
    let commands = translate::with_usage_command(translate::with_context_command(commands));
    translate::with_mcp_command(commands)
}
