//! A text chunk's `session/update` line for a v1 editor, written straight into its bytes: the
//! line a streamed reply sends once per delta, tens of thousands of times a turn. The same bytes
//! the SDK's types serialise to (the tests hold the two side by side), without building them.

use crate::domain::{ContentChunk, SessionUpdate};

/// The line (without its newline) of `update` to a v1 editor, when it is a text chunk of the
/// user, the agent or its thinking; `None` for every other update (and for images), which go
/// through the SDK's types. v1 has no message ids: `message_id` is not sent, as there.
pub(crate) fn text_chunk_line(session_id: &str, update: &SessionUpdate) -> Option<Vec<u8>> {
    let (kind, text) = match update {
        SessionUpdate::UserMessageChunk {
            content: ContentChunk::Text { text },
            ..
        } => ("user_message_chunk", text),
        SessionUpdate::AgentMessageChunk {
            content: ContentChunk::Text { text },
            ..
        } => ("agent_message_chunk", text),
        SessionUpdate::AgentThoughtChunk {
            content: ContentChunk::Text { text },
            ..
        } => ("agent_thought_chunk", text),
        _ => return None,
    };
    let mut line = Vec::with_capacity(160 + session_id.len() + text.len());
    line.extend_from_slice(br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"#);
    string(&mut line, session_id);
    line.extend_from_slice(br#","update":{"sessionUpdate":""#);
    line.extend_from_slice(kind.as_bytes());
    line.extend_from_slice(br#"","content":{"type":"text","text":"#);
    string(&mut line, text);
    line.extend_from_slice(b"}}}}");
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
    fn through_the_sdk(session_id: &str, update: SessionUpdate) -> Vec<u8> {
        let note =
            acp::SessionNotification::new(session_id.to_owned(), to_proto::session_update(update));
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
                for update in updates {
                    let fast = text_chunk_line(id, &update).expect("a text chunk");
                    assert_eq!(
                        String::from_utf8(fast).unwrap(),
                        String::from_utf8(through_the_sdk(id, update)).unwrap()
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
        assert!(text_chunk_line("s", &image).is_none());
        let mode = SessionUpdate::CurrentMode {
            mode_id: "plan".into(),
        };
        assert!(text_chunk_line("s", &mode).is_none());
    }
}
