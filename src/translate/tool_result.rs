//! A `tool_result` block claude echoes -> the update that ends the editor's tool call.

use serde_json::{Map, Value};

use crate::claude::wire::ToolResultContent;
use crate::domain::{ToolCallUpdate, ToolContent, ToolStatus};

/// One tool result, with what is known of the tool use it answers.
pub struct ToolResult<'a> {
    pub tool_use_id: &'a str,
    /// The tool's name, when its `tool_use` was seen.
    pub tool_name: Option<&'a str>,
    pub content: &'a ToolResultContent,
    pub is_error: bool,
    /// The line's structured `tool_use_result`, when it belongs to this block alone.
    pub structured: Option<&'a Value>,
}

/// Completed or Failed, with the output to show and `raw_output` always a JSON object.
pub fn tool_result_update(result: &ToolResult<'_>) -> ToolCallUpdate {
    let text = result.content.text();
    let tool = result.tool_name.unwrap_or_default();
    let content = if result.is_error {
        Some(vec![shown(tool, error_text(&text))])
    } else {
        match tool {
            // The change the user approved in place of the model's: show what was written.
            "Write" | "Edit" if user_modified(result.structured) => {
                modified_diff(tool, result.structured)
            }
            // Keep the diff the call already shows; "updated successfully" says less.
            "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => None,
            "Bash" => Some(vec![match bash_output(result.structured) {
                Some(output) => shown(tool, &output),
                None => shown(tool, &text),
            }]),
            _ if text.is_empty() => None,
            _ => Some(vec![shown(tool, &text)]),
        }
    };
    ToolCallUpdate {
        id: result.tool_use_id.to_owned(),
        status: Some(if result.is_error {
            ToolStatus::Failed
        } else {
            ToolStatus::Completed
        }),
        content,
        raw_output: Some(raw_output(result.structured, text)),
        ..ToolCallUpdate::default()
    }
}

/// claude wraps some failures in `<tool_use_error>` tags meant for the model.
fn error_text(text: &str) -> &str {
    let trimmed = text.trim();
    trimmed
        .strip_prefix("<tool_use_error>")
        .and_then(|t| t.strip_suffix("</tool_use_error>"))
        .unwrap_or(text)
}

fn user_modified(structured: Option<&Value>) -> bool {
    structured
        .and_then(|r| r.get("userModified"))
        .and_then(Value::as_bool)
        == Some(true)
}

/// The diff of what Write or Edit did, from their structured result.
fn modified_diff(tool: &str, structured: Option<&Value>) -> Option<Vec<ToolContent>> {
    let r = structured?;
    let s = |key: &str| r.get(key).and_then(Value::as_str);
    let path = s("filePath")?.to_owned();
    let (old_text, new_text) = match tool {
        "Write" => (
            s("originalFile").map(str::to_owned),
            s("content")?.to_owned(),
        ),
        _ => (Some(s("oldString")?.to_owned()), s("newString")?.to_owned()),
    };
    Some(vec![ToolContent::Diff {
        path,
        old_text,
        new_text,
    }])
}

/// `tool_use_result` when it is an object, else `{"output": ...}` around it or the result text.
fn raw_output(structured: Option<&Value>, text: String) -> Map<String, Value> {
    match structured {
        Some(Value::Object(map)) => map.clone(),
        Some(other) => Map::from_iter([("output".to_owned(), other.clone())]),
        None => Map::from_iter([("output".to_owned(), Value::String(text))]),
    }
}

/// stdout, then stderr, from Bash's structured result; None when both are empty.
fn bash_output(structured: Option<&Value>) -> Option<String> {
    let r = structured?.as_object()?;
    let stdout = r.get("stdout").and_then(Value::as_str).unwrap_or_default();
    let stderr = r.get("stderr").and_then(Value::as_str).unwrap_or_default();
    match (stdout.is_empty(), stderr.is_empty()) {
        (true, true) => None,
        (false, true) => Some(stdout.to_owned()),
        (true, false) => Some(stderr.to_owned()),
        (false, false) => Some(format!("{stdout}\n{stderr}")),
    }
}

/// Command output and file text go in a code block, so markdown in them is not rendered.
/// One copy of the output either way: big outputs (tens of MiB) pass through a few times at most.
fn shown(tool: &str, text: &str) -> ToolContent {
    match tool {
        "Bash" | "Read" if !text.is_empty() => ToolContent::Text { text: fenced(text) },
        _ => ToolContent::Text {
            text: text.to_owned(),
        },
    }
}

