//! Reading a transcript line by line, and telling what a `user` line is: something the person typed
//! (a prompt or a slash command), the output of a local command, tool results, or claude's own
//! injections that were never the person's words.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::domain::ContentChunk;

/// How much of a transcript one read asks for.
const READ_CHUNK: usize = 64 * 1024;

/// Calls `each` with every line of the file (invalid UTF-8 replaced), until it breaks.
pub(super) fn for_each_line(
    path: &Path,
    each: impl FnMut(&str) -> ControlFlow<()>,
) -> std::io::Result<()> {
    for_each_line_up_to(path, || usize::MAX, each)
}

/// [`for_each_line`] for a reader that wants only some lines whole: before each line `longest`
/// says how long a line may be; a longer one is read past, never held, and not passed on. A
/// transcript's tool lines can be tens of MiB (a Write's file, three times over), and a scan for
/// a title needs none of them.
pub(super) fn for_each_line_up_to(
    path: &Path,
    longest: impl FnMut() -> usize,
    each: impl FnMut(&str) -> ControlFlow<()>,
) -> std::io::Result<()> {
    for_each_wanted_line(path, longest, |_| true, each)
}

/// [`for_each_line_up_to`] passing on only the lines `wanted` accepts, as bytes, before any UTF-8
/// check: a listing looks for a few markers in every line of thousands of transcripts.
pub(super) fn for_each_wanted_line(
    path: &Path,
    longest: impl FnMut() -> usize,
    wanted: impl FnMut(&[u8]) -> bool,
    mut each: impl FnMut(&str) -> ControlFlow<()>,
) -> std::io::Result<()> {
    for_each_wanted_buffer(path, longest, wanted, |buffer| {
        each(&crate::utf8::lossy(buffer))
    })
}

/// [`for_each_wanted_line`] handing `each` the buffer the line was read into, its bytes as read
/// and its line end removed (empty lines are not passed on). `each` may take the buffer: a big
/// line then leaves with it instead of being copied out, and the next line starts a new one.
pub(super) fn for_each_wanted_buffer(
    path: &Path,
    mut longest: impl FnMut() -> usize,
    mut wanted: impl FnMut(&[u8]) -> bool,
    mut each: impl FnMut(&mut Vec<u8>) -> ControlFlow<()>,
) -> std::io::Result<()> {
    let mut reader = BufReader::with_capacity(READ_CHUNK, File::open(path)?);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        let limit = longest();
        if !read_line_up_to(&mut reader, &mut buffer, limit)? {
            if buffer.is_empty() {
                return Ok(());
            }
            continue;
        }
        if !wanted(&buffer) {
            continue;
        }
        let end = buffer
            .iter()
            .rposition(|&byte| byte != b'\n' && byte != b'\r')
            .map_or(0, |last| last + 1);
        buffer.truncate(end);
        if buffer.is_empty() {
            continue;
        }
        if each(&mut buffer).is_break() {
            return Ok(());
        }
    }
}

/// Calls `each` with every line of the file (empty ones too, newline removed), each of its string
/// literals longer than `longest_string` bytes (escaped) emptied to `""`: for a reader that wants
/// only a line's small fields (its ids), which then never holds a line's big text (a tool's
/// output, MiBs) at all. Bytes as read: not checked for UTF-8. A newline ends a line wherever it
/// is, as in every other read here.
pub(super) fn for_each_line_without_big_strings(
    path: &Path,
    longest_string: usize,
    mut each: impl FnMut(&[u8]),
) -> std::io::Result<()> {
    let mut reader = BufReader::with_capacity(READ_CHUNK, File::open(path)?);
    let mut line = Vec::new();
    // Inside a string: where its text starts in `line`, whether a backslash was just read, and
    // whether the string is being left out.
    let mut string: Option<(usize, bool, bool)> = None;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            if !line.is_empty() {
                each(&line);
            }
            return Ok(());
        }
        let mut at = 0;
        while at < available.len() {
            let rest = &available[at..];
            match &mut string {
                None => match memchr::memchr2(b'"', b'\n', rest) {
                    Some(found) if rest[found] == b'"' => {
                        line.extend_from_slice(&rest[..=found]);
                        string = Some((line.len(), false, false));
                        at += found + 1;
                    }
                    Some(found) => {
                        line.extend_from_slice(&rest[..found]);
                        each(&line);
                        line.clear();
                        at += found + 1;
                    }
                    None => {
                        line.extend_from_slice(rest);
                        at = available.len();
                    }
                },
                Some((start, escaped, left_out)) => {
                    let (start, left_out_now) = (*start, *left_out);
                    // The byte after a backslash is never the string's end.
                    let skip = usize::from(std::mem::take(escaped) && rest[0] != b'\n');
                    let found =
                        memchr::memchr3(b'"', b'\\', b'\n', &rest[skip..]).map(|f| f + skip);
                    let run = found.unwrap_or(rest.len());
                    if !left_out_now {
                        line.extend_from_slice(&rest[..run]);
                        if line.len() - start > longest_string {
                            line.truncate(start);
                            *left_out = true;
                        }
                    }
                    at += run;
                    let Some(found) = found else { continue };
                    match rest[found] {
                        b'"' => {
                            line.push(b'"');
                            string = None;
                        }
                        b'\\' => {
                            if !*left_out {
                                line.push(b'\\');
                            }
                            *escaped = true;
                        }
                        _ => {
                            each(&line);
                            line.clear();
                            string = None;
                        }
                    }
                    at += 1;
                }
            }
        }
        let consumed = available.len();
        reader.consume(consumed);
    }
}

