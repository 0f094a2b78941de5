//! One Read, Write or Edit: the file's text from the editor (or the disk, outside the workspace),
//! the answer [`super::logic`] computes, the new text handed to the editor, and the tool call
//! shown with the change against the editor's buffer.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::EditorFiles;
use super::logic::{self, Answer, Change, Range, Seen};
use super::texts;
use crate::claude::sdk_mcp::{self, McpContent};
use crate::domain::{SessionUpdate, ToolCallUpdate, ToolContent, ToolLocation};
use crate::editor_tools::answer_bound;

/// A tool's result as claude's MCP client reads it.
pub(crate) struct Reply {
    content: Vec<McpContent>,
    is_error: bool,
}

impl Reply {
    pub(crate) fn error(text: String) -> Self {
        Self::from(Answer::error(text))
    }

    pub(crate) fn to_mcp(&self) -> Value {
        sdk_mcp::call_result(self.content.clone(), self.is_error)
    }
}

impl From<Answer> for Reply {
    fn from(answer: Answer) -> Self {
        Self {
            content: vec![McpContent::Text { text: answer.text }],
            is_error: answer.is_error,
        }
    }
}

/// Whether a file the disk lacks is asked of the editor (an unsaved new buffer).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Unsaved {
    Ask,
    Skip,
}

/// Where a file's text lives for these tools.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Holder {
    Editor,
    /// Outside the workspace: the disk, as claude's own tools would use it.
    Disk,
}

