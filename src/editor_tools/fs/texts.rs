//! The words claude's own Read, Write and Edit say, so the model reads the same results and errors
//! whether a file went through the editor or through claude.
//!
//! Every text here is what the pinned claude returned for the same call, captured by
//! `fixtures/editor_fs/run.sh` into `fixtures/editor_fs/tool_results.jsonl` (the `tool`
//! and `input` of each line name the case). Texts claude wraps in `<tool_use_error>` are its input
//! validation failures; the others are errors of the call itself.

use std::path::Path;

/// Read refuses a whole file above this size without `offset`/`limit` (or `allow_large`).
pub(crate) const MAX_READ_BYTES: usize = 256 * 1024;

/// claude's validation errors come wrapped in this tag; the model sees the tag.
pub(crate) fn tool_use_error(text: &str) -> String {
    format!("<tool_use_error>{text}</tool_use_error>")
}

/// Read of a missing file (also an Edit of one, wrapped in `<tool_use_error>`).
pub(crate) fn missing(cwd: &Path) -> String {
    format!(
        "File does not exist. Note: your current working directory is {}.",
        cwd.display()
    )
}

/// Read of a directory.
pub(crate) fn read_directory(path: &Path) -> String {
    format!(
        "EISDIR: illegal operation on a directory, read '{}'",
        path.display()
    )
}

/// Write to a directory.
pub(crate) fn write_directory(path: &Path) -> String {
    tool_use_error(&format!(
        "{} is a directory, not a file. To create a file inside it, include the file name in file_path.",
        path.display()
    ))
}

pub(crate) fn empty_file() -> String {
    "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>".into()
}

pub(crate) fn shorter_than_offset(offset: usize, total_lines: usize) -> String {
    format!(
        "<system-reminder>Warning: the file exists but is shorter than the provided offset ({offset}). The file has {total_lines} lines.</system-reminder>"
    )
}

pub(crate) fn too_large(bytes: usize) -> String {
    format!(
        "File content ({}) exceeds maximum allowed size ({}). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file. To read it anyway, up to what still fits in your context, call Read again with allow_large: true \u{2014} only if you genuinely need all of it or the user asked for the whole file.",
        file_size(bytes),
        file_size(MAX_READ_BYTES)
    )
}

/// Sizes as claude writes them: "256KB", "1.1MB".
pub(crate) fn file_size(bytes: usize) -> String {
    let (value, unit) = if bytes >= 1024 * 1024 {
        (bytes as f64 / (1024.0 * 1024.0), "MB")
    } else if bytes >= 1024 {
        (bytes as f64 / 1024.0, "KB")
    } else {
        return format!("{bytes} bytes");
    };
    let text = format!("{value:.1}");
    format!("{}{unit}", text.trim_end_matches(".0"))
}

/// Read of a file claude treats as binary (by its extension, or NUL bytes in it).
pub(crate) fn binary_file(extension: &str) -> String {
    tool_use_error(&format!(
        "This tool cannot read binary files. The file appears to be a binary .{extension} file. Use a skill for this file type if one is available, or a shell command or script that can read the format."
    ))
}

/// Edit or Write of a file with NUL bytes near its start.
pub(crate) fn nul_bytes() -> String {
    tool_use_error(
        "File has NUL bytes in its first 8 KB: binary data, UTF-16/UTF-32 without a byte-order mark, or text with embedded NULs. These tools write UTF-8 (or UTF-16LE behind its byte-order mark) and never convert a file's encoding on their own, so nothing was written. If the file is text, make the change with a shell command that reads and writes it in its own encoding (iconv, or PowerShell Get-Content/Set-Content -Encoding), or ask the user whether to convert it to UTF-8 first. To replace the whole file with new UTF-8 text anyway, delete it first, then Write it.",
    )
}

pub(crate) fn not_found(old: &str) -> String {
    tool_use_error(&format!(
        "String to replace not found in file.\nString: {old}"
    ))
}

pub(crate) fn not_unique(matches: usize, old: &str) -> String {
    tool_use_error(&format!(
        "Found {matches} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: {old}"
    ))
}

pub(crate) fn no_change() -> String {
    tool_use_error("No changes to make: old_string and new_string are exactly the same.")
}

pub(crate) fn already_exists() -> String {
    tool_use_error("Cannot create new file - file already exists.")
}

/// Write over a file that changed since the model read it.
pub(crate) fn modified_since_read() -> String {
    tool_use_error(
        "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.",
    )
}

/// What claude appends to a result when the model's view of the file is whole and current.
pub(crate) const IN_CONTEXT: &str =
    " (file state is current in your context \u{2014} no need to Read it back)";

/// What claude appends to an Edit applied to a file that changed since it was read.
pub(crate) const STALE: &str = " (note: the file had been modified on disk since you last read it \u{2014} the edit applied cleanly, but the file contains other changes not in your context. Read it before edits that depend on surrounding content.)";

pub(crate) fn edited(path: &Path, replace_all: bool, suffix: &str) -> String {
    if replace_all {
        format!(
            "The file {} has been updated. All occurrences were successfully replaced.{suffix}",
            path.display()
        )
    } else {
        format!(
            "The file {} has been updated successfully.{suffix}",
            path.display()
        )
    }
}

pub(crate) fn written(path: &Path, created: bool) -> String {
    if created {
        format!(
            "File created successfully at: {}{IN_CONTEXT}",
            path.display()
        )
    } else {
        format!(
            "The file {} has been updated successfully.{IN_CONTEXT}",
            path.display()
        )
    }
}
