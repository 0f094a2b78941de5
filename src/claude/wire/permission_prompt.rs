//! The arguments claude gives the tool named by `--permission-prompt-tool` (an MCP tool of ours),
//! and the input schema that tool declares. Its reply is a [`super::PermissionDecision`] as JSON
//! text.

use serde::Deserialize;
use serde_json::{Map, Value, json};

/// claude's permission ask over MCP (the pinned claude): `{tool_name, input, tool_use_id}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PermissionPromptArgs {
    pub tool_name: String,
    /// The input claude wants to run the tool with (`{}` when absent).
    #[serde(default = "empty_object")]
    pub input: Value,
    #[serde(default)]
    pub tool_use_id: Option<String>,
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

/// The JSON Schema of [`PermissionPromptArgs`], as the MCP tool declares it.
pub fn permission_prompt_schema() -> Map<String, Value> {
    let schema = json!({
        "type": "object",
        "properties": {
            "tool_name": {"type": "string", "description": "The tool claude wants to run."},
            "input": {"type": "object", "description": "The input claude wants to run it with."},
            "tool_use_id": {"type": "string", "description": "The id of that tool use."}
        },
        "required": ["tool_name", "input"]
    });
    let Value::Object(schema) = schema else {
        unreachable!("the schema literal is an object")
    };
    schema
}
