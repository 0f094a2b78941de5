//! `/usage` in the prompt box, and the subscription's limits: claude-acp answers `/usage` itself,
//! as Markdown, from what claude already told this session (the last `result`'s cost and
//! `modelUsage`, and its `rate_limit_event`s), so it costs no model request.

use serde_json::Value;

use super::notices::{utc_minute, window_name};
use crate::claude::wire::{RateLimitInfo, ResultMessage};
use crate::domain::{PromptBlock, RateLimitStatus, RateLimitWindow, RateLimits, SlashCommand};

/// The command's name in the prompt box.
pub(crate) const USAGE_COMMAND: &str = "usage";

/// One model's tokens over the session (claude's `modelUsage` totals).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ModelTokens {
    pub(crate) input: u64,
    pub(crate) output: u64,
    pub(crate) cache_read: u64,
    pub(crate) cache_write: u64,
    pub(crate) cost_usd: Option<f64>,
}

/// The session's totals as of its last turn. claude's figures are cumulative over the process
/// (and a resumed session carries its earlier ones), so the last result's are the totals.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SessionTotals {
    pub(crate) cost_usd: Option<f64>,
    pub(crate) models: Vec<(String, ModelTokens)>,
}

impl SessionTotals {
    pub(crate) fn on_result(&mut self, r: &ResultMessage) {
        if let Some(cost) = r.total_cost_usd {
            self.cost_usd = Some(cost);
        }
        let Some(models) = &r.model_usage else { return };
        let n = |m: &Value, key: &str| m.get(key).and_then(Value::as_u64).unwrap_or(0);
        self.models = models
            .iter()
            .map(|(name, m)| {
                (
                    name.clone(),
                    ModelTokens {
                        input: n(m, "inputTokens"),
                        output: n(m, "outputTokens"),
                        cache_read: n(m, "cacheReadInputTokens"),
                        cache_write: n(m, "cacheCreationInputTokens"),
                        cost_usd: m.get("costUSD").and_then(Value::as_f64),
                    },
                )
            })
            .collect();
    }
}

/// Records one `rate_limit_event`; whether a window the editor is told about changed.
pub(crate) fn apply_rate_limit(limits: &mut RateLimits, info: &RateLimitInfo) -> bool {
    let mut changed = false;
    for (window, w) in info.windows() {
        let slot = match window.as_str() {
            "five_hour" => &mut limits.five_hour,
            "seven_day" => &mut limits.weekly,
            _ => continue,
        };
        let status = match w.status.as_str() {
            "allowed" => RateLimitStatus::Allowed,
            "allowed_warning" => RateLimitStatus::AllowedWarning,
            "rejected" => RateLimitStatus::Rejected,
            _ => continue,
        };
        let window = RateLimitWindow {
            status,
            used_share: w.utilization.map(|u| u.clamp(0.0, 1.0)),
            resets_at: w.resets_at,
        };
        changed |= *slot != Some(window);
        *slot = Some(window);
    }
    changed
}

/// Whether the prompt is `/usage` alone (arguments are ignored).
pub(crate) fn is_usage_command(blocks: &[PromptBlock]) -> bool {
    super::context_usage::is_command_alone(blocks, USAGE_COMMAND)
}

/// Offers `/usage` where claude's own list lacks it, with what claude-acp's answer shows.
pub(crate) fn with_usage_command(mut commands: Vec<SlashCommand>) -> Vec<SlashCommand> {
    let description = "Show the session's cost, tokens per model and your plan's limits";
    match commands.iter_mut().find(|c| c.name == USAGE_COMMAND) {
        Some(c) => c.description = description.into(),
        None => commands.push(SlashCommand {
            name: USAGE_COMMAND.into(),
            description: description.into(),
            input_hint: None,
            skill: false,
        }),
    }
    commands
}

