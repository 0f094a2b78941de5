//! What Read, Write and Edit compute from a file's text, without any I/O: the numbered lines Read
//! returns, the new text an Edit makes, and which of claude's results or errors applies.

use std::path::Path;

use super::texts;

/// A tool's answer for the model: its text, and whether it is an error.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    pub(crate) text: String,
    pub(crate) is_error: bool,
}

impl Answer {
    pub(crate) fn ok(text: String) -> Self {
        Self {
            text,
            is_error: false,
        }
    }

    pub(crate) fn error(text: String) -> Self {
        Self {
            text,
            is_error: true,
        }
    }
}

/// Read's range: claude's `offset` (the first line's number; 0 numbers the first line 0) and
/// `limit` (how many lines).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Range {
    pub(crate) offset: Option<usize>,
    pub(crate) limit: Option<usize>,
    pub(crate) allow_large: bool,
}

impl Range {
    /// Whether this read shows the whole file (so the model holds all of it).
    pub(crate) fn is_whole(&self) -> bool {
        self.offset.is_none() && self.limit.is_none()
    }
}

/// Read's text for `content`: each line as `<number>\t<line>`, lines split at `\n` (a `\r\n` is
/// one line end), a final line end giving a last empty line, as the pinned claude does.
pub(crate) fn numbered(content: &str, range: Range) -> Answer {
    if range.is_whole() && !range.allow_large && content.len() > texts::MAX_READ_BYTES {
        return Answer::error(texts::too_large(content.len()));
    }
    if content.is_empty() {
        return Answer::ok(texts::empty_file());
    }
    let content = content.replace("\r\n", "\n");
    let lines: Vec<&str> = content.split('\n').collect();
    let first = range.offset.unwrap_or(1);
    let start = first.saturating_sub(1);
    if start >= lines.len() {
        return Answer::ok(texts::shorter_than_offset(first, lines.len()));
    }
    let end = range.limit.map_or(lines.len(), |limit| {
        start.saturating_add(limit).min(lines.len())
    });
    let text = lines[start..end]
        .iter()
        .enumerate()
        .map(|(i, line)| format!("{}\t{line}", first + i))
        .collect::<Vec<_>>()
        .join("\n");
    Answer::ok(text)
}

/// What the model last saw of a file through these tools.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Seen {
    /// Read whole, or written: the text it holds.
    Whole(String),
    /// Read in part, when the file held this text.
    Part(String),
}

impl Seen {
    fn text(&self) -> &str {
        match self {
            Seen::Whole(t) | Seen::Part(t) => t,
        }
    }
}

/// One Edit: replace `old` with `new`, once or everywhere.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Change<'a> {
    pub(crate) old: &'a str,
    pub(crate) new: &'a str,
    pub(crate) replace_all: bool,
}

/// An Edit's outcome: the new text and the model's answer, or claude's error.
pub(crate) fn edit(
    path: &Path,
    cwd: &Path,
    current: Option<&str>,
    seen: Option<&Seen>,
    change: &Change<'_>,
) -> Result<(String, Answer), Answer> {
    if change.old == change.new {
        return Err(Answer::error(texts::no_change()));
    }
    let current = match current {
        None if change.old.is_empty() => {
            // An empty old_string on a missing file creates it.
            let text = texts::edited(path, false, texts::IN_CONTEXT);
            return Ok((change.new.to_owned(), Answer::ok(text)));
        }
        None => {
            return Err(Answer::error(texts::tool_use_error(&texts::missing(cwd))));
        }
        Some(current) => current,
    };
    let new_text = if change.old.is_empty() {
        if !current.is_empty() {
            return Err(Answer::error(texts::already_exists()));
        }
        change.new.to_owned()
    } else {
        let matches = current.matches(change.old).count();
        if matches == 0 {
            return Err(Answer::error(texts::not_found(change.old)));
        }
        if matches > 1 && !change.replace_all {
            return Err(Answer::error(texts::not_unique(matches, change.old)));
        }
        if change.replace_all {
            current.replace(change.old, change.new)
        } else {
            current.replacen(change.old, change.new, 1)
        }
    };
    let suffix = match seen {
        Some(Seen::Whole(text)) if text == current => texts::IN_CONTEXT,
        Some(seen) if seen.text() != current => texts::STALE,
        _ if change.old.is_empty() => texts::IN_CONTEXT,
        _ => "",
    };
    let answer = Answer::ok(texts::edited(path, change.replace_all, suffix));
    Ok((new_text, answer))
}

/// A Write's answer, or claude's error when the file changed since the model saw it.
pub(crate) fn write(
    path: &Path,
    current: Option<&str>,
    seen: Option<&Seen>,
) -> Result<Answer, Answer> {
    match (current, seen) {
        (Some(current), Some(seen)) if seen.text() != current => {
            Err(Answer::error(texts::modified_since_read()))
        }
        (current, _) => Ok(Answer::ok(texts::written(path, current.is_none()))),
    }
}

/// Extensions claude's Read shows as images (from disk, as an image block).
pub(crate) fn image_type(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => return None,
    })
}

/// Whether these first bytes of a file make it one claude will not treat as text.
pub(crate) fn looks_binary(head: &[u8]) -> bool {
    head.iter().take(8192).any(|b| *b == 0)
}

#[cfg(test)]
mod tests;
