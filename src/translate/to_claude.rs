//! An editor prompt -> the `user` line claude reads. Never produces a message the API would
//! reject: no empty or blank text blocks, only image types the API takes, PDFs as documents within
//! the API's size, never empty content.

use crate::claude::wire::{ClaudeInput, InputBlock, UserInputMessage};
use crate::domain::PromptBlock;

/// Image types the Messages API accepts in an image block.
const API_IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/// The most a PDF may hold: the Messages API refuses a request over 32 MB.
pub(crate) const PDF_MAX_BYTES: usize = 32 * 1000 * 1000;

/// The most a text file sent as bytes may hold once decoded.
pub(crate) const TEXT_BLOB_MAX_BYTES: usize = 10 * 1024 * 1024;

/// Sent in place of a prompt with nothing in it, since claude needs non-empty content.
pub(crate) const EMPTY_PROMPT_TEXT: &str = "(The user sent an empty message.)";

/// The `user` line for one prompt.
pub(crate) fn user_message(session_id: &str, blocks: &[PromptBlock]) -> ClaudeInput {
    let mut content: Vec<InputBlock> = blocks.iter().filter_map(block).collect();
    if content.is_empty() {
        content.push(text(EMPTY_PROMPT_TEXT.to_owned()));
    }
    ClaudeInput::User {
        message: UserInputMessage {
            role: "user",
            content,
        },
        parent_tool_use_id: None,
        session_id: session_id.to_owned(),
        uuid: None,
        priority: None,
    }
}

fn block(block: &PromptBlock) -> Option<InputBlock> {
    match block {
        PromptBlock::Text(t) if t.trim().is_empty() => None,
        PromptBlock::Text(t) => Some(text(t.clone())),
        PromptBlock::Image {
            data,
            mime_type,
            uri,
        } => {
            if !data.is_empty() && API_IMAGE_TYPES.contains(&mime_type.as_str()) {
                Some(image(mime_type, data))
            } else {
                let what = uri.as_deref().map_or(String::new(), |u| format!(" {u}"));
                Some(text(format!(
                    "[An image{what} ({mime_type}) was attached but could not be included.]"
                )))
            }
        }
        PromptBlock::ResourceLink { uri, name } => Some(text(link(uri, name))),
        PromptBlock::EmbeddedText {
            uri, text: body, ..
        } => Some(text(format!(
            "<context ref=\"{}\">\n{body}\n</context>",
            attr(uri)
        ))),
        PromptBlock::EmbeddedBlob {
            uri,
            blob,
            mime_type,
        } => match mime_type.as_deref() {
            Some(mime) if !blob.is_empty() && API_IMAGE_TYPES.contains(&mime) => {
                Some(image(mime, blob))
            }
            Some(PDF) if !blob.is_empty() => {
                let title = file_path(uri)
                    .as_deref()
                    .and_then(|p| p.rsplit('/').next())
                    .map(str::to_owned);
                Some(InputBlock::base64_pdf(blob, title))
            }
            Some(mime)
                if is_text(mime)
                    && let Some(body) = decoded_text(blob) =>
            {
                Some(text(format!(
                    "<context ref=\"{}\">\n{body}\n</context>",
                    attr(uri)
                )))
            }
            mime => Some(text(format!(
                "[The file {} ({}) was attached as binary data, which is not included here.]",
                file_path(uri).unwrap_or_else(|| uri.clone()),
                mime.unwrap_or("unknown type")
            ))),
        },
    }
}

const PDF: &str = "application/pdf";

/// Media types whose bytes are text to show the model as such.
fn is_text(mime: &str) -> bool {
    let essence = mime.split(';').next().unwrap_or_default().trim();
    essence.starts_with("text/")
        || matches!(
            essence,
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/x-yaml"
                | "application/yaml"
                | "application/toml"
                | "application/x-sh"
        )
        || essence.ends_with("+json")
        || essence.ends_with("+xml")
}

/// Why a prompt cannot go to claude as it is: an attachment past what the model can take. The
/// editor gets it as an invalid-params error before anything is sent.
pub(crate) fn check_prompt(blocks: &[PromptBlock]) -> Result<(), String> {
    for block in blocks {
        let PromptBlock::EmbeddedBlob {
            uri,
            blob,
            mime_type: Some(mime),
        } = block
        else {
            continue;
        };
        let name = file_path(uri).unwrap_or_else(|| uri.clone());
        let size = decoded_len(blob);
        if mime == PDF && size > PDF_MAX_BYTES {
            return Err(format!(
                "the PDF {name} is {:.1} MB; the model takes PDFs of at most {} MB",
                size as f64 / 1e6,
                PDF_MAX_BYTES / 1_000_000
            ));
        }
        if is_text(mime) && size > TEXT_BLOB_MAX_BYTES {
            return Err(format!(
                "the file {name} is {:.1} MiB of text; at most {} MiB can be attached",
                size as f64 / (1024.0 * 1024.0),
                TEXT_BLOB_MAX_BYTES / (1024 * 1024)
            ));
        }
    }
    Ok(())
}

