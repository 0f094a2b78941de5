//! Kind, title, locations and content for every tool the editor shows specially.

use std::path::Path;

use serde_json::{Value, json};

use crate::claude::wire::ToolUseMeta;
use crate::domain::{ToolContent, ToolKind, ToolLocation, ToolStatus};
use crate::translate::tools::tool_call_for;

const CWD: &str = "/srv/proj";

fn loc(path: &str, line: Option<u32>) -> ToolLocation {
    ToolLocation {
        path: path.into(),
        line,
    }
}

#[test]
fn kinds_titles_and_locations_per_tool() {
    let long = "x".repeat(200);
    let table: Vec<(&str, Value, ToolKind, String, Vec<ToolLocation>)> = vec![
        (
            "Read",
            json!({"file_path": "/srv/proj/src/main.rs"}),
            ToolKind::Read,
            "Read src/main.rs".into(),
            vec![loc("/srv/proj/src/main.rs", None)],
        ),
        (
            "Read",
            json!({"file_path": "/srv/proj/src/main.rs", "offset": 10, "limit": 20}),
            ToolKind::Read,
            "Read src/main.rs (lines 10-29)".into(),
            vec![loc("/srv/proj/src/main.rs", Some(10))],
        ),
        (
            "Read",
            json!({"file_path": "/etc/hosts", "offset": 5}),
            ToolKind::Read,
            "Read /etc/hosts (from line 5)".into(),
            vec![loc("/etc/hosts", Some(5))],
        ),
        (
            "Write",
            json!({"file_path": "/srv/proj/a.txt", "content": "A"}),
            ToolKind::Edit,
            "Write a.txt".into(),
            vec![loc("/srv/proj/a.txt", None)],
        ),
        (
            "Edit",
            json!({"file_path": "/srv/proj/a.txt", "old_string": "A", "new_string": "B"}),
            ToolKind::Edit,
            "Edit a.txt".into(),
            vec![loc("/srv/proj/a.txt", None)],
        ),
        (
            "MultiEdit",
            json!({"file_path": "/srv/proj/a.txt", "edits": [{"old_string": "A", "new_string": "B"}, {"old_string": "C", "new_string": "D"}]}),
            ToolKind::Edit,
            "Edit a.txt (2 changes)".into(),
            vec![loc("/srv/proj/a.txt", None)],
        ),
        (
            "NotebookEdit",
            json!({"notebook_path": "/srv/proj/n.ipynb", "new_source": "x"}),
            ToolKind::Edit,
            "Edit notebook n.ipynb".into(),
            vec![loc("/srv/proj/n.ipynb", None)],
        ),
        (
            "Bash",
            json!({"command": "cargo test", "description": "Run tests"}),
            ToolKind::Execute,
            "Run `cargo test`".into(),
            vec![],
        ),
        (
            // claude for Windows without Git Bash: the same command tool under another name.
            "PowerShell",
            json!({"command": "Get-ChildItem -Name", "description": "List the files"}),
            ToolKind::Execute,
            "Run `Get-ChildItem -Name`".into(),
            vec![],
        ),
        (
            "Bash",
            json!({"command": "echo a\necho b"}),
            ToolKind::Execute,
            "Run `echo a…`".into(),
            vec![],
        ),
        (
            "Bash",
            json!({"command": "echo `date`"}),
            ToolKind::Execute,
            "Run: echo `date`".into(),
            vec![],
        ),
        (
            "Bash",
            json!({"command": long}),
            ToolKind::Execute,
            format!("Run `{}…`", "x".repeat(79)),
            vec![],
        ),
        (
            "Grep",
            json!({"pattern": "fn main", "path": "/srv/proj/src"}),
            ToolKind::Search,
            "Grep \"fn main\" in src".into(),
            vec![loc("/srv/proj/src", None)],
        ),
        (
            "Grep",
            json!({"pattern": "TODO", "glob": "*.rs"}),
            ToolKind::Search,
            "Grep \"TODO\" (*.rs)".into(),
            vec![],
        ),
        (
            "Glob",
            json!({"pattern": "**/*.rs"}),
            ToolKind::Search,
            "Glob `**/*.rs`".into(),
            vec![],
        ),
        (
            "Glob",
            json!({"pattern": "*.md", "path": "docs"}),
            ToolKind::Search,
            "Glob `*.md` in docs".into(),
            vec![loc("/srv/proj/docs", None)],
        ),
        (
            "WebFetch",
            json!({"url": "https://example.com/a", "prompt": "summarize"}),
            ToolKind::Fetch,
            "Fetch https://example.com/a".into(),
            vec![],
        ),
        (
            "WebSearch",
            json!({"query": "rust serde flatten"}),
            ToolKind::Fetch,
            "Search the web: rust serde flatten".into(),
            vec![],
        ),
        (
            "Task",
            json!({"description": "Find callers", "prompt": "...", "subagent_type": "Explore"}),
            ToolKind::Think,
            "Task: Find callers".into(),
            vec![],
        ),
        (
            "Agent",
            json!({"description": "Review", "prompt": "..."}),
            ToolKind::Think,
            "Task: Review".into(),
            vec![],
        ),
        (
            "TodoWrite",
            json!({"todos": []}),
            ToolKind::Think,
            "Update plan".into(),
            vec![],
        ),
        (
            "TaskCreate",
            json!({"subject": "Read the code"}),
            ToolKind::Think,
            "Add task: Read the code".into(),
            vec![],
        ),
        (
            "TaskUpdate",
            json!({"taskId": "1", "status": "in_progress"}),
            ToolKind::Think,
            "Update task #1: in progress".into(),
            vec![],
        ),
        (
            "ExitPlanMode",
            json!({"plan": "1. do it"}),
            ToolKind::SwitchMode,
            "Ready to code".into(),
            vec![],
        ),
        (
            "AskUserQuestion",
            json!({"questions": [{"question": "Which color?"}, {"question": "Which size?"}]}),
            ToolKind::Other,
            "Ask: Which color? (+1 more)".into(),
            vec![],
        ),
        (
            "mcp__notes__write_note",
            json!({"text": "x"}),
            ToolKind::Other,
            "notes: write_note".into(),
            vec![],
        ),
        (
            "mcp__claude_ai_Slack__send__message",
            json!({}),
            ToolKind::Other,
            "claude_ai_Slack: send__message".into(),
            vec![],
        ),
        (
            "SomethingNew",
            json!({}),
            ToolKind::Other,
            "SomethingNew".into(),
            vec![],
        ),
    ];
    for (name, input, kind, title, locations) in table {
        let call = tool_call_for(name, "t1", input.clone(), Path::new(CWD), None);
        assert_eq!(
            (call.kind, &call.title, &call.locations),
            (kind, &title, &locations),
            "{name} {input}"
        );
        assert_eq!(call.status, ToolStatus::Pending);
        assert_eq!(call.raw_input.as_ref(), Some(&input));
    }
}

