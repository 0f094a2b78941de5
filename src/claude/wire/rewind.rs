//! `rewind_files`: claude putting back the files its edits changed since a prompt, from its own file
//! checkpoints (on when claude runs with [`FILE_CHECKPOINTING_ENV`]). A dry run says what would change.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The environment variable (and value) that turns on claude's file checkpoints in stream-json mode,
/// as the Agent SDK's `enableFileCheckpointing` does.
pub const FILE_CHECKPOINTING_ENV: (&str, &str) =
    ("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING", "true");

/// The fields of `{"subtype":"rewind_files"}`: back to how the files were before the prompt with
/// this uuid (the `uuid` of its line in claude's transcript).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RewindFilesRequest {
    pub user_message_id: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
}

/// claude's answer to `rewind_files`. A dry run lists the files and counts the lines; a real rewind
/// says only whether it happened (and how many linked files it refused to touch).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RewindFilesResult {
    pub can_rewind: bool,
    pub error: Option<String>,
    pub files_changed: Vec<String>,
    pub insertions: u64,
    pub deletions: u64,
    pub skipped_links: u64,
}

impl RewindFilesResult {
    /// Reads the `response` of claude's control reply.
    pub fn from_reply(reply: Value) -> Result<Self, String> {
        serde_json::from_value(reply).map_err(|e| format!("claude's rewind_files answer: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ClaudeInput, OutboundControl};
    use super::*;

    #[test]
    fn a_dry_run_is_asked_and_read_as_claude_2_1_332_speaks() {
        let line = ClaudeInput::ControlRequest {
            request_id: "r".into(),
            request: OutboundControl::RewindFiles(RewindFilesRequest {
                user_message_id: "u".into(),
                dry_run: true,
            }),
        }
        .to_line();
        assert_eq!(
            line,
            "{\"type\":\"control_request\",\"request_id\":\"r\",\"request\":{\"subtype\":\"rewind_files\",\"user_message_id\":\"u\",\"dry_run\":true}}\n"
        );
        let reply = serde_json::from_str(
            r#"{"canRewind":true,"filesChanged":["/w/a.txt"],"insertions":1,"deletions":2}"#,
        )
        .unwrap();
        let result = RewindFilesResult::from_reply(reply).unwrap();
        assert!(result.can_rewind);
        assert_eq!(result.files_changed, ["/w/a.txt"]);
        assert_eq!((result.insertions, result.deletions), (1, 2));
        let refused = serde_json::from_str(
            r#"{"canRewind":false,"error":"No file checkpoint found for this message."}"#,
        )
        .unwrap();
        let refused = RewindFilesResult::from_reply(refused).unwrap();
        assert!(!refused.can_rewind);
        assert!(refused.error.unwrap().contains("No file checkpoint"));
    }
}
