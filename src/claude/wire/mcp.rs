//! claude's MCP servers over its control channel: the server list of `mcp_status`, and an MCP
//! server's `elicitation` (a form to fill in, or a page to open) with the answer claude expects.
//!
//! Shapes as the pinned claude speaks them (its Agent SDK's `McpServerStatus`,
//! `SDKControlElicitationRequest`, and MCP's `ElicitResult` for the answer), checked on the CLI.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::claude::lenient;

/// One server of claude's `mcp_status` answer (`mcpServers[]`). Its `config` (commands, URLs,
/// headers, environment: secrets, some of them) is never read.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct McpServerStatus {
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub name: String,
    /// `connected`, `failed`, `needs-auth`, `pending` or `disabled`.
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub status: String,
    /// Why it failed (with `failed`).
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub error: Option<String>,
    /// Where its definition came from (`dynamic` for `--mcp-config`, `project`, `user`, ...).
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub scope: Option<String>,
    /// Its tools (with `connected`); only their number is shown.
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub tools: Vec<Value>,
}

impl McpServerStatus {
    /// The servers of an `mcp_status` answer; `None` for an answer of another shape.
    pub fn list_from_reply(reply: &Value) -> Option<Vec<McpServerStatus>> {
        let servers = reply.get("mcpServers")?.as_array()?;
        Some(
            servers
                .iter()
                .filter_map(|s| serde_json::from_value::<McpServerStatus>(s.clone()).ok())
                .filter(|s| !s.name.is_empty())
                .collect(),
        )
    }
}

/// claude's `elicitation` control request: an MCP server asks the user something.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ElicitationAsk {
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub mcp_server_name: String,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub message: String,
    /// `form` (the default) or `url`.
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub mode: Option<String>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub url: Option<String>,
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub elicitation_id: Option<String>,
    /// The form's JSON schema (MCP's restricted subset: an object of primitive properties).
    #[serde(default, deserialize_with = "lenient::any_shape")]
    pub requested_schema: Option<Value>,
}

impl ElicitationAsk {
    pub fn is_url(&self) -> bool {
        self.mode.as_deref() == Some("url")
    }

    /// The form's schema; a form without one asks nothing but a yes or no.
    pub fn schema(&mut self) -> Value {
        self.requested_schema
            .take()
            .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}))
    }
}

/// The answer claude passes on to the MCP server (MCP's `ElicitResult`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum ElicitationAnswer {
    /// The user answered: the form's fields (none for a page opened).
    Accept {
        #[serde(skip_serializing_if = "Option::is_none")]
        content: Option<Map<String, Value>>,
    },
    Decline,
    Cancel,
}

impl ElicitationAnswer {
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("an elicitation answer serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_mcp_s_elicit_result() {
        let mut content = Map::new();
        content.insert("name".into(), json!("Ada"));
        let cases = [
            (
                ElicitationAnswer::Accept {
                    content: Some(content),
                },
                json!({"action": "accept", "content": {"name": "Ada"}}),
            ),
            (
                ElicitationAnswer::Accept { content: None },
                json!({"action": "accept"}),
            ),
            (ElicitationAnswer::Decline, json!({"action": "decline"})),
            (ElicitationAnswer::Cancel, json!({"action": "cancel"})),
        ];
        for (answer, wire) in cases {
            assert_eq!(answer.to_value(), wire, "{answer:?}");
        }
    }

    #[test]
    fn the_status_list_reads_claude_s_answer_and_skips_what_it_cannot() {
        // As the pinned claude answered `mcp_status` with one server connected, one disabled.
        let reply = json!({"mcpServers": [
            {"name": "echo", "status": "connected", "serverInfo": {"name": "echo", "version": "1.0.0"},
             "config": {"type": "stdio", "command": "python3", "env": {"TOKEN": "secret"}},
             "scope": "dynamic", "tools": [{"name": "echo", "annotations": {}}]},
            {"name": "db", "status": "failed", "error": "spawn ENOENT", "tools": null},
            {"status": "connected"},
        ]});
        let list = McpServerStatus::list_from_reply(&reply).unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].name, "echo");
        assert_eq!(list[0].tools.len(), 1);
        assert_eq!(list[1].error.as_deref(), Some("spawn ENOENT"));
        assert!(list[1].tools.is_empty());
        assert!(McpServerStatus::list_from_reply(&json!({})).is_none());
    }

    #[test]
    fn an_ask_reads_both_modes() {
        let form: ElicitationAsk = serde_json::from_value(json!({
            "subtype": "elicitation", "mcp_server_name": "echo", "message": "What is your name?",
            "mode": "form", "requested_schema": {"type": "object", "properties": {}}}))
        .unwrap();
        assert!(!form.is_url());
        assert!(form.requested_schema.is_some());
        let url: ElicitationAsk = serde_json::from_value(json!({
            "subtype": "elicitation", "mcp_server_name": "echo", "message": "Sign in",
            "mode": "url", "url": "https://example.com/x", "elicitation_id": "e1"}))
        .unwrap();
        assert!(url.is_url());
        assert_eq!(url.elicitation_id.as_deref(), Some("e1"));
    }
}
