//! claude's `result` line -> how the turn ended, and how full the context window is.

use serde_json::Value;

use crate::claude::wire::ResultMessage;
use crate::domain::{
    RateLimits, SessionUpdate, StopReason, ToolCallUpdate, ToolContent, ToolStatus, TurnUsage,
    Usage,
};

/// The end of a turn: updates to send first (the usage), then the prompt's answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TurnEnd {
    pub(crate) updates: Vec<SessionUpdate>,
    /// The stop reason, or claude's error message. The session overrides it with `Cancelled` when
    /// the user cancelled.
    pub(crate) outcome: Result<StopReason, String>,
    /// The tokens of the whole turn, when claude reported them.
    pub(crate) usage: Option<TurnUsage>,
    /// The subscription's windows as last reported.
    pub(crate) rate_limits: RateLimits,
    /// claude refused to start for a sign-in that only a new sign-in fixes.
    pub(crate) sign_in_needed: bool,
}

/// The context tokens of one API response: what went in (fresh, cached and cache-written input)
/// plus what came out, which is the conversation the next request carries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ContextTokens {
    pub(crate) input: u64,
    pub(crate) output: u64,
}

impl ContextTokens {
    /// From an API `usage` object (assistant line, `message_start`, or the result's).
    pub(crate) fn from_usage(usage: &Value) -> Self {
        let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        ContextTokens {
            input: n("input_tokens")
                + n("cache_read_input_tokens")
                + n("cache_creation_input_tokens"),
            output: n("output_tokens"),
        }
    }

    pub(crate) fn total(&self) -> u64 {
        self.input + self.output
    }
}

/// How the turn ended, from claude's `result`.
pub(crate) fn outcome(r: &ResultMessage) -> Result<StopReason, String> {
    if let Some("aborted_streaming" | "aborted_tools") = r.terminal_reason.as_deref() {
        return Ok(StopReason::Cancelled);
    }
    if r.subtype == "error_max_turns" {
        return Ok(StopReason::MaxTurnRequests);
    }
    if r.is_error || r.subtype.starts_with("error") {
        return Err(error_message(r));
    }
    Ok(match r.stop_reason.as_deref() {
        Some("max_tokens") => StopReason::MaxTokens,
        Some("refusal") => StopReason::Refusal,
        _ => StopReason::EndTurn,
    })
}

fn error_message(r: &ResultMessage) -> String {
    match &r.startup_failure_reason {
        Some(reason) => format!("claude could not start ({reason}): {}", claude_error(r)),
        None => claude_error(r),
    }
}

