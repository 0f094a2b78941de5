//! claude compacting the conversation (`/compact`, or on its own when the context fills up), as
//! the pinned CLI says it on stdout: `system/status` with `status: "compacting"`, then
//! `system/status` with `compact_result` (`"success"` or a failure), then `system/compact_boundary`
//! whose `compact_metadata.post_tokens` is the context left.

use crate::claude::wire::SystemMessage;
use crate::domain::{CompactionStatus, SessionUpdate};

/// One session's compactions: numbered, so each has its own id.
#[derive(Debug, Default)]
pub(crate) struct Compactions {
    count: u32,
    /// The compaction in progress, or finished and not yet followed by its boundary.
    current: Option<(String, CompactionStatus)>,
}

/// What a `system` line says about compaction.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct CompactionNews {
    pub(crate) update: Option<SessionUpdate>,
    /// The context left after compaction, in tokens (from the boundary).
    pub(crate) context_after: Option<u64>,
}

impl Compactions {
    /// Reads a `system` line; nothing for lines that are not about compaction.
    pub(crate) fn on_system(&mut self, s: &SystemMessage) -> CompactionNews {
        let mut news = CompactionNews::default();
        match s.subtype.as_str() {
            "status" if s.str_field("status") == Some("compacting") => {
                let id = self.next_id();
                self.current = Some((id.clone(), CompactionStatus::InProgress));
                news.update = Some(update(id, CompactionStatus::InProgress));
            }
            "status" if s.rest.contains_key("compact_result") => {
                let status = match s.str_field("compact_result") {
                    Some("success") => CompactionStatus::Completed,
                    _ => CompactionStatus::Failed,
                };
                let id = match self.current.take() {
                    Some((id, _)) => id,
                    None => self.next_id(),
                };
                self.current = Some((id.clone(), status));
                news.update = Some(update(id, status));
            }
            "compact_boundary" => {
                // A boundary without the status lines before it still is a finished compaction.
                match self.current.take() {
                    Some((id, CompactionStatus::InProgress)) => {
                        news.update = Some(update(id, CompactionStatus::Completed));
                    }
                    Some(_) => {}
                    None => {
                        let id = self.next_id();
                        news.update = Some(update(id, CompactionStatus::Completed));
                    }
                }
                news.context_after = s
                    .rest
                    .get("compact_metadata")
                    .and_then(|m| m.get("post_tokens"))
                    .and_then(serde_json::Value::as_u64);
            }
            _ => {}
        }
        news
    }

    fn next_id(&mut self) -> String {
        self.count += 1;
        format!("compaction-{}", self.count)
    }
}

fn update(id: String, status: CompactionStatus) -> SessionUpdate {
    SessionUpdate::Compaction { id, status }
}

/// The short agent message that stands for a compaction update where the editor did not declare
/// `session.compaction`.
pub(crate) fn compaction_text(status: CompactionStatus) -> &'static str {
    match status {
        CompactionStatus::InProgress => "Compacting the conversation…\n\n",
        CompactionStatus::Completed => "Conversation compacted.\n\n",
        CompactionStatus::Failed => "Compacting the conversation failed.\n\n",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn system(v: serde_json::Value) -> SystemMessage {
        serde_json::from_value(v).unwrap()
    }

    /// The lines of `/compact` captured from the pinned CLI.
    #[test]
    fn compact_as_claude_says_it() {
        let mut c = Compactions::default();
        let start = c.on_system(&system(
            json!({"type": "system", "subtype": "status", "status": "compacting"}),
        ));
        assert_eq!(
            start.update,
            Some(update("compaction-1".into(), CompactionStatus::InProgress))
        );
        let done = c.on_system(&system(json!({"type": "system", "subtype": "status",
            "status": null, "compact_result": "success"})));
        assert_eq!(
            done.update,
            Some(update("compaction-1".into(), CompactionStatus::Completed))
        );
        let boundary = c.on_system(&system(
            json!({"type": "system", "subtype": "compact_boundary",
            "compact_metadata": {"trigger": "manual", "pre_tokens": 13454, "post_tokens": 2556}}),
        ));
        assert_eq!(
            boundary,
            CompactionNews {
                update: None,
                context_after: Some(2556)
            }
        );
        // A boundary alone (no status lines) is a finished compaction of its own.
        let alone = c.on_system(&system(
            json!({"type": "system", "subtype": "compact_boundary",
            "compact_metadata": {"trigger": "auto", "post_tokens": 900}}),
        ));
        assert_eq!(
            alone.update,
            Some(update("compaction-2".into(), CompactionStatus::Completed))
        );
        let mode = c.on_system(&system(
            json!({"type": "system", "subtype": "status", "permissionMode": "plan"}),
        ));
        assert_eq!(mode, CompactionNews::default());
    }

    #[test]
    fn a_failed_compaction_says_so() {
        let mut c = Compactions::default();
        c.on_system(&system(
            json!({"type": "system", "subtype": "status", "status": "compacting"}),
        ));
        let failed = c.on_system(&system(json!({"type": "system", "subtype": "status",
            "status": null, "compact_result": "failed"})));
        assert_eq!(
            failed.update,
            Some(update("compaction-1".into(), CompactionStatus::Failed))
        );
    }
}