/// The Markdown answer.
pub(crate) fn usage_text(totals: &SessionTotals, limits: &RateLimits) -> String {
    let mut text = String::from("## Usage\n\n");
    match totals.cost_usd {
        Some(cost) => text.push_str(&format!("**Session cost:** ${cost:.4}\n\n")),
        None => text.push_str("No turn has finished in this session yet.\n\n"),
    }
    if !totals.models.is_empty() {
        text.push_str("| Model | Input | Output | Cache read | Cache write | Cost |\n");
        text.push_str("| --- | ---: | ---: | ---: | ---: | ---: |\n");
        for (name, m) in &totals.models {
            let cost = m
                .cost_usd
                .map(|c| format!("${c:.4}"))
                .unwrap_or_else(|| "–".into());
            text.push_str(&format!(
                "| {name} | {} | {} | {} | {} | {cost} |\n",
                thousands(m.input),
                thousands(m.output),
                thousands(m.cache_read),
                thousands(m.cache_write),
            ));
        }
        text.push('\n');
    }
    if limits.is_empty() {
        text.push_str(
            "**Limits:** claude has reported none (they exist for Claude subscriptions, not for API keys, \
             Bedrock or Vertex, and come with the first reply).\n",
        );
        return text;
    }
    text.push_str("### Limits\n\n");
    for (window, limit) in [
        ("five_hour", &limits.five_hour),
        ("seven_day", &limits.weekly),
    ] {
        let Some(limit) = limit else { continue };
        let name = window_name(window);
        let mut name = name.strip_suffix(" limit").unwrap_or(&name).to_owned();
        if let Some(first) = name.get(..1) {
            name = first.to_uppercase() + &name[1..];
        }
        let used = limit
            .used_share
            .map(|u| format!("{} {:.0}% used", bar(u), u * 100.0))
            .unwrap_or_else(|| "usage not reported".into());
        let state = match limit.status {
            RateLimitStatus::Allowed => "",
            RateLimitStatus::AllowedWarning => " · **nearing the limit**",
            RateLimitStatus::Rejected => " · **limit reached**",
        };
        let resets = limit
            .resets_at
            .map(|t| format!(" · resets {}", utc_minute(t)))
            .unwrap_or_default();
        text.push_str(&format!("- **{name}:** `{used}`{state}{resets}\n"));
    }
    text
}

/// `██████░░░░` for 0.6.
fn bar(share: f64) -> String {
    let full = (share.clamp(0.0, 1.0) * 10.0).round() as usize;
    "█".repeat(full) + &"░".repeat(10 - full)
}

/// `12,345`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn info(window: &str, status: &str, used: f64) -> RateLimitInfo {
        RateLimitInfo {
            status: status.into(),
            resets_at: Some(1_796_371_200.0),
            rate_limit_type: Some(window.into()),
            utilization: Some(used),
            is_using_overage: None,
            unified_windows: Default::default(),
        }
    }

    #[test]
    fn usage_shows_cost_tokens_per_model_and_limits_as_bars() {
        let r: ResultMessage =
            serde_json::from_value(json!({"type": "result", "subtype": "success",
            "total_cost_usd": 0.1234,
            "modelUsage": {"claude-opus-5-5": {"inputTokens": 1200, "outputTokens": 34,
                "cacheReadInputTokens": 1234567, "cacheCreationInputTokens": 0, "costUSD": 0.1234,
                "contextWindow": 1000000}}}))
            .unwrap();
        let mut totals = SessionTotals::default();
        totals.on_result(&r);
        let mut limits = RateLimits::default();
        assert!(apply_rate_limit(
            &mut limits,
            &info("five_hour", "allowed_warning", 0.91)
        ));
        assert!(!apply_rate_limit(
            &mut limits,
            &info("five_hour", "allowed_warning", 0.91)
        ));
        assert!(apply_rate_limit(
            &mut limits,
            &info("seven_day", "allowed", 0.3)
        ));
        assert!(!apply_rate_limit(
            &mut limits,
            &info("overage", "allowed", 0.3)
        ));
        assert_eq!(
            usage_text(&totals, &limits),
            "## Usage\n\n**Session cost:** $0.1234\n\n\
             | Model | Input | Output | Cache read | Cache write | Cost |\n\
             | --- | ---: | ---: | ---: | ---: | ---: |\n\
             | claude-opus-5-5 | 1,200 | 34 | 1,234,567 | 0 | $0.1234 |\n\n\
             ### Limits\n\n\
             - **5-hour:** `█████████░ 91% used` · **nearing the limit** · resets 2026-12-04 08:00 UTC\n\
             - **Weekly:** `███░░░░░░░ 30% used` · resets 2026-12-04 08:00 UTC\n"
        );
    }

    #[test]
    fn usage_before_any_turn_and_without_limits() {
        let text = usage_text(&SessionTotals::default(), &RateLimits::default());
        assert!(text.contains("No turn has finished"), "{text}");
        assert!(text.contains("claude has reported none"), "{text}");
    }

    #[test]
    fn only_a_bare_usage_prompt_is_the_command() {
        let text = |t: &str| vec![PromptBlock::Text(t.into())];
        assert!(is_usage_command(&text("/usage")));
        assert!(is_usage_command(&text("  /usage now ")));
        assert!(!is_usage_command(&text("/usages")));
        assert!(!is_usage_command(&text("what is /usage")));
    }
}
