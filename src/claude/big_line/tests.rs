//! The big-line path against the normal one, on lines that are small but read as big (a literal
//! of 48 bytes or more counts as big here).

use super::parse;
use crate::claude::wire::{ClaudeMessage, ContentBlock, ToolResultContent, UserContent, WireError};

const LITERAL: usize = 48;
const FILLER: &str = "0123456789abcdefghij0123456789abcdefghij0123456789";

/// What the normal path makes of the line, as `read_stdout` calls it.
fn normal(line: &[u8]) -> Result<ClaudeMessage, WireError> {
    ClaudeMessage::parse(&String::from_utf8_lossy(line))
}

/// What the big-line path makes of the line (the normal path on the buffer it hands back), and
/// whether it read the line itself.
fn big(line: &[u8]) -> (Result<ClaudeMessage, WireError>, bool) {
    match parse(line.to_vec(), LITERAL) {
        Ok(parsed) => (parsed, true),
        Err(back) => {
            assert_eq!(back, line, "the buffer comes back untouched");
            (normal(&back), false)
        }
    }
}

fn user_line(content: &str) -> String {
    format!(
        r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"t1","type":"tool_result","content":"{content}"}}]}},"parent_tool_use_id":null,"tool_use_result":{{"file":{{"content":"{FILLER}"}}}}}}"#
    )
}

