//! A file diff in ACP v2's form (the files changed, and a git patch): the tool call writer
//! ([`super::tool_call_json`]) writes it for a v2 editor straight from a Write's input, and v2's
//! conversion of v1's updates makes it from v1's diff.

use serde_json::{Value, json};

/// One item of a v1 tool call's content as v2's: a diff as a file change.
pub(crate) fn tool_content(item: &mut Value) {
    if item["type"] == "diff" {
        *item = diff(item);
    }
}

/// A new file's diff in v2's form whose git patch is written from the file's text while the
/// message is serialised (a Write's text is held once, in its input): the JSON of [`diff`] for
/// that file, byte for byte in meaning.
pub(crate) struct AddedFile<'a> {
    path: &'a std::path::Path,
    text: &'a str,
}

impl<'a> AddedFile<'a> {
    pub(crate) fn new(path: &'a std::path::Path, text: &'a str) -> Self {
        AddedFile { path, text }
    }
}

impl serde::Serialize for AddedFile<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let path = self.path.to_string_lossy();
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("type", "diff")?;
        let change = json!({"operation": "add", "path": path, "fileType": "text"});
        map.serialize_entry("changes", &[change])?;
        let patch = AddedPatch {
            name: path.trim_start_matches('/'),
            text: self.text,
        };
        map.serialize_entry("patch", &PatchJson { patch })?;
        map.end()
    }
}

struct PatchJson<'a> {
    patch: AddedPatch<'a>,
}

impl serde::Serialize for PatchJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("format", "git_patch")?;
        map.serialize_entry("text", &Streamed(&self.patch))?;
        map.end()
    }
}

/// A string written piece by piece (`serde_json` escapes each piece into the output as it comes).
struct Streamed<'a, T>(&'a T);

impl<T: std::fmt::Display> serde::Serialize for Streamed<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self.0)
    }
}

/// The git patch that adds file `name` holding `text`, as [`git_patch`] writes it.
struct AddedPatch<'a> {
    name: &'a str,
    text: &'a str,
}

impl std::fmt::Display for AddedPatch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self.name;
        write!(f, "diff --git a/{name} b/{name}\nnew file mode 100644\n")?;
        if self.text.is_empty() {
            return Ok(());
        }
        let lines = self.text.split_inclusive('\n').count();
        let range = if lines == 1 {
            "1".to_owned()
        } else {
            format!("1,{lines}")
        };
        write!(f, "--- /dev/null\n+++ b/{name}\n@@ -0,0 +{range} @@\n")?;
        for line in self.text.split_inclusive('\n') {
            f.write_str("+")?;
            f.write_str(line)?;
            if !line.ends_with('\n') {
                f.write_str("\n\\ No newline at end of file\n")?;
            }
        }
        Ok(())
    }
}

/// A v1 diff (`path`, `oldText`, `newText`) as v2's: the file added or modified, and the patch.
fn diff(v1: &Value) -> Value {
    let path = v1["path"].as_str().unwrap_or_default();
    let old = v1["oldText"].as_str();
    let new = v1["newText"].as_str().unwrap_or_default();
    let operation = if old.is_some() { "modify" } else { "add" };
    json!({
        "type": "diff",
        "changes": [{"operation": operation, "path": path, "fileType": "text"}],
        "patch": {"format": "git_patch", "text": git_patch(path, old, new)},
    })
}

/// A git patch of one text file, as `git diff` writes it (3 lines of context).
fn git_patch(path: &str, old: Option<&str>, new: &str) -> String {
    let name = path.trim_start_matches('/');
    let (from, header) = match old {
        Some(_) => (format!("a/{name}"), String::new()),
        None => ("/dev/null".to_owned(), "new file mode 100644\n".to_owned()),
    };
    let diff = similar::TextDiff::from_lines(old.unwrap_or_default(), new);
    let hunks = diff
        .unified_diff()
        .context_radius(3)
        .header(&from, &format!("b/{name}"))
        .to_string();
    format!("diff --git a/{name} b/{name}\n{header}{hunks}")
}
