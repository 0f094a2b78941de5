//! `/context` in the prompt box: claude's context window by category, as a message in the thread.
//! claude-acp answers it itself from claude's `get_context_usage` (no model request).

use crate::claude::wire::ContextUsage;
use crate::domain::{PromptBlock, SlashCommand};

/// The command's name in the prompt box.
pub(crate) const CONTEXT_COMMAND: &str = "context";

/// Whether the prompt is `/context` alone (arguments are ignored, as claude ignores them).
pub(crate) fn is_context_command(blocks: &[PromptBlock]) -> bool {
    is_command_alone(blocks, CONTEXT_COMMAND)
}

/// Whether the prompt's only text is the slash command `/name` (with or without arguments): a
/// command claude-acp answers itself, without a model turn.
pub(crate) fn is_command_alone(blocks: &[PromptBlock], name: &str) -> bool {
    let mut texts = blocks.iter().filter_map(|b| match b {
        PromptBlock::Text(t) if !t.trim().is_empty() => Some(t.trim()),
        _ => None,
    });
    let first = texts.next();
    texts.next().is_none()
        && first.is_some_and(|t| {
            t.strip_prefix('/')
                .and_then(|rest| rest.split_whitespace().next())
                == Some(name)
        })
}

/// Offers `/context` where claude's own list lacks it.
pub(crate) fn with_context_command(mut commands: Vec<SlashCommand>) -> Vec<SlashCommand> {
    if !commands.iter().any(|c| c.name == CONTEXT_COMMAND) {
        commands.push(SlashCommand {
            name: CONTEXT_COMMAND.into(),
            description: "Show current context usage".into(),
            input_hint: None,
            skill: false,
        });
    }
    commands
}

/// The message: the total against the window, then one row per category in the window.
pub(crate) fn context_usage_text(usage: &ContextUsage) -> String {
    let window = usage.max_tokens.max(1);
    let mut text = format!(
        "**Context usage**: {} of {} tokens ({:.0}%)",
        tokens(usage.total_tokens),
        tokens(usage.max_tokens),
        usage.percentage
    );
    if !usage.model.is_empty() {
        text.push_str(&format!(" · {}", usage.model));
    }
    text.push_str("\n\n| Category | Tokens | Share |\n| --- | ---: | ---: |\n");
    for category in &usage.categories {
        // Deferred tool schemas are outside the window until loaded.
        if category.kind.as_deref() == Some("deferred") {
            continue;
        }
        let share = category.tokens as f64 * 100.0 / window as f64;
        text.push_str(&format!(
            "| {} | {} | {share:.1}% |\n",
            category.name.replace('|', "\\|"),
            tokens(category.tokens)
        ));
    }
    text
}

/// `950`, `12.3k`, `1.2M`.
fn tokens(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1_000.0),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_message_lists_the_categories_in_the_window() {
        let usage = ContextUsage::from_reply(json!({
            "categories": [
                {"id": "system_prompt", "name": "System prompt", "tokens": 3100, "color": "x", "kind": "used"},
                {"name": "MCP tools (deferred)", "tokens": 900, "kind": "deferred"},
                {"name": "Free space", "tokens": 180_000, "kind": "free"},
            ],
            "totalTokens": 20_000, "maxTokens": 200_000, "rawMaxTokens": 200_000,
            "percentage": 10, "model": "claude-opus-5-5", "gridRows": [], "memoryFiles": [],
            "mcpTools": [], "agents": [], "isAutoCompactEnabled": true, "apiUsage": null,
        }))
        .unwrap();
        let text = context_usage_text(&usage);
        assert!(
            text.starts_with("**Context usage**: 20.0k of 200.0k tokens (10%) · claude-opus-5-5"),
            "{text}"
        );
        assert!(text.contains("| System prompt | 3.1k | 1.6% |"), "{text}");
        assert!(text.contains("| Free space | 180.0k | 90.0% |"), "{text}");
        assert!(!text.contains("deferred"), "{text}");
    }

    #[test]
    fn only_a_lone_context_command_is_answered_here() {
        let text = |t: &str| vec![PromptBlock::Text(t.into())];
        assert!(is_context_command(&text("/context")));
        assert!(is_context_command(&text("  /context  ")));
        assert!(!is_context_command(&text("/contexts")));
        assert!(!is_context_command(&text("what is /context")));
        assert!(!is_context_command(&text("/compact")));
    }
}