/// `text` in a fence longer than any backtick run inside it.
fn fenced(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for b in text.bytes() {
        run = if b == b'`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    let mut out = String::with_capacity(text.len() + 2 * fence.len() + 2);
    out.push_str(&fence);
    out.push('\n');
    out.push_str(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&fence);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn update(
        tool: &str,
        content: &str,
        is_error: bool,
        structured: Option<Value>,
    ) -> ToolCallUpdate {
        let content = ToolResultContent::Text(content.into());
        tool_result_update(&ToolResult {
            tool_use_id: "t1",
            tool_name: Some(tool),
            content: &content,
            is_error,
            structured: structured.as_ref(),
        })
    }

    fn texts(u: &ToolCallUpdate) -> Vec<String> {
        u.content
            .iter()
            .flatten()
            .map(|c| match c {
                ToolContent::Text { text } => text.clone(),
                other => panic!("not text: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn bash_shows_stdout_and_stderr_in_a_code_block() {
        let u = update(
            "Bash",
            "out",
            false,
            Some(json!({"stdout": "out", "stderr": "warn", "interrupted": false})),
        );
        assert_eq!(u.status, Some(ToolStatus::Completed));
        assert_eq!(texts(&u), vec!["```\nout\nwarn\n```"]);
        assert_eq!(u.raw_output.unwrap()["stderr"], "warn");
    }

    #[test]
    fn bash_without_output_shows_claude_s_note() {
        let u = update(
            "Bash",
            "(Bash completed with no output)",
            false,
            Some(json!({"stdout": "", "stderr": ""})),
        );
        assert_eq!(texts(&u), vec!["```\n(Bash completed with no output)\n```"]);
    }

    #[test]
    fn a_failure_shows_the_error_and_wraps_a_string_result_in_an_object() {
        let u = update(
            "Bash",
            "Exit code 3\nto stderr",
            true,
            Some(json!("Error: Exit code 3\nto stderr")),
        );
        assert_eq!(u.status, Some(ToolStatus::Failed));
        assert_eq!(texts(&u), vec!["```\nExit code 3\nto stderr\n```"]);
        assert_eq!(
            u.raw_output.unwrap(),
            Map::from_iter([("output".into(), json!("Error: Exit code 3\nto stderr"))])
        );
        let u = update("Write", "Claude requested permissions", true, None);
        assert_eq!(texts(&u), vec!["Claude requested permissions"]);
        assert_eq!(
            u.raw_output.unwrap()["output"],
            "Claude requested permissions"
        );
    }

    #[test]
    fn a_successful_edit_keeps_its_diff() {
        let u = update(
            "Edit",
            "The file has been updated successfully.",
            false,
            Some(json!({"filePath": "/a"})),
        );
        assert_eq!(u.content, None);
        assert_eq!(u.status, Some(ToolStatus::Completed));
    }

    #[test]
    fn an_edit_the_user_changed_shows_what_was_written() {
        let written = json!({"type": "create", "filePath": "/w/a.txt", "content": "theirs\n", "originalFile": null, "userModified": true});
        let u = update("Write", "File created successfully", false, Some(written));
        assert_eq!(
            u.content,
            Some(vec![ToolContent::Diff {
                path: "/w/a.txt".into(),
                old_text: None,
                new_text: "theirs\n".into()
            }])
        );
        let edited = json!({"filePath": "/w/a.txt", "oldString": "a", "newString": "c", "userModified": true});
        let u = update("Edit", "updated", false, Some(edited));
        assert_eq!(
            u.content,
            Some(vec![ToolContent::Diff {
                path: "/w/a.txt".into(),
                old_text: Some("a".into()),
                new_text: "c".into()
            }])
        );
    }

    #[test]
    fn tool_use_error_tags_are_not_shown() {
        let u = update(
            "Write",
            "<tool_use_error>Error calling tool (Write): bad</tool_use_error>",
            true,
            None,
        );
        assert_eq!(texts(&u), vec!["Error calling tool (Write): bad"]);
    }

    #[test]
    fn fences_outgrow_backticks_inside() {
        assert_eq!(fenced("a ```` b"), "`````\na ```` b\n`````");
    }

    #[test]
    fn a_huge_output_is_shown_whole() {
        let big = "x".repeat(20 * 1024 * 1024);
        let content = ToolResultContent::Text(big.clone());
        let u = tool_result_update(&ToolResult {
            tool_use_id: "t",
            tool_name: Some("Grep"),
            content: &content,
            is_error: false,
            structured: None,
        });
        assert_eq!(texts(&u)[0].len(), big.len());
        assert_eq!(
            u.raw_output.unwrap()["output"].as_str().map(str::len),
            Some(big.len())
        );
    }
}