impl EditorFiles {
    fn path_of(&self, input: &Value) -> Result<PathBuf, Reply> {
        let path = input
            .get("file_path")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
            .ok_or_else(|| {
                Reply::error(texts::tool_use_error(
                    "InputValidationError: The required parameter `file_path` is missing",
                ))
            })?;
        // `~/x` is the home directory's, as claude's own tools take it.
        let path = crate::platform::dirs::expand_home(path);
        Ok(if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.cwd.join(path)
        })
    }

    /// The editor holds what is in the workspace as the file system reaches it (`..` and
    /// symlinks resolved): a link in the workspace to a file outside is outside.
    fn holder(&self, path: &Path) -> Holder {
        let real = crate::platform::real_path::real_path(path);
        if real.is_some_and(|real| self.roots.iter().any(|root| real.starts_with(root))) {
            Holder::Editor
        } else {
            Holder::Disk
        }
    }

    /// The file's text, `None` when it does not exist. A file the disk lacks may still be an
    /// unsaved new buffer of the editor's: with `Unsaved::Ask` the editor is asked (its error
    /// means "no file"); a Write, which replaces whatever is there, does not ask, so that an
    /// editor that shows its failed requests (acpx) shows no error for each new file.
    async fn load(
        &self,
        path: &Path,
        holder: Holder,
        unsaved: Unsaved,
    ) -> Result<Option<String>, Answer> {
        let on_disk = path.exists();
        match holder {
            Holder::Disk if !on_disk => Ok(None),
            Holder::Editor if !on_disk && unsaved == Unsaved::Skip => Ok(None),
            Holder::Disk => std::fs::read_to_string(path)
                .map(Some)
                .map_err(|e| Answer::error(format!("{e}"))),
            Holder::Editor => {
                let read = self.editor.read_text_file(&self.session_id, path);
                match answer_bound::answer(self.bound, read).await {
                    Ok(Ok(text)) => Ok(Some(text)),
                    Ok(Err(_)) if !on_disk => Ok(None),
                    Ok(Err(e)) => Err(Answer::error(format!(
                        "The editor could not read {}: {e}",
                        path.display()
                    ))),
                    Err(bound) => Err(Answer::error(format!(
                        "The editor did not answer fs/read_text_file for {} within {} ({})",
                        path.display(),
                        answer_bound::describe(bound),
                        answer_bound::ENV
                    ))),
                }
            }
        }
    }

    /// Writes `text` over `before` (`None`: the file does not exist). A write through the editor
    /// is noted first, so `/undo` can put `before` back (claude's checkpoints never see it).
    async fn store(
        &self,
        path: &Path,
        holder: Holder,
        before: Option<&str>,
        text: String,
    ) -> Result<(), Answer> {
        match holder {
            Holder::Disk => {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| Answer::error(format!("{e}")))?;
                }
                std::fs::write(path, text).map_err(|e| Answer::error(format!("{e}")))
            }
            Holder::Editor => {
                self.log.note_write(path, before).await;
                let write = self.editor.write_text_file(&self.session_id, path, text);
                match answer_bound::answer(self.bound, write).await {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(e)) => Err(Answer::error(format!(
                        "The editor could not write {}: {e}",
                        path.display()
                    ))),
                    Err(bound) => Err(Answer::error(format!(
                        "The editor did not answer fs/write_text_file for {} within {} ({})",
                        path.display(),
                        answer_bound::describe(bound),
                        answer_bound::ENV
                    ))),
                }
            }
        }
    }

    fn seen(&self, path: &Path) -> Option<Seen> {
        self.seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(path)
            .cloned()
    }

    fn saw(&self, path: &Path, seen: Seen) {
        self.seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(path.to_path_buf(), seen);
    }

    /// Shows the change on the tool call: the whole file before (the editor's buffer) and after.
    fn show(
        &self,
        tool_use_id: Option<&str>,
        path: &Path,
        old: Option<&str>,
        new: &str,
        holder: Holder,
    ) {
        let Some(id) = tool_use_id else { return };
        let path_text = path.display().to_string();
        let mut content = vec![ToolContent::Diff {
            path: path_text.clone(),
            old_text: old.map(str::to_owned),
            new_text: new.to_owned(),
        }];
        if holder == Holder::Disk {
            content.push(ToolContent::Text {
                text: "Outside the workspace: written to disk, not through the editor.".into(),
            });
        }
        self.update(id, path_text, content);
    }

    fn update(&self, id: &str, path: String, content: Vec<ToolContent>) {
        let update = ToolCallUpdate {
            id: id.to_owned(),
            title: None,
            kind: None,
            status: None,
            locations: Some(vec![ToolLocation { path, line: None }]),
            content: Some(content),
            raw_input: None,
            raw_output: None,
            raw_output_shown: None,
            elapsed_seconds: None,
            async_task_id: None,
        };
        self.editor
            .session_update(&self.session_id, SessionUpdate::ToolCallUpdate(update));
    }

    pub(super) async fn read(&self, input: &Value, tool_use_id: Option<&str>) -> Reply {
        let path = match self.path_of(input) {
            Ok(path) => path,
            Err(reply) => return reply,
        };
        let number = |key: &str| input.get(key).and_then(Value::as_u64).map(|n| n as usize);
        let range = Range {
            offset: number("offset"),
            limit: number("limit"),
            allow_large: input.get("allow_large").and_then(Value::as_bool) == Some(true),
        };
        if path.is_dir() {
            return Answer::error(texts::read_directory(&path)).into();
        }
        // A file the disk lacks may be an unsaved new buffer: `load` asks the editor.
        let on_disk = path.exists();
        // Images and binary files are claude's own business: served from disk as it would.
        if on_disk && let Some(media_type) = logic::image_type(&path) {
            return match std::fs::read(&path) {
                Ok(bytes) => Reply {
                    content: vec![McpContent::Image {
                        data: base64(&bytes),
                        mime_type: media_type.into(),
                    }],
                    is_error: false,
                },
                Err(e) => Reply::error(format!("{e}")),
            };
        }
        if on_disk && head_is_binary(&path) {
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            return Answer::error(texts::binary_file(ext)).into();
        }
        let holder = self.holder(&path);
        if holder == Holder::Disk
            && let Some(id) = tool_use_id
        {
            let text = "Outside the workspace: read from disk, not through the editor.";
            self.update(
                id,
                path.display().to_string(),
                vec![ToolContent::Text { text: text.into() }],
            );
        }
        let text = match self.load(&path, holder, Unsaved::Ask).await {
            Ok(Some(text)) => text,
            Ok(None) => return Answer::error(texts::missing(&self.cwd)).into(),
            Err(answer) => return answer.into(),
        };
        let answer = logic::numbered(&text, range);
        if !answer.is_error {
            let seen = if range.is_whole() {
                Seen::Whole(text)
            } else {
                Seen::Part(text)
            };
            self.saw(&path, seen);
        }
        answer.into()
    }

    pub(super) async fn write(&self, input: &Value, tool_use_id: Option<&str>) -> Reply {
        let path = match self.path_of(input) {
            Ok(path) => path,
            Err(reply) => return reply,
        };
        let Some(content) = input.get("content").and_then(Value::as_str) else {
            return Reply::error(texts::tool_use_error(
                "InputValidationError: The required parameter `content` is missing",
            ));
        };
        if path.is_dir() {
            return Answer::error(texts::write_directory(&path)).into();
        }
        let holder = self.holder(&path);
        let current = match self.load(&path, holder, Unsaved::Skip).await {
            Ok(current) => current,
            Err(answer) => return answer.into(),
        };
        let answer = match logic::write(&path, current.as_deref(), self.seen(&path).as_ref()) {
            Ok(answer) => answer,
            Err(answer) => return answer.into(),
        };
        self.show(tool_use_id, &path, current.as_deref(), content, holder);
        if let Err(answer) = self
            .store(&path, holder, current.as_deref(), content.to_owned())
            .await
        {
            return answer.into();
        }
        self.saw(&path, Seen::Whole(content.to_owned()));
        answer.into()
    }

    pub(super) async fn edit(&self, input: &Value, tool_use_id: Option<&str>) -> Reply {
        let path = match self.path_of(input) {
            Ok(path) => path,
            Err(reply) => return reply,
        };
        let s = |key: &str| input.get(key).and_then(Value::as_str);
        let (Some(old), Some(new)) = (s("old_string"), s("new_string")) else {
            return Reply::error(texts::tool_use_error(
                "InputValidationError: The required parameters `old_string` and `new_string` are missing",
            ));
        };
        if path.exists() && head_is_binary(&path) {
            return Answer::error(texts::nul_bytes()).into();
        }
        let change = Change {
            old,
            new,
            replace_all: input.get("replace_all").and_then(Value::as_bool) == Some(true),
        };
        let holder = self.holder(&path);
        let current = match self.load(&path, holder, Unsaved::Ask).await {
            Ok(current) => current,
            Err(answer) => return answer.into(),
        };
        let seen = self.seen(&path);
        let (new_text, answer) =
            match logic::edit(&path, &self.cwd, current.as_deref(), seen.as_ref(), &change) {
                Ok(done) => done,
                Err(answer) => return answer.into(),
            };
        self.show(tool_use_id, &path, current.as_deref(), &new_text, holder);
        if let Err(answer) = self
            .store(&path, holder, current.as_deref(), new_text.clone())
            .await
        {
            return answer.into();
        }
        self.saw(&path, Seen::Whole(new_text));
        answer.into()
    }
}

