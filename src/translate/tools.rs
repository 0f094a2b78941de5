//! One claude tool use -> the tool call the editor shows: kind, a title a person reads at a glance,
//! the file places it touches, and a diff for edits.

use std::path::Path;

use serde_json::Value;

use crate::claude::wire::ToolUseMeta;
use crate::domain::{
    INPUT_TEXT_SHARED_BYTES, ToolCall, ToolContent, ToolKind, ToolLocation, ToolStatus,
};
use crate::platform::os::Os;

/// Longest command or query shown in a title; the full text stays in `raw_input`.
const TITLE_MAX_CHARS: usize = 80;

/// The tool call for a `tool_use` block (or a permission ask about one), status `Pending`. The
/// editor-served Read, Write and Edit (`mcp__acp__Edit`) look like claude's own.
/// Takes the input by value: it moves into `raw_input` (a Write's input holds the whole file).
pub(crate) fn tool_call_for(
    name: &str,
    id: &str,
    input: Value,
    cwd: &Path,
    meta: Option<&ToolUseMeta>,
) -> ToolCall {
    let call = tool_call_without_input(name, id, &input, cwd, meta);
    ToolCall {
        raw_input: Some(input),
        ..call
    }
}

/// [`tool_call_for`] without `raw_input`, for a caller that shares the input instead of copying
/// it (a Write's input holds the whole file).
pub(crate) fn tool_call_without_input(
    name: &str,
    id: &str,
    input: &Value,
    cwd: &Path,
    meta: Option<&ToolUseMeta>,
) -> ToolCall {
    let name = shown_name(name);
    ToolCall {
        id: id.to_owned(),
        title: title_for(name, input, cwd, meta),
        kind: kind_for(name),
        status: ToolStatus::Pending,
        locations: locations_for(name, input, cwd),
        content: content_for(name, input, cwd),
        raw_input: None,
        parent_tool_call: None,
    }
}

/// The name a tool is shown under: claude's own for the editor-served file tools.
pub(crate) fn shown_name(name: &str) -> &str {
    crate::domain::tool_names::builtin_name(name).unwrap_or(name)
}

/// claude's command tools: `Bash`, and on Windows without Git Bash `PowerShell` in its place
/// (same input: `command`, `description`, `timeout`, `run_in_background`; captured from the
/// pinned claude.exe, in `fixtures/windows/`).
pub(crate) fn is_command_tool(name: &str) -> bool {
    matches!(name, "Bash" | "PowerShell")
}

pub(crate) fn kind_for(name: &str) -> ToolKind {
    match name {
        "Read" => ToolKind::Read,
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => ToolKind::Edit,
        "Bash" | "PowerShell" => ToolKind::Execute,
        "Grep" | "Glob" => ToolKind::Search,
        "WebFetch" | "WebSearch" => ToolKind::Fetch,
        // Planning and delegating are the model thinking aloud rather than acting.
        "Task" | "Agent" | "TodoWrite" | "TaskCreate" | "TaskUpdate" | "TaskList" | "TaskGet" => {
            ToolKind::Think
        }
        "ExitPlanMode" | "EnterPlanMode" => ToolKind::SwitchMode,
        _ => ToolKind::Other,
    }
}

