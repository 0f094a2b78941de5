//! Unit tests of the permission flow against the test editor, its answers scripted.

mod plan;
mod questions;
mod tool_asks;

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};

use super::{Decision, SessionRules, decide};
use crate::claude::wire::CanUseTool;
use crate::domain::{EditorError, PermissionOutcome};
use crate::testing::TestEditor;

fn pick(option_id: &str) -> Result<PermissionOutcome, EditorError> {
    Ok(PermissionOutcome::Selected {
        option_id: option_id.into(),
    })
}

/// Runs one ask in `/srv` with fresh session rules.
async fn run(editor: &Arc<TestEditor>, req: CanUseTool) -> Decision {
    run_with(editor, req, &SessionRules::new()).await
}

async fn run_with(editor: &Arc<TestEditor>, req: CanUseTool, rules: &SessionRules) -> Decision {
    decide(editor.clone(), "sess-1", Path::new("/srv"), req, rules).await
}

/// A `can_use_tool` request as claude sends it.
fn request(value: Value) -> CanUseTool {
    serde_json::from_value(value).expect("a can_use_tool request")
}

/// The reply exactly as it goes to claude.
fn wire(decision: &super::Decision) -> Value {
    serde_json::to_value(&decision.reply).expect("serializable reply")
}

fn write_ask() -> CanUseTool {
    request(json!({
        "subtype": "can_use_tool", "tool_name": "Write", "display_name": "Write",
        "input": {"file_path": "/srv/hello.txt", "content": "Hello\n"},
        "description": "hello.txt",
        "permission_suggestions": [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}],
        "tool_use_id": "toolu_write"
    }))
}

fn bash_ask() -> CanUseTool {
    request(json!({
        "subtype": "can_use_tool", "tool_name": "Bash", "display_name": "Bash",
        "input": {"command": "npm test -- --watch=false", "description": "Run the tests"},
        "permission_suggestions": [{"type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "npm test:*"}],
            "behavior": "allow", "destination": "localSettings"}],
        "tool_use_id": "toolu_bash"
    }))
}
