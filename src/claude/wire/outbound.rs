//! The control requests claude-acp sends claude (`control_request` lines on its stdin).

use serde::Serialize;
use serde_json::{Map, Value};

use super::RewindFilesRequest;

/// A request we send to claude on its control channel.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum OutboundControl {
    Initialize {
        hooks: Option<Value>,
        #[serde(rename = "sdkMcpServers", skip_serializing_if = "Vec::is_empty")]
        sdk_mcp_servers: Vec<String>,
        /// Replaces claude's system prompt (the Agent SDK's `systemPrompt`: its parts, in order).
        #[serde(rename = "systemPrompt", skip_serializing_if = "Option::is_none")]
        system_prompt: Option<Vec<String>>,
        /// Added to the end of claude's system prompt (or of the one replacing it).
        #[serde(rename = "appendSystemPrompt", skip_serializing_if = "Option::is_none")]
        append_system_prompt: Option<String>,
        /// Sends a subagent's text and thinking too (the Agent SDK's `forwardSubagentText`),
        /// not only its tool calls.
        #[serde(
            rename = "forwardSubagentText",
            skip_serializing_if = "std::ops::Not::not"
        )]
        forward_subagent_text: bool,
        /// Sends a `prompt_suggestion` after each turn (the Agent SDK's `promptSuggestions`),
        /// which costs claude one more model request per turn.
        #[serde(
            rename = "promptSuggestions",
            skip_serializing_if = "std::ops::Not::not"
        )]
        prompt_suggestions: bool,
    },
    Interrupt,
    /// An interrupt that also drops the user messages still waiting in claude's queue (claude
    /// answers each with a `cancelled` lifecycle; a claude that predates it ignores the field).
    #[serde(rename = "interrupt")]
    InterruptAll {
        cancel_queued: bool,
    },
    SetPermissionMode {
        mode: String,
    },
    SetModel {
        model: Option<String>,
    },
    /// Merges `settings` into claude's flag-settings layer (a key's value is replaced, not merged).
    ApplyFlagSettings {
        settings: Value,
    },
    /// The context window by category; `summary` answers from the last response's usage and local
    /// estimates, without a token-count request to the API.
    GetContextUsage {
        detail: &'static str,
    },
    RewindFiles(RewindFilesRequest),
    /// claude's settings as in force (`applied`: the model, `ultracodeAvailable`, ...).
    GetSettings,
    /// Stops one of claude's background tasks (an agent, a Monitor, a shell of its own), as its
    /// TaskStop tool would.
    StopTask {
        task_id: String,
    },
    /// The permission rules in force, from every source, each with where it comes from, and the
    /// workspace's directories (`SDKControlListPermissionRulesResponse`; the pinned claude and later).
    ListPermissionRules,
    /// Each MCP server claude knows, with its state (`McpServerStatus`).
    McpStatus,
    McpReconnect {
        #[serde(rename = "serverName")]
        server_name: String,
    },
    /// Names the session as the user named it in the editor (`source: "host"`, which claude
    /// counts as a user rename: its generated titles no longer replace it); claude writes the
    /// `custom-title` record itself, at once or when it first stores the conversation, and
    /// refuses when `session_id` is no longer its session.
    RenameSession {
        title: String,
        source: &'static str,
        session_id: String,
    },
    /// One message from an MCP server claude-acp serves claude (`sdkMcpServers`) that is not an
    /// answer: a notification of the server's, passed on to claude's client of it.
    McpMessage {
        server_name: String,
        message: Value,
    },
    /// Enables or disables an MCP server, for the rest of this claude's life.
    McpToggle {
        #[serde(rename = "serverName")]
        server_name: String,
        enabled: bool,
    },
}

impl OutboundControl {
    /// Sets on/off settings (`fastMode`, `ultracode`) in claude's flag-settings layer.
    pub fn set_switches(switches: &[(&str, bool)]) -> Self {
        let settings: Map<String, Value> = switches
            .iter()
            .map(|(key, on)| ((*key).to_owned(), Value::Bool(*on)))
            .collect();
        OutboundControl::ApplyFlagSettings {
            settings: Value::Object(settings),
        }
    }

    /// Sets the session's effort level (`None`: back to the model's default), applied by the
    /// running claude from its next request on.
    pub fn set_effort(level: Option<&str>) -> Self {
        OutboundControl::ApplyFlagSettings {
            settings: serde_json::json!({ "effortLevel": level }),
        }
    }
}