/// (what the line is, the line, whether the big-line path reads it itself).
fn cases() -> Vec<(&'static str, Vec<u8>, bool)> {
    let escapes =
        r#"quote \" backslash \\ slash \/ \b\f\n\r\t \u0041\u00e9\u20AC\ud83d\ude00 \u0000 end\\"#;
    let cases: Vec<(&str, String, bool)> = vec![
        ("escapes of every kind", user_line(escapes), true),
        (
            "multi-byte UTF-8",
            user_line("é€😀 ascii é€😀 ascii é€😀"),
            true,
        ),
        (
            "several big strings, a key among them",
            format!(
                r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"t","content":"{FILLER}\n1"}},{{"type":"text","text":"{FILLER}\n2"}}]}},"tool_use_result":{{"{FILLER} key":"{FILLER}\n3"}}}}"#
            ),
            true,
        ),
        (
            "the same big string twice (a command's output, stored twice)",
            format!(
                r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"t1","type":"tool_result","content":"{FILLER}\n\"é"}}]}},"tool_use_result":{{"stdout":"{FILLER}\n\"é","stderr":""}}}}"#
            ),
            true,
        ),
        (
            "the same big string twice, escaped two ways",
            format!(
                r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"t1","type":"tool_result","content":"{FILLER}\u00e9\/"}}]}},"tool_use_result":{{"stdout":"{FILLER}é/","stderr":""}}}}"#
            ),
            true,
        ),
        (
            "nested in arrays",
            format!(
                r#"{{"type":"user","message":{{"content":"short"}},"tool_use_result":[[["{FILLER}"],1.5e3,-0,true,null]]}}"#
            ),
            true,
        ),
        (
            "the assistant's Write",
            format!(
                r#"{{"type":"assistant","message":{{"id":"m","content":[{{"type":"tool_use","id":"toolu_1","name":"Write","input":{{"file_path":"/a","content":"{FILLER}\nline"}}}}]}},"session_id":"s"}}"#
            ),
            true,
        ),
        (
            "the Write's permission request",
            format!(
                r#"{{"type":"control_request","request_id":"r1","request":{{"subtype":"can_use_tool","tool_name":"Write","input":{{"file_path":"/a","content":"{FILLER}\u00e9"}}}}}}"#
            ),
            true,
        ),
        (
            "a result",
            format!(r#"{{"type":"result","subtype":"success","result":"{FILLER}"}}"#),
            true,
        ),
        (
            "an unknown type",
            format!(r#"{{"type":"brand_new","payload":"{FILLER}"}}"#),
            true,
        ),
        (
            "a known type of a bad shape",
            format!(r#"{{"type":"assistant","message":"{FILLER}"}}"#),
            true,
        ),
        (
            "a big type",
            format!(r#"{{"type":"{FILLER}","x":1}}"#),
            true,
        ),
        (
            "whitespace around",
            format!("  {{ \"type\" : \"result\" , \"result\" : \"{FILLER}\" }}  "),
            true,
        ),
        (
            "the placeholder text already there",
            format!(
                r#"{{"type":"result","result":"{FILLER}","errors":["\u0001claude-acp:big-literal:0"]}}"#
            ),
            false,
        ),
        (
            "the placeholder text inside a big string",
            format!(
                r#"{{"type":"result","result":"{FILLER}","errors":["{FILLER}\u0001claude-acp:big-literal:0"]}}"#
            ),
            true,
        ),
        (
            "a string like a placeholder",
            format!(
                r#"{{"type":"result","result":"{FILLER}","errors":["\u0001claude-acp:big-literal:07"]}}"#
            ),
            false,
        ),
        (
            "cut inside the big string",
            format!(r#"{{"type":"result","result":"{FILLER}"#),
            false,
        ),
        (
            "cut after the big string",
            format!(r#"{{"type":"result","result":"{FILLER}","is_error":tr"#),
            false,
        ),
        (
            "cut after a backslash",
            format!(r#"{{"type":"result","result":"{FILLER}\"#),
            false,
        ),
        (
            "a lone surrogate",
            user_line(&format!(r"{FILLER}\ud800")),
            false,
        ),
        (
            "a reversed surrogate pair",
            user_line(&format!(r"{FILLER}\ude00\ud83d")),
            false,
        ),
        (
            "an escape JSON does not have",
            user_line(&format!(r"{FILLER}\x41")),
            false,
        ),
        (
            "a raw control character",
            user_line(&format!("{FILLER}\tx")),
            false,
        ),
        (
            "a duplicate key",
            format!(r#"{{"type":"result","result":"{FILLER}","result":"{FILLER}"}}"#),
            false,
        ),
        ("not an object", format!(r#"["{FILLER}"]"#), false),
        ("no big string", r#"{"type":"result"}"#.to_owned(), false),
    ];
    let mut cases: Vec<_> = cases
        .into_iter()
        .map(|(what, line, big)| (what, line.into_bytes(), big))
        .collect();
    let mut invalid = user_line(FILLER).into_bytes();
    let at = invalid.len() - 60;
    invalid[at] = 0xff;
    cases.push(("invalid UTF-8", invalid, false));
    cases
}

#[test]
fn big_lines_read_as_the_normal_path_reads_them() {
    for (what, line, reads_itself) in cases() {
        let (big_result, taken) = big(&line);
        assert_eq!(taken, reads_itself, "{what}: which path");
        match (normal(&line), big_result) {
            (Ok(expected), Ok(got)) => assert_eq!(got, expected, "{what}"),
            (Err(WireError::NotJson(_)), Err(WireError::NotJson(_)))
            | (Err(WireError::BadShape { .. }), Err(WireError::BadShape { .. })) => {}
            (expected, got) => panic!("{what}: {got:?}, expected {expected:?}"),
        }
    }
}

#[test]
fn the_largest_string_is_the_line_s_own_buffer() {
    let text = format!("{FILLER}\\n").repeat(100);
    let line = user_line(&text).into_bytes();
    let buffer = line.as_ptr();
    let Ok(Ok(ClaudeMessage::User(user))) = parse(line, LITERAL) else {
        panic!("not read");
    };
    let UserContent::Blocks(blocks) = user.message.content else {
        panic!("no blocks");
    };
    let ContentBlock::ToolResult {
        content: ToolResultContent::Text(text),
        ..
    } = &blocks[0]
    else {
        panic!("no text tool result");
    };
    assert_eq!(*text, format!("{FILLER}\n").repeat(100));
    assert_eq!(text.as_ptr(), buffer, "not copied out of the line");
}