pub(crate) fn title_for(
    name: &str,
    input: &Value,
    cwd: &Path,
    meta: Option<&ToolUseMeta>,
) -> String {
    let s = |key: &str| {
        input
            .get(key)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
    };
    let path_of = |key: &str| s(key).map(|p| display_path(p, cwd));
    match name {
        "Read" => match path_of("file_path") {
            Some(path) => format!("Read {path}{}", line_range(input)),
            None => "Read file".into(),
        },
        "Write" => path_of("file_path").map_or("Write file".into(), |p| format!("Write {p}")),
        "Edit" => path_of("file_path").map_or("Edit file".into(), |p| format!("Edit {p}")),
        "MultiEdit" => match path_of("file_path") {
            Some(p) => match input.get("edits").and_then(Value::as_array).map(Vec::len) {
                Some(n) if n > 1 => format!("Edit {p} ({n} changes)"),
                _ => format!("Edit {p}"),
            },
            None => "Edit file".into(),
        },
        "NotebookEdit" => path_of("notebook_path")
            .map_or("Edit notebook".into(), |p| format!("Edit notebook {p}")),
        "Bash" | "PowerShell" => match s("command") {
            Some(cmd) => run_title(cmd),
            None => "Run a command".into(),
        },
        "Grep" => {
            let mut title = match s("pattern") {
                Some(p) => format!("Grep \"{}\"", shorten(p)),
                None => "Grep".into(),
            };
            if let Some(path) = path_of("path") {
                title.push_str(&format!(" in {path}"));
            }
            if let Some(glob) = s("glob") {
                title.push_str(&format!(" ({glob})"));
            }
            title
        }
        "Glob" => {
            let mut title = match s("pattern") {
                Some(p) => format!("Glob `{p}`"),
                None => "Glob".into(),
            };
            if let Some(path) = path_of("path") {
                title.push_str(&format!(" in {path}"));
            }
            title
        }
        "WebFetch" => s("url").map_or("Fetch a web page".into(), |u| {
            format!("Fetch {}", shorten(u))
        }),
        "WebSearch" => s("query").map_or("Search the web".into(), |q| {
            format!("Search the web: {}", shorten(q))
        }),
        "Task" | "Agent" => match s("description") {
            Some(d) => format!("Task: {d}"),
            None => "Task".into(),
        },
        "TodoWrite" => "Update plan".into(),
        "TaskCreate" => s("subject").map_or("Add task".into(), |t| format!("Add task: {t}")),
        "TaskUpdate" => {
            let id = task_id(input).map_or(String::new(), |id| format!(" #{id}"));
            match s("status") {
                Some(status) => format!("Update task{id}: {}", status.replace('_', " ")),
                None => format!("Update task{id}"),
            }
        }
        "TaskList" => "List tasks".into(),
        "TaskGet" => format!(
            "Get task{}",
            task_id(input).map_or(String::new(), |id| format!(" #{id}"))
        ),
        "ExitPlanMode" => "Ready to code".into(),
        "EnterPlanMode" => "Enter plan mode".into(),
        "AskUserQuestion" => ask_title(input),
        "ToolSearch" => s("query").map_or("Find tools".into(), |q| {
            format!("Find tools: {}", shorten(q))
        }),
        _ if name.starts_with("mcp__") => mcp_title(name, meta),
        _ => name.to_owned(),
    }
}