/// The size of base64 data once decoded (padding and whitespace not counted).
fn decoded_len(blob: &str) -> usize {
    let digits = blob
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
        .count();
    digits / 4 * 3 + (digits % 4).saturating_sub(1)
}

/// Base64 bytes as UTF-8 text; `None` when they are not base64 or not UTF-8 (then the file is
/// described, not shown).
fn decoded_text(blob: &str) -> Option<String> {
    let digit = |b: u8| -> Option<u32> {
        Some(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let mut bytes = Vec::with_capacity(decoded_len(blob));
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in blob.bytes().filter(|b| !b.is_ascii_whitespace()) {
        if b == b'=' {
            break;
        }
        acc = (acc << 6) | digit(b)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    String::from_utf8(bytes).ok()
}

fn text(text: String) -> InputBlock {
    InputBlock::text(text)
}

fn image(media_type: &str, data: &str) -> InputBlock {
    InputBlock::base64_image(media_type, data)
}

/// A file the user pointed at: `@/abs/path`, the way claude's own prompt box refers to files.
fn link(uri: &str, name: &str) -> String {
    match file_path(uri) {
        Some(path) => format!("@{path}"),
        None if name.is_empty() || name == uri => format!("<{uri}>"),
        None => format!("[{name}]({uri})"),
    }
}

/// The path of a `file://` URI, percent-decoded.
pub(crate) fn file_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    // file://host/path: only the empty host and localhost mean this machine.
    let path = if rest.starts_with('/') {
        rest
    } else {
        rest.strip_prefix("localhost")?
    };
    Some(percent_decode(path))
}

fn percent_decode(s: &str) -> String {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(hi), Some(lo)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(hi << 4 | lo);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn attr(value: &str) -> String {
    value.replace('&', "&amp;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claude::wire::Priority;
    use serde_json::{Value, json};

    /// The blocks as claude reads them.
    fn content(blocks: &[PromptBlock]) -> Vec<Value> {
        let ClaudeInput::User {
            message,
            parent_tool_use_id,
            session_id,
            ..
        } = user_message("s1", blocks)
        else {
            panic!("not a user message")
        };
        assert_eq!(message.role, "user");
        assert_eq!(parent_tool_use_id, None);
        assert_eq!(session_id, "s1");
        message
            .content
            .iter()
            .map(|block| serde_json::to_value(block).unwrap())
            .collect()
    }

    #[test]
    fn the_line_has_the_shape_claude_reads() {
        let line = user_message("s1", &[PromptBlock::Text("hi".into())]).to_line();
        assert_eq!(
            line,
            "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]},\"parent_tool_use_id\":null,\"session_id\":\"s1\"}\n"
        );
    }

    #[test]
    fn an_addressed_line_carries_its_uuid_and_priority() {
        let line = user_message("s1", &[PromptBlock::Text("hi".into())])
            .addressed("u1".into(), Some(Priority::Now))
            .to_line();
        let value: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["uuid"], "u1");
        assert_eq!(value["priority"], "now");
        let line = user_message("s1", &[PromptBlock::Text("hi".into())])
            .addressed("u2".into(), None)
            .to_line();
        let value: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["uuid"], "u2");
        assert!(value.get("priority").is_none(), "{value}");
    }

    #[test]
    fn text_and_images_pass_through() {
        let got = content(&[
            PromptBlock::Text("look".into()),
            PromptBlock::Image {
                data: "AAAA".into(),
                mime_type: "image/png".into(),
                uri: None,
            },
        ]);
        assert_eq!(
            got,
            vec![
                json!({"type": "text", "text": "look"}),
                json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}),
            ]
        );
    }

    #[test]
    fn an_image_type_the_api_rejects_becomes_a_note() {
        let got = content(&[PromptBlock::Image {
            data: "PHN2Zz4=".into(),
            mime_type: "image/svg+xml".into(),
            uri: Some("file:///a.svg".into()),
        }]);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0]["type"], "text");
        assert!(got[0]["text"].as_str().unwrap().contains("image/svg+xml"));
    }

    #[test]
    fn a_file_link_becomes_an_at_path_reference() {
        let got = content(&[PromptBlock::ResourceLink {
            uri: "file:///home/me/my%20project/main.rs".into(),
            name: "main.rs".into(),
        }]);
        assert_eq!(
            got,
            vec![json!({"type": "text", "text": "@/home/me/my project/main.rs"})]
        );
        let got = content(&[PromptBlock::ResourceLink {
            uri: "https://x.dev/doc".into(),
            name: "doc".into(),
        }]);
        assert_eq!(
            got,
            vec![json!({"type": "text", "text": "[doc](https://x.dev/doc)"})]
        );
    }

    #[test]
    fn embedded_text_is_wrapped_in_a_context_tag() {
        let got = content(&[PromptBlock::EmbeddedText {
            uri: "file:///p/a.rs".into(),
            text: "fn a() {}".into(),
            mime_type: Some("text/x-rust".into()),
        }]);
        assert_eq!(
            got,
            vec![
                json!({"type": "text", "text": "<context ref=\"file:///p/a.rs\">\nfn a() {}\n</context>"})
            ]
        );
    }

    #[test]
    fn embedded_blobs_are_images_when_they_can_be_and_notes_otherwise() {
        let got = content(&[
            PromptBlock::EmbeddedBlob {
                uri: "file:///p/a.jpg".into(),
                blob: "/9j/".into(),
                mime_type: Some("image/jpeg".into()),
            },
            PromptBlock::EmbeddedBlob {
                uri: "file:///p/a.zip".into(),
                blob: "UEsD".into(),
                mime_type: Some("application/zip".into()),
            },
        ]);
        assert_eq!(
            got[0],
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/"}})
        );
        let note = got[1]["text"].as_str().unwrap();
        assert!(
            note.contains("/p/a.zip") && note.contains("application/zip"),
            "{note}"
        );
        assert!(!note.contains("UEsD"));
    }

    #[test]
    fn a_pdf_is_a_document_and_a_text_file_is_its_text() {
        let got = content(&[
            PromptBlock::EmbeddedBlob {
                uri: "file:///p/spec.pdf".into(),
                blob: "JVBERi0=".into(),
                mime_type: Some("application/pdf".into()),
            },
            PromptBlock::EmbeddedBlob {
                uri: "file:///p/notes.md".into(),
                // "# Nötes\n" in UTF-8.
                blob: "IyBOw7Z0ZXMK".into(),
                mime_type: Some("text/markdown; charset=utf-8".into()),
            },
            PromptBlock::EmbeddedBlob {
                uri: "file:///p/bad.txt".into(),
                // Not UTF-8: described, not shown.
                blob: "//79".into(),
                mime_type: Some("text/plain".into()),
            },
        ]);
        assert_eq!(
            got[0],
            json!({"type": "document", "title": "spec.pdf",
                   "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}})
        );
        assert_eq!(
            got[1]["text"],
            "<context ref=\"file:///p/notes.md\">\n# Nötes\n\n</context>"
        );
        assert!(
            got[2]["text"].as_str().unwrap().contains("binary data"),
            "{}",
            got[2]
        );
    }

    #[test]
    fn attachments_past_the_models_limits_are_refused_with_their_size() {
        let blob = |mime: &str, bytes: usize| PromptBlock::EmbeddedBlob {
            uri: "file:///p/big".into(),
            blob: "A".repeat(bytes / 3 * 4),
            mime_type: Some(mime.into()),
        };
        assert_eq!(check_prompt(&[blob("application/pdf", 3_000_000)]), Ok(()));
        let error = check_prompt(&[blob("application/pdf", 33_000_000)]).unwrap_err();
        assert!(
            error.contains("/p/big") && error.contains("32 MB"),
            "{error}"
        );
        let error = check_prompt(&[blob("text/plain", 11 * 1024 * 1024)]).unwrap_err();
        assert!(error.contains("10 MiB"), "{error}");
        // Other types are not sent, so their size does not matter.
        assert_eq!(check_prompt(&[blob("application/zip", 40_000_000)]), Ok(()));
    }

    #[test]
    fn an_empty_or_blank_prompt_still_has_content() {
        for blocks in [
            vec![],
            vec![PromptBlock::Text(String::new())],
            vec![PromptBlock::Text(" \n".into())],
        ] {
            assert_eq!(
                content(&blocks),
                vec![json!({"type": "text", "text": EMPTY_PROMPT_TEXT})]
            );
        }
        // A blank block next to a real one is dropped, not sent.
        let got = content(&[PromptBlock::Text("".into()), PromptBlock::Text("go".into())]);
        assert_eq!(got, vec![json!({"type": "text", "text": "go"})]);
    }

    #[test]
    fn file_uris_decode_to_paths() {
        assert_eq!(
            file_path("file:///a/b%C3%A9.txt").as_deref(),
            Some("/a/bé.txt")
        );
        assert_eq!(file_path("file://localhost/a").as_deref(), Some("/a"));
        assert_eq!(file_path("file://otherhost/a"), None);
        assert_eq!(file_path("https://a"), None);
        assert_eq!(file_path("file:///100%").as_deref(), Some("/100%"));
    }
}