#[test]
fn mcp_titles_use_claude_s_display_names() {
    let meta = ToolUseMeta {
        id: "t1".into(),
        display_name: Some("Write Note".into()),
        server_display_name: Some("acp".into()),
        tool_name: Some("write_note".into()),
    };
    let call = tool_call_for(
        "mcp__acp__write_note",
        "t1",
        json!({}),
        Path::new(CWD),
        Some(&meta),
    );
    assert_eq!(call.title, "acp: Write Note");
}

#[test]
fn edits_show_their_diff_and_plans_their_text() {
    let cwd = Path::new(CWD);
    let diff = |p: &str, old: Option<&str>, new: &str| ToolContent::Diff {
        path: p.into(),
        old_text: old.map(str::to_owned),
        new_text: new.into(),
    };
    let write = tool_call_for(
        "Write",
        "t",
        json!({"file_path": "a.txt", "content": "hi\n"}),
        cwd,
        None,
    );
    assert_eq!(write.content, vec![diff("/srv/proj/a.txt", None, "hi\n")]);
    let edit = tool_call_for(
        "Edit",
        "t",
        json!({"file_path": "/x/a", "old_string": "a", "new_string": "b"}),
        cwd,
        None,
    );
    assert_eq!(edit.content, vec![diff("/x/a", Some("a"), "b")]);
    let multi = tool_call_for(
        "MultiEdit",
        "t",
        json!({"file_path": "/x/a", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]}),
        cwd,
        None,
    );
    assert_eq!(
        multi.content,
        vec![diff("/x/a", Some("a"), "b"), diff("/x/a", Some("c"), "d")]
    );
    let plan = tool_call_for(
        "ExitPlanMode",
        "t",
        json!({"plan": "1. Fix it\n2. Test it"}),
        cwd,
        None,
    );
    assert_eq!(
        plan.content,
        vec![ToolContent::Text {
            text: "1. Fix it\n2. Test it".into()
        }]
    );
    let bash = tool_call_for("Bash", "t", json!({"command": "ls"}), cwd, None);
    assert!(bash.content.is_empty());
}