impl EditorFiles {
    /// The change a Write or Edit would make, as a diff of the whole file against the editor's
    /// buffer, for the permission prompt; `None` when it cannot be computed (the call then
    /// fails with its own error once allowed).
    pub(crate) async fn preview(&self, tool: &str, input: &Value) -> Option<ToolContent> {
        let path = self.path_of(input).ok()?;
        let holder = self.holder(&path);
        let unsaved = match tool {
            "Write" => Unsaved::Skip,
            _ => Unsaved::Ask,
        };
        let current = self.load(&path, holder, unsaved).await.ok()?;
        let new = match tool {
            "Write" => input.get("content")?.as_str()?.to_owned(),
            "Edit" => {
                let s = |key: &str| input.get(key).and_then(Value::as_str);
                let change = Change {
                    old: s("old_string")?,
                    new: s("new_string")?,
                    replace_all: input.get("replace_all").and_then(Value::as_bool) == Some(true),
                };
                logic::edit(&path, &self.cwd, current.as_deref(), None, &change)
                    .ok()?
                    .0
            }
            _ => return None,
        };
        Some(ToolContent::Diff {
            path: path.display().to_string(),
            old_text: current,
            new_text: new,
        })
    }
}

/// Whether the file's first 8 KB on disk hold a NUL byte (what claude calls binary).
fn head_is_binary(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::with_capacity(8192);
    match std::fs::File::open(path) {
        Ok(file) => {
            let _ = file.take(8192).read_to_end(&mut head);
            logic::looks_binary(&head)
        }
        Err(_) => false,
    }
}

/// Standard base64 with padding, for image blocks.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_the_standard_alphabet() {
        // The PNG of fixtures/editor_fs (claude's own Read gave this data for it).
        let png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
        assert_eq!(super::base64(&png), "iVBORw0KGgo=");
        assert_eq!(super::base64(b"ab"), "YWI=");
        assert_eq!(super::base64(b""), "");
    }
}