/// Where the tool reads or writes, as absolute paths so the editor can open them.
pub(crate) fn locations_for(name: &str, input: &Value, cwd: &Path) -> Vec<ToolLocation> {
    let at = |key: &str| {
        input
            .get(key)
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
    };
    let location = |path: &str, line: Option<u32>| ToolLocation {
        path: absolute(path, cwd),
        line,
    };
    match name {
        "Read" => at("file_path")
            .map(|p| {
                location(
                    p,
                    input
                        .get("offset")
                        .and_then(Value::as_u64)
                        .map(|o| o.max(1) as u32),
                )
            })
            .into_iter()
            .collect(),
        "Write" | "Edit" | "MultiEdit" => at("file_path")
            .map(|p| location(p, None))
            .into_iter()
            .collect(),
        "NotebookEdit" => at("notebook_path")
            .map(|p| location(p, None))
            .into_iter()
            .collect(),
        "Grep" | "Glob" => at("path").map(|p| location(p, None)).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// What the tool call shows before it runs: the change an edit makes, the plan to approve.
pub(crate) fn content_for(name: &str, input: &Value, cwd: &Path) -> Vec<ToolContent> {
    let s = |key: &str| input.get(key).and_then(Value::as_str);
    let path = || s("file_path").map(|p| absolute(p, cwd));
    match name {
        "Write" => match (path(), s("content")) {
            (Some(path), Some(new)) if new.len() >= INPUT_TEXT_SHARED_BYTES => {
                vec![ToolContent::DiffOfInput { path }]
            }
            (Some(path), Some(new)) => vec![ToolContent::Diff {
                path,
                old_text: None,
                new_text: new.to_owned(),
            }],
            _ => Vec::new(),
        },
        "Edit" => match (path(), s("old_string"), s("new_string")) {
            (Some(path), Some(old), Some(new)) => {
                vec![ToolContent::Diff {
                    path,
                    old_text: Some(old.to_owned()),
                    new_text: new.to_owned(),
                }]
            }
            _ => Vec::new(),
        },
        "MultiEdit" => {
            let Some(path) = path() else {
                return Vec::new();
            };
            let edits = input
                .get("edits")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            edits
                .iter()
                .filter_map(|edit| {
                    let old = edit.get("old_string")?.as_str()?;
                    let new = edit.get("new_string")?.as_str()?;
                    Some(ToolContent::Diff {
                        path: path.clone(),
                        old_text: Some(old.to_owned()),
                        new_text: new.to_owned(),
                    })
                })
                .collect()
        }
        "ExitPlanMode" => s("plan")
            .map(|plan| {
                vec![ToolContent::Text {
                    text: plan.to_owned(),
                }]
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// `path` relative to `cwd` when it lies inside it, else as given; in the editor's form.
pub(crate) fn display_path(path: &str, cwd: &Path) -> String {
    super::paths::display(path, &cwd.to_string_lossy(), Os::CURRENT)
}

/// `path` (absolute, or against `cwd`) as a file rule names it: `/c/dir/file` on Windows.
pub(crate) fn rule_path(path: &str, cwd: &Path) -> String {
    super::paths::rule_form(path, &cwd.to_string_lossy(), Os::CURRENT)
}

/// `path` made absolute against `cwd`, in the editor's form (`C:\...` on Windows).
fn absolute(path: &str, cwd: &Path) -> String {
    super::paths::absolute(path, &cwd.to_string_lossy(), Os::CURRENT)
}

/// " (lines 10-29)" / " (from line 10)" for a Read with offset/limit; claude's offset is a 1-based line.
fn line_range(input: &Value) -> String {
    let offset = input.get("offset").and_then(Value::as_u64);
    let limit = input
        .get("limit")
        .and_then(Value::as_u64)
        .filter(|l| *l > 0);
    match (offset, limit) {
        (Some(o), Some(l)) => format!(" (lines {}-{})", o.max(1), o.max(1) + l - 1),
        (Some(o), None) => format!(" (from line {})", o.max(1)),
        (None, Some(l)) => format!(" (lines 1-{l})"),
        (None, None) => String::new(),
    }
}

fn run_title(command: &str) -> String {
    let first_line = command.lines().next().unwrap_or_default();
    let mut shown = shorten(first_line);
    if first_line.len() < command.trim_end().len() && !shown.ends_with('…') {
        shown.push('…');
    }
    // A backtick inside would end the code span early; plain text reads better then.
    if shown.contains('`') {
        format!("Run: {shown}")
    } else {
        format!("Run `{shown}`")
    }
}

fn shorten(text: &str) -> String {
    if text.chars().count() <= TITLE_MAX_CHARS {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(TITLE_MAX_CHARS - 1).collect();
    short.push('…');
    short
}

fn task_id(input: &Value) -> Option<String> {
    match input.get("taskId")? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn ask_title(input: &Value) -> String {
    let questions = input
        .get("questions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let first = questions
        .first()
        .and_then(|q| q.get("question"))
        .and_then(Value::as_str);
    match (first, questions.len()) {
        (Some(q), 1) => format!("Ask: {}", shorten(q)),
        (Some(q), n) => format!("Ask: {} (+{} more)", shorten(q), n - 1),
        (None, _) => "Ask the user".into(),
    }
}

/// "server: tool", from claude's display names when the assistant line carried them.
fn mcp_title(name: &str, meta: Option<&ToolUseMeta>) -> String {
    let mut parts = name.strip_prefix("mcp__").unwrap_or(name).splitn(2, "__");
    let server = parts.next().unwrap_or_default();
    let tool = parts.next().unwrap_or_default();
    let server = meta
        .and_then(|m| m.server_display_name.as_deref())
        .unwrap_or(server);
    let tool = meta
        .and_then(|m| m.display_name.as_deref().or(m.tool_name.as_deref()))
        .unwrap_or(tool);
    if tool.is_empty() {
        server.to_owned()
    } else {
        format!("{server}: {tool}")
    }
}
