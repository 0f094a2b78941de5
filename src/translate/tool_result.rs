//! A `tool_result` block claude echoes -> the update that ends the editor's tool call.

use std::ops::Range;

use serde_json::{Map, Value};

use crate::claude::wire::ToolResultContent;
use crate::domain::{
    INPUT_TEXT_SHARED_BYTES, ShownOutput, ToolCallUpdate, ToolContent, ToolStatus,
};

/// One tool result, owned: its output moves into the update (outputs can be tens of MiB).
pub(crate) struct ToolResult<'a> {
    pub(crate) tool_use_id: String,
    /// The tool's name, when its `tool_use` was seen.
    pub(crate) tool_name: Option<&'a str>,
    pub(crate) content: ToolResultContent,
    pub(crate) is_error: bool,
    /// The line's structured `tool_use_result`, when it belongs to this block alone.
    pub(crate) structured: Option<Value>,
}

/// Completed or Failed, with the output to show and `raw_output` always a JSON object.
///
/// The output is copied only where the editor is sent it twice (`raw_output` falls back to the
/// text when claude gave no structured result); otherwise it moves, and its code fence is added
/// in place. A long command output that is also `raw_output`'s `stdout` (or `stderr`) is held
/// once, in the shown text ([`ToolCallUpdate::raw_output_shown`]).
pub(crate) fn tool_result_update(result: ToolResult<'_>) -> ToolCallUpdate {
    let ToolResult {
        tool_use_id,
        tool_name,
        content,
        is_error,
        structured,
    } = result;
    let mut text = content.into_text();
    let tool = tool_name.unwrap_or_default();
    let bash = (super::tools::is_command_tool(tool) && !is_error)
        .then(|| bash_output(structured.as_ref(), &mut text))
        .flatten();
    let shows_text = if is_error {
        true
    } else {
        match tool {
            "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => false,
            "Bash" | "PowerShell" => bash.is_none(),
            _ => !text.is_empty(),
        }
    };
    let (shown_text, raw_text) = match (&structured, shows_text) {
        (None, true) => (Some(text.clone()), text),
        (None, false) => (None, text),
        (Some(_), true) => (Some(text), String::new()),
        (Some(_), false) => (None, String::new()),
    };
    let mut raw_output_shown = None;
    let content = if is_error {
        shown_text.map(|t| vec![shown(tool, error_text(t))])
    } else {
        match tool {
            // The change the user approved in place of the model's: show what was written.
            "Write" | "Edit" if user_modified(structured.as_ref()) => {
                modified_diff(tool, structured.as_ref())
            }
            // Keep the diff the call already shows; "updated successfully" says less.
            "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => None,
            "Bash" | "PowerShell" => match bash {
                Some(BashOutput { text, key }) => {
                    let (text, output) = fenced_around(text);
                    raw_output_shown =
                        key.filter(|_| output.len() >= INPUT_TEXT_SHARED_BYTES)
                            .map(|key| {
                                Box::new(ShownOutput {
                                    key: key.to_owned(),
                                    range: output,
                                })
                            });
                    Some(vec![ToolContent::Text { text }])
                }
                None => shown_text.map(|t| vec![shown(tool, t)]),
            },
            _ => shown_text.map(|t| vec![shown(tool, t)]),
        }
    };
    ToolCallUpdate {
        id: tool_use_id,
        status: Some(if is_error {
            ToolStatus::Failed
        } else {
            ToolStatus::Completed
        }),
        content,
        raw_output: Some(raw_output(
            structured,
            raw_text,
            raw_output_shown.as_deref(),
        )),
        raw_output_shown,
        ..ToolCallUpdate::default()
    }
}