/// Reads one line into `buffer` (newline included). `Ok(true)`: a line of at most `limit` bytes
/// is there; `Ok(false)` with `buffer` empty: the end of the file; `Ok(false)` with bytes in
/// `buffer`: a longer line, read past (its first bytes are all that was kept).
fn read_line_up_to(
    reader: &mut impl BufRead,
    buffer: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<bool> {
    let mut skipping = false;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok(!buffer.is_empty() && !skipping);
        }
        let (taken, ended) = match memchr::memchr(b'\n', available) {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        if !skipping {
            if buffer.len() + taken > limit.saturating_add(1) {
                skipping = true;
                buffer.clear();
                buffer.push(b'\n');
            } else {
                if buffer.len() + taken > buffer.capacity() && buffer.capacity() >= READ_CHUNK {
                    // A line longer than a read: its buffer goes straight to a mapped size
                    // (only the pages the line fills become resident), not through the heap.
                    let wanted =
                        (buffer.len() + taken).max(crate::platform::memory::MAP_ABOVE_BYTES);
                    buffer.reserve(wanted - buffer.len());
                }
                buffer.extend_from_slice(&available[..taken]);
            }
        }
        reader.consume(taken);
        if ended {
            return Ok(!skipping);
        }
    }
}

/// Parses a line, `None` for anything but a JSON object (e.g. a last line cut off mid-write).
pub(super) fn parse(line: &str) -> Option<Value> {
    match serde_json::from_str::<Value>(line) {
        Ok(value) if value.is_object() => Some(value),
        Ok(_) => None,
        Err(e) => {
            tracing::debug!("skipping a transcript line that is not JSON: {e}");
            None
        }
    }
}

pub(super) fn line_type(line: &Value) -> &str {
    line.get("type").and_then(Value::as_str).unwrap_or_default()
}

fn flag(line: &Value, key: &str) -> bool {
    line.get(key).and_then(Value::as_bool) == Some(true)
}

/// The cwd the session ran in, from the first line that records one.
pub(super) fn recorded_cwd(path: &Path) -> Option<PathBuf> {
    let mut cwd = None;
    let _ = for_each_line(path, |line| {
        if !line.contains("\"cwd\"") {
            return ControlFlow::Continue(());
        }
        match parse(line).and_then(|v| v.get("cwd")?.as_str().map(PathBuf::from)) {
            Some(found) => {
                cwd = Some(found);
                ControlFlow::Break(())
            }
            None => ControlFlow::Continue(()),
        }
    });
    cwd
}

/// What a `user` line is to the person reading the thread.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum UserLine {
    /// What the person typed (text and images).
    Prompt(Vec<ContentChunk>),
    /// A slash command the person ran, as typed: `/name args`.
    Command(String),
    /// What a local slash command printed.
    CommandOutput(String),
    /// Tool results: the translator's business.
    ToolResults,
    /// claude's own injections: meta lines, compaction summaries, interrupt markers.
    Skip,
}

/// Injected text that starts a user line claude wrote itself. "[Request interrupted by user]" is
/// hidden: in a live session the editor shows the cancel itself, and replayed it would read as if
/// the person had typed it.
const INJECTED_PREFIXES: [&str; 4] = [
    "[Request interrupted by user",
    "<local-command-caveat>",
    "<system-reminder>",
    "Caveat: The messages below were generated by the user while running local commands",
];

