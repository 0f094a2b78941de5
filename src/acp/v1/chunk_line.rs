//! A text chunk's `session/update` line for a v1 editor, written straight into its bytes: the
//! line a streamed reply sends once per delta, tens of thousands of times a turn. The same bytes
//! the SDK's types serialise to (the tests hold the two side by side), without building them.

use crate::domain::{ContentChunk, SessionUpdate};

/// The line (without its newline) of `update` to a v1 editor, when it is a text chunk of the
/// user, the agent or its thinking; `None` for every other update (and for images), which go
/// through the SDK's types. `message_ids`: the chunk's `messageId` is sent, where known (to an
/// editor that takes cursors, which are anchored by it); else it is not, as v1 editors had it.
pub(crate) fn text_chunk_line(
    session_id: &str,
    update: &SessionUpdate,
    message_ids: bool,
) -> Option<Vec<u8>> {
    let (kind, text, id) = match update {
        SessionUpdate::UserMessageChunk {
            content: ContentChunk::Text { text },
            message_id,
        } => ("user_message_chunk", text, message_id),
        SessionUpdate::AgentMessageChunk {
            content: ContentChunk::Text { text },
            message_id,
        } => ("agent_message_chunk", text, message_id),
        SessionUpdate::AgentThoughtChunk {
            content: ContentChunk::Text { text },
            message_id,
        } => ("agent_thought_chunk", text, message_id),
        _ => return None,
    };
    let id = id.as_deref().filter(|_| message_ids);
    let mut line = Vec::with_capacity(160 + session_id.len() + text.len());
    line.extend_from_slice(br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"#);
    string(&mut line, session_id);
    line.extend_from_slice(br#","update":{"sessionUpdate":""#);
    line.extend_from_slice(kind.as_bytes());
    line.extend_from_slice(br#"","content":{"type":"text","text":"#);
    string(&mut line, text);
    line.push(b'}');
    if let Some(id) = id {
        line.extend_from_slice(br#","messageId":"#);
        string(&mut line, id);
    }
    line.extend_from_slice(b"}}}");
    Some(line)
}

/// `text` as a JSON string literal, escaped as serde_json escapes it.
fn string(line: &mut Vec<u8>, text: &str) {
    // Writing a string into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *line, text);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp::shared::to_proto;
    use crate::acp::transport::Notification;
    use agent_client_protocol::v1::schema as acp;

    /// What the SDK's types give for the same update.
    fn through_the_sdk(session_id: &str, update: SessionUpdate, message_ids: bool) -> Vec<u8> {
        let id = match &update {
            SessionUpdate::UserMessageChunk { message_id, .. }
            | SessionUpdate::AgentMessageChunk { message_id, .. }
            | SessionUpdate::AgentThoughtChunk { message_id, .. } => message_id.clone(),
            _ => None,
        };
        let mut update = to_proto::session_update(update);
        if message_ids {
            match &mut update {
                acp::SessionUpdate::UserMessageChunk(chunk)
                | acp::SessionUpdate::AgentMessageChunk(chunk)
                | acp::SessionUpdate::AgentThoughtChunk(chunk) => {
                    chunk.message_id = id.map(Into::into);
                }
                _ => {}
            }
        }
        let note = acp::SessionNotification::new(session_id.to_owned(), update);
        serde_json::to_vec(&Notification::new("session/update", note)).expect("serialises")
    }

    #[test]
    fn a_text_chunk_is_the_line_the_sdk_would_write_byte_for_byte() {
        let texts = [
            "",
            "t0 ",
            "plain words",
            "quotes \" and \\ backslashes",
            "lines\nand\ttabs\r\n",
            "control \u{1} \u{1f} \u{7f} chars",
            "unicode: é 中文 🙂 \u{2028}\u{2029}",
            "</script> {\"type\":\"diff\"}",
        ];
        let ids = ["a796d1e4-2765-4cc6-aeb4-1cba1fb076c2", "odd \"id\"\n"];
        for id in ids {
            for text in texts {
                let updates = [
                    SessionUpdate::UserMessageChunk {
                        content: ContentChunk::text(text),
                        message_id: Some("m".into()),
                    },
                    SessionUpdate::AgentMessageChunk {
                        content: ContentChunk::text(text),
                        message_id: None,
                    },
                    SessionUpdate::AgentThoughtChunk {
                        content: ContentChunk::text(text),
                        message_id: Some("msg_1:0".into()),
                    },
                ];
                for (update, message_ids) in updates
                    .into_iter()
                    .flat_map(|u| [(u.clone(), false), (u, true)])
                {
                    let fast = text_chunk_line(id, &update, message_ids).expect("a text chunk");
                    assert_eq!(
                        String::from_utf8(fast).unwrap(),
                        String::from_utf8(through_the_sdk(id, update, message_ids)).unwrap()
                    );
                }
            }
        }
    }

    #[test]
    fn other_updates_and_images_go_through_the_sdk() {
        let image = SessionUpdate::AgentMessageChunk {
            content: ContentChunk::Image {
                data: "AAAA".into(),
                mime_type: "image/png".into(),
            },
            message_id: None,
        };
        assert!(text_chunk_line("s", &image, true).is_none());
        let mode = SessionUpdate::CurrentMode {
            mode_id: "plan".into(),
        };
        assert!(text_chunk_line("s", &mode, true).is_none());
    }
}