/// claude wraps some failures in `<tool_use_error>` tags meant for the model.
fn error_text(text: String) -> String {
    let trimmed = text.trim();
    match trimmed
        .strip_prefix("<tool_use_error>")
        .and_then(|t| t.strip_suffix("</tool_use_error>"))
    {
        Some(inner) => inner.to_owned(),
        None => text,
    }
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

/// `tool_use_result` when it is an object, else `{"output": ...}` around it or the result text;
/// the key whose value is `shown` kept in its place with `null` (the value is the shown text).
fn raw_output(
    structured: Option<Value>,
    text: String,
    shown: Option<&ShownOutput>,
) -> Map<String, Value> {
    let mut map = match structured {
        Some(Value::Object(map)) => map,
        Some(other) => Map::from_iter([("output".to_owned(), other)]),
        None => Map::from_iter([("output".to_owned(), Value::String(text))]),
    };
    if let Some(held) = shown.and_then(|shown| map.get_mut(&shown.key)) {
        *held = Value::Null;
    }
    map
}

/// What a command's card shows: its output, and the key of the structured result that is this
/// very text, if one is.
struct BashOutput {
    text: String,
    key: Option<&'static str>,
}

/// stdout, then stderr, from Bash's structured result; None when both are empty. The result's
/// `text` is taken instead of a copy when it is that same output (claude stores a command's output
/// twice, and it can be MiBs); otherwise it is left as it was.
fn bash_output(structured: Option<&Value>, text: &mut String) -> Option<BashOutput> {
    let r = structured?.as_object()?;
    let stdout = r.get("stdout").and_then(Value::as_str).unwrap_or_default();
    let stderr = r.get("stderr").and_then(Value::as_str).unwrap_or_default();
    let (key, output) = match (stdout.is_empty(), stderr.is_empty()) {
        (true, true) => return None,
        (false, true) => ("stdout", stdout),
        (true, false) => ("stderr", stderr),
        (false, false) => {
            return Some(BashOutput {
                text: format!("{stdout}\n{stderr}"),
                key: None,
            });
        }
    };
    let text = if text == output {
        std::mem::take(text)
    } else {
        output.to_owned()
    };
    Some(BashOutput {
        text,
        key: Some(key),
    })
}

/// Command output and file text go in a code block, so markdown in them is not rendered.
fn shown(tool: &str, text: String) -> ToolContent {
    match tool {
        "Bash" | "PowerShell" | "Read" if !text.is_empty() => {
            ToolContent::Text { text: fenced(text) }
        }
        _ => ToolContent::Text { text },
    }
}

/// `text` in a fence longer than any backtick run inside it, built in the text's own buffer.
pub(super) fn fenced_text(text: String) -> String {
    fenced(text)
}

fn fenced(text: String) -> String {
    fenced_around(text).0
}

/// [`fenced`], and where the text is inside the fence.
fn fenced_around(mut text: String) -> (String, Range<usize>) {
    let fence = "`".repeat(longest_backtick_run(text.as_bytes()).max(2) + 1);
    let inside = fence.len() + 1..fence.len() + 1 + text.len();
    // In the text's own buffer (a big one grows in place): no second copy of a tool's output.
    text.reserve(2 * fence.len() + 2);
    text.insert_str(0, &format!("{fence}\n"));
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&fence);
    (text, inside)
}

/// The longest run of backticks in `bytes`, found by jumping from one backtick to the next.
fn longest_backtick_run(bytes: &[u8]) -> usize {
    let (mut longest, mut run, mut last) = (0, 0, usize::MAX);
    for at in memchr::memchr_iter(b'`', bytes) {
        run = if last.wrapping_add(1) == at {
            run + 1
        } else {
            1
        };
        last = at;
        longest = longest.max(run);
    }
    longest
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
        tool_result_update(ToolResult {
            tool_use_id: "t1".into(),
            tool_name: Some(tool),
            content: ToolResultContent::Text(content.into()),
            is_error,
            structured,
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
    fn a_long_command_output_is_held_once_and_given_whole() {
        let ends_in_newline = "12:00 step done\n".repeat(INPUT_TEXT_SHARED_BYTES / 10);
        let no_newline = "x".repeat(INPUT_TEXT_SHARED_BYTES);
        for (output, key, other) in [
            (ends_in_newline.as_str(), "stdout", "stderr"),
            (no_newline.as_str(), "stderr", "stdout"),
        ] {
            let structured = json!({key: output, other: "", "interrupted": false});
            let u = update("Bash", output, false, Some(structured.clone()));
            assert_eq!(u.shown_output(), Some((key, output)));
            assert!(
                u.raw_output.as_ref().unwrap()[key].is_null(),
                "the output is held once"
            );
            let mut whole = u.clone();
            whole.copy_shown_output();
            assert_eq!(
                whole.raw_output.clone().map(Value::Object),
                Some(structured),
                "rawOutput is claude's result, whole"
            );
            assert_eq!(texts(&whole), [fenced(output.to_owned())]);
            // A card that shows the editor's terminal instead keeps `rawOutput` whole.
            let mut terminal = u.clone();
            terminal.remove_content();
            assert_eq!(
                (terminal.content, terminal.raw_output),
                (None, whole.raw_output)
            );
        }
        // Shorter outputs are copied, as they always were.
        let u = update("Bash", "out", false, Some(json!({"stdout": "out"})));
        assert_eq!(u.raw_output_shown, None);
        assert_eq!(u.raw_output.unwrap()["stdout"], "out");
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
        assert_eq!(fenced("a ```` b".into()), "`````\na ```` b\n`````");
        // The longest run counts, wherever it is: not the first, not the last, at either end.
        assert_eq!(fenced("``a````b`".into()), "`````\n``a````b`\n`````");
        assert_eq!(fenced("````a`".into()), "`````\n````a`\n`````");
        assert_eq!(fenced("a` `` ```".into()), "````\na` `` ```\n````");
        assert_eq!(fenced("plain".into()), "```\nplain\n```");
    }

    #[test]
    fn a_huge_output_is_shown_whole() {
        let big = "x".repeat(20 * 1024 * 1024);
        let u = tool_result_update(ToolResult {
            tool_use_id: "t".into(),
            tool_name: Some("Grep"),
            content: ToolResultContent::Text(big.clone()),
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
