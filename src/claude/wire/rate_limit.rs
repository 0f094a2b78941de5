//! claude's `rate_limit_event`: where a Claude subscription's usage windows stand; and its
//! `prompt_suggestion`, which claude makes only while the limits allow.

use serde::Deserialize;

use crate::claude::lenient;

/// `{"type":"rate_limit_event"}`: where one of a Claude subscription's usage windows stands (claude
/// sends one whenever it changes; none for API-key, Bedrock or Vertex sessions).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RateLimitEvent {
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub rate_limit_info: RateLimitInfo,
}

/// `{"type":"prompt_suggestion"}`: the prompt claude predicts the user sends next, after a turn
/// (only when asked for at `initialize`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PromptSuggestion {
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub suggestion: String,
}

/// One window's figures, as claude's `SDKRateLimitInfo` has them.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RateLimitInfo {
    /// `allowed`, `allowed_warning` or `rejected`.
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub status: String,
    /// When the window resets, in seconds since the epoch.
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub resets_at: Option<f64>,
    /// `five_hour`, `seven_day`, `seven_day_opus`, `seven_day_sonnet`, `overage`, ...
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub rate_limit_type: Option<String>,
    /// The share of the window used, 0 to 1.
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub utilization: Option<f64>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub is_using_overage: Option<bool>,
    /// Every window's own figures (the pinned claude's: `five_hour`, `seven_day`), where the fields above
    /// describe only the window claude deems representative (and its status may lag the window's).
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub unified_windows: std::collections::BTreeMap<String, RateLimitWindowInfo>,
}

/// One window of [`RateLimitInfo::unified_windows`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RateLimitWindowInfo {
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub status: String,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub utilization: Option<f64>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub resets_at: Option<f64>,
}

impl RateLimitInfo {
    /// Each window the event describes: its own figures where claude gives them per window, else
    /// the one window of the top-level fields.
    pub fn windows(&self) -> Vec<(String, RateLimitWindowInfo)> {
        if !self.unified_windows.is_empty() {
            return self
                .unified_windows
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
        }
        let Some(window) = self.rate_limit_type.clone() else {
            return Vec::new();
        };
        vec![(
            window,
            RateLimitWindowInfo {
                status: self.status.clone(),
                utilization: self.utilization,
                resets_at: self.resets_at,
            },
        )]
    }
}