fn claude_error(r: &ResultMessage) -> String {
    if let Some(text) = r.result.as_deref().filter(|t| !t.trim().is_empty()) {
        return text.to_owned();
    }
    let errors: Vec<String> = r
        .errors
        .iter()
        .map(|e| match e {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    if errors.is_empty() {
        format!("claude ended the turn with an error ({})", r.subtype)
    } else {
        errors.join("\n")
    }
}

/// The cards of the calls claude's auto mode refused without its safety check
/// (`permission_denials[].auto_mode_unchecked`, the pinned claude): claude's tool result told the
/// model so; the card tells the user, in place of that text, that the call was not judged unsafe
/// and what would run it.
pub(crate) fn unchecked_denials(r: &ResultMessage) -> Vec<SessionUpdate> {
    r.permission_denials
        .iter()
        .filter_map(|denial| {
            let id = denial.get("tool_use_id").and_then(Value::as_str)?;
            let why = match denial.get("auto_mode_unchecked").and_then(Value::as_str)? {
                "no_check_in_session" => "claude's safety check does not run in this session",
                "no_verdict" => "claude's safety check gave no verdict on it (as in an outage)",
                _ => "claude's safety check did not judge it",
            };
            let text = format!(
                "Not run: {why}, so claude refused the call without judging it (it was not found \
                 unsafe). In another permission mode you are asked instead."
            );
            Some(SessionUpdate::ToolCallUpdate(ToolCallUpdate {
                id: id.to_owned(),
                status: Some(ToolStatus::Failed),
                content: Some(vec![ToolContent::Text { text }]),
                ..ToolCallUpdate::default()
            }))
        })
        .collect()
}

/// The tokens of the turn, from the result's `usage`.
pub(crate) fn turn_usage(r: &ResultMessage) -> Option<TurnUsage> {
    let usage = r.usage.as_ref()?;
    let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    Some(TurnUsage {
        input: n("input_tokens"),
        output: n("output_tokens"),
        cache_read: n("cache_read_input_tokens"),
        cache_write: n("cache_creation_input_tokens"),
        thinking: usage
            .get("output_tokens_details")
            .and_then(|d| d.get("thinking_tokens"))
            .and_then(Value::as_u64),
    })
}

/// The `usage_update` for the turn: `used` is the context of the last main-thread API response
/// (`last`), or the result's own usage when no response was seen; `size` the largest
/// `modelUsage.<model>.contextWindow`. No update when claude did not say the window's size.
pub(crate) fn usage_update(
    r: &ResultMessage,
    last: Option<ContextTokens>,
) -> Option<SessionUpdate> {
    let size = r
        .model_usage
        .as_ref()?
        .values()
        .filter_map(|m| m.get("contextWindow").and_then(Value::as_u64))
        .max()?;
    let used = last
        .or_else(|| r.usage.as_ref().map(ContextTokens::from_usage))?
        .total();
    Some(SessionUpdate::Usage(Usage {
        used,
        size,
        cost_usd: r.total_cost_usd,
        rate_limits: Default::default(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(v: Value) -> ResultMessage {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_call_refused_without_the_safety_check_says_so_on_its_card() {
        let r = result(
            json!({"type": "result", "subtype": "success", "permission_denials": [
                {"tool_name": "Bash", "tool_use_id": "t1", "tool_input": {"command": "touch x"},
                 "auto_mode_unchecked": "no_check_in_session"},
                {"tool_name": "Write", "tool_use_id": "t2", "tool_input": {}},
                {"tool_name": "Bash", "tool_use_id": "t3", "tool_input": {},
                 "auto_mode_unchecked": "no_verdict"},
            ]}),
        );
        let updates = unchecked_denials(&r);
        let texts: Vec<(String, String)> = updates
            .iter()
            .map(|u| match u {
                SessionUpdate::ToolCallUpdate(u) => match u.content.as_deref() {
                    Some([ToolContent::Text { text }]) => (u.id.clone(), text.clone()),
                    other => panic!("{other:?}"),
                },
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(texts.len(), 2, "a denial the user decided is left as it is");
        assert_eq!(texts[0].0, "t1");
        assert!(
            texts[0].1.contains("does not run in this session"),
            "{}",
            texts[0].1
        );
        assert!(texts[1].1.contains("no verdict"), "{}", texts[1].1);
    }

    #[test]
    fn stop_reasons_follow_claude_s_result() {
        let table = [
            (
                json!({"subtype": "success", "stop_reason": "end_turn", "terminal_reason": "completed"}),
                Ok(StopReason::EndTurn),
            ),
            (
                json!({"subtype": "success", "stop_reason": "max_tokens"}),
                Ok(StopReason::MaxTokens),
            ),
            (
                json!({"subtype": "success", "stop_reason": "refusal"}),
                Ok(StopReason::Refusal),
            ),
            (
                json!({"subtype": "error_max_turns", "is_error": true}),
                Ok(StopReason::MaxTurnRequests),
            ),
            (
                json!({"subtype": "error_during_execution", "is_error": true, "terminal_reason": "aborted_streaming", "errors": ["x"]}),
                Ok(StopReason::Cancelled),
            ),
            (
                json!({"subtype": "error_during_execution", "is_error": true, "terminal_reason": "aborted_tools"}),
                Ok(StopReason::Cancelled),
            ),
            (
                json!({"subtype": "success", "is_error": true, "result": "API Error: 401 invalid x-api-key"}),
                Err("API Error: 401 invalid x-api-key".to_owned()),
            ),
            (
                json!({"subtype": "error_during_execution", "is_error": true, "errors": ["one", "two"]}),
                Err("one\ntwo".to_owned()),
            ),
        ];
        for (line, want) in table {
            assert_eq!(outcome(&result(line.clone())), want, "{line}");
        }
    }

    #[test]
    fn usage_is_the_last_response_s_context_against_the_largest_window() {
        let r = result(json!({
            "subtype": "success", "total_cost_usd": 0.5,
            "usage": {"input_tokens": 5000, "output_tokens": 20},
            "modelUsage": {"a": {"contextWindow": 200000}, "b": {"contextWindow": 1000000}},
        }));
        let last = ContextTokens {
            input: 2700,
            output: 10,
        };
        assert_eq!(
            usage_update(&r, Some(last)),
            Some(SessionUpdate::Usage(Usage {
                used: 2710,
                size: 1_000_000,
                cost_usd: Some(0.5),
                rate_limits: Default::default(),
            }))
        );
        // No response seen (interrupted before any): the result's usage stands in.
        let Some(SessionUpdate::Usage(u)) = usage_update(&r, None) else {
            panic!()
        };
        assert_eq!(u.used, 5020);
        assert_eq!(
            usage_update(&result(json!({"subtype": "success"})), Some(last)),
            None
        );
    }
}