pub(super) fn classify_user(line: &Value) -> UserLine {
    let hidden = [
        "isMeta",
        "isCompactSummary",
        "isVisibleInTranscriptOnly",
        "isSidechain",
    ];
    if hidden.iter().any(|key| flag(line, key)) {
        return UserLine::Skip;
    }
    match line.pointer("/message/content") {
        Some(Value::String(text)) => classify_text(text),
        Some(Value::Array(blocks)) => classify_blocks(blocks),
        _ => UserLine::Skip,
    }
}

pub(super) fn classify_text(text: &str) -> UserLine {
    let trimmed = text.trim();
    if trimmed.is_empty() || INJECTED_PREFIXES.iter().any(|p| trimmed.starts_with(p)) {
        return UserLine::Skip;
    }
    if trimmed.starts_with("<command-name>") || trimmed.starts_with("<command-message>") {
        return match command_as_typed(trimmed) {
            Some(command) => UserLine::Command(command),
            None => UserLine::Skip,
        };
    }
    for tag in ["local-command-stdout", "local-command-stderr"] {
        if let Some(output) = tagged(trimmed, tag) {
            let output = output.trim();
            return if output.is_empty() {
                UserLine::Skip
            } else {
                UserLine::CommandOutput(output.to_owned())
            };
        }
    }
    UserLine::Prompt(vec![ContentChunk::text(text)])
}

fn classify_blocks(blocks: &[Value]) -> UserLine {
    if blocks.iter().any(|b| line_type(b) == "tool_result") {
        return UserLine::ToolResults;
    }
    let mut chunks = Vec::new();
    for block in blocks {
        match line_type(block) {
            "text" => {
                let text = block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                match classify_text(text) {
                    UserLine::Prompt(mut text_chunks) => chunks.append(&mut text_chunks),
                    // A command wrapper in block form: the whole line is that command.
                    other @ (UserLine::Command(_) | UserLine::CommandOutput(_))
                        if blocks.len() == 1 =>
                    {
                        return other;
                    }
                    _ => {}
                }
            }
            "image" => {
                let source = block.get("source");
                let field = |key: &str| {
                    source
                        .and_then(|s| s.get(key))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                };
                if let (Some(data), Some(mime_type)) = (field("data"), field("media_type")) {
                    chunks.push(ContentChunk::Image { data, mime_type });
                }
            }
            _ => {}
        }
    }
    if chunks.is_empty() {
        UserLine::Skip
    } else {
        UserLine::Prompt(chunks)
    }
}

/// `<command-name>/usage</command-name> ... <command-args>x</command-args>` -> `/usage x`.
fn command_as_typed(text: &str) -> Option<String> {
    let name = tagged(text, "command-name")
        .or_else(|| tagged(text, "command-message"))?
        .trim();
    if name.is_empty() {
        return None;
    }
    let slash = if name.starts_with('/') { "" } else { "/" };
    let args = tagged(text, "command-args").unwrap_or_default().trim();
    Some(if args.is_empty() {
        format!("{slash}{name}")
    } else {
        format!("{slash}{name} {args}")
    })
}

/// The text between `<tag>` and `</tag>`.
fn tagged<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let end = start + text[start..].find(&close)?;
    Some(&text[start..end])
}

/// The text of a prompt, for a title: its text chunks joined.
pub(super) fn prompt_text(chunks: &[ContentChunk]) -> String {
    chunks
        .iter()
        .filter_map(|c| match c {
            ContentChunk::Text { text } => Some(text.as_str()),
            ContentChunk::Image { .. } => None,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_longer_than_asked_are_read_past_and_not_passed_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let long = "y".repeat(200_000);
        std::fs::write(&path, format!("short one\n{long}\nshort two\n{long}")).unwrap();
        let mut seen = Vec::new();
        for_each_line_up_to(
            &path,
            || 1000,
            |line| {
                seen.push(line.len());
                ControlFlow::Continue(())
            },
        )
        .unwrap();
        assert_eq!(seen, [9, 9], "only the short lines, whole");
        let mut all = Vec::new();
        for_each_line(&path, |line| {
            all.push(line.len());
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(all, [9, 200_000, 9, 200_000]);
    }
}
