//! MCP servers claude-acp hosts for claude over the control channel (claude's "SDK" servers): the
//! `mcp_message` requests claude sends, and the JSON-RPC answers that go back inside
//! `{"mcp_response": ...}`. Shapes as the pinned claude sent and accepted them
//! (`fixtures/transcripts/e_sdk_mcp.jsonl`, `e2_sdk_mcp_no_toolsearch.jsonl`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The protocol version the pinned claude asks for; answered when claude names none.
pub(crate) const MCP_PROTOCOL_VERSION: &str = "2025-11-25";

/// The `request` of an inbound `mcp_message` control request.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct McpMessage {
    pub(crate) server_name: String,
    /// One JSON-RPC message: a request (with `id`) or a notification.
    pub(crate) message: Value,
}

impl McpMessage {
    pub(crate) fn id(&self) -> Option<&Value> {
        self.message.get("id")
    }

    pub(crate) fn method(&self) -> &str {
        self.message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    pub(crate) fn params(&self) -> &Value {
        self.message.get("params").unwrap_or(&Value::Null)
    }
}

/// The success payload of the control response: the JSON-RPC reply under `mcp_response`.
pub(crate) fn mcp_response(reply: Value) -> Value {
    #[derive(Serialize)]
    struct Wrapped {
        mcp_response: Value,
    }
    to_value(Wrapped {
        mcp_response: reply,
    })
}

/// A JSON-RPC result; `id` is `None` for a notification, which claude still wants answered
/// (`{"jsonrpc":"2.0","result":{}}`).
pub(crate) fn rpc_result(id: Option<Value>, result: Value) -> Value {
    #[derive(Serialize)]
    struct Reply {
        jsonrpc: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<Value>,
        result: Value,
    }
    to_value(Reply {
        jsonrpc: "2.0",
        id,
        result,
    })
}

pub(crate) fn rpc_error(id: Value, code: i64, message: String) -> Value {
    #[derive(Serialize)]
    struct Error {
        code: i64,
        message: String,
    }
    #[derive(Serialize)]
    struct Reply {
        jsonrpc: &'static str,
        id: Value,
        error: Error,
    }
    to_value(Reply {
        jsonrpc: "2.0",
        id,
        error: Error { code, message },
    })
}

/// A JSON-RPC error whose error object is another server's, passed on as it wrote it.
pub(crate) fn rpc_error_object(id: Value, error: Value) -> Value {
    #[derive(Serialize)]
    struct Reply {
        jsonrpc: &'static str,
        id: Value,
        error: Value,
    }
    to_value(Reply {
        jsonrpc: "2.0",
        id,
        error,
    })
}

/// A JSON-RPC notification (a message with no `id`).
pub(crate) fn rpc_notification(method: &str, params: Option<Map<String, Value>>) -> Value {
    #[derive(Serialize)]
    struct Notification<'a> {
        jsonrpc: &'static str,
        method: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        params: Option<Map<String, Value>>,
    }
    to_value(Notification {
        jsonrpc: "2.0",
        method,
        params,
    })
}

/// The MCP revision of MCP over ACP (stateless: no `initialize`, each request says who asks in
/// its `_meta`), the only one the TypeScript ACP SDK's binding serves.
pub(crate) const MCP_OVER_ACP_VERSION: &str = "2026-07-28";

/// `params` with the `_meta` keys an MCP 2026-07-28 request carries (its protocol version, the
/// client's capabilities and, when known, its info), where `params` has none of its own.
pub(crate) fn with_request_meta(
    params: Option<Map<String, Value>>,
    client_capabilities: &Value,
    client_info: Option<&Value>,
) -> Map<String, Value> {
    let mut params = params.unwrap_or_default();
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    if let Value::Object(meta) = meta {
        meta.entry("io.modelcontextprotocol/protocolVersion")
            .or_insert_with(|| Value::from(MCP_OVER_ACP_VERSION));
        meta.entry("io.modelcontextprotocol/clientCapabilities")
            .or_insert_with(|| match client_capabilities {
                Value::Object(_) => client_capabilities.clone(),
                _ => Value::Object(Map::new()),
            });
        if let Some(info) = client_info {
            meta.entry("io.modelcontextprotocol/clientInfo")
                .or_insert_with(|| info.clone());
        }
    }
    params
}

/// claude's `initialize` answered from a 2026-07-28 server's `server/discover` result: in the
/// version claude asked for, with the server's capabilities, info and instructions (its info
/// top-level or under `_meta`, as servers write it); a server that says nothing of its
/// capabilities (or answered no `server/discover`) offers tools.
pub(crate) fn initialize_from_discover(
    protocol_version: &str,
    discover: Option<&Value>,
    name: &str,
) -> Value {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Result {
        protocol_version: String,
        capabilities: Value,
        server_info: Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        instructions: Option<Value>,
    }
    let field = |key: &str| discover.and_then(|d| d.get(key)).cloned();
    let capabilities = field("capabilities")
        .filter(Value::is_object)
        .unwrap_or_else(|| initialize_result(protocol_version, name, "0")["capabilities"].clone());
    let server_info = field("serverInfo")
        .or_else(|| {
            discover
                .and_then(|d| d.get("_meta"))
                .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"))
                .cloned()
        })
        .filter(Value::is_object)
        .unwrap_or_else(|| initialize_result(protocol_version, name, "0")["serverInfo"].clone());
    to_value(Result {
        protocol_version: protocol_version.to_owned(),
        capabilities,
        server_info,
        instructions: field("instructions").filter(Value::is_string),
    })
}

/// An empty JSON object (`{}`), the result of a notification or a ping.
/// A `tools/call`'s parts as claude sends them: the tool's name, its arguments (an empty object
/// when it sent none) and the tool use it answers (`_meta["claudecode/toolUseId"]`).
pub(crate) fn tool_call_parts(params: &Value) -> (&str, &Value, Option<&str>) {
    static NO_INPUT: std::sync::LazyLock<Value> =
        std::sync::LazyLock::new(|| Value::Object(serde_json::Map::new()));
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    let input = params.get("arguments").unwrap_or(&NO_INPUT);
    let tool_use_id = params
        .get("_meta")
        .and_then(|m| m.get("claudecode/toolUseId"))
        .and_then(Value::as_str);
    (name, input, tool_use_id)
}

pub(crate) fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

/// The `initialize` result of a server offering tools.
pub(crate) fn initialize_result(protocol_version: &str, name: &str, version: &str) -> Value {
    #[derive(Serialize)]
    struct Tools {}
    #[derive(Serialize)]
    struct Capabilities {
        tools: Tools,
    }
    #[derive(Serialize)]
    struct Info<'a> {
        name: &'a str,
        version: &'a str,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Result<'a> {
        protocol_version: &'a str,
        capabilities: Capabilities,
        server_info: Info<'a>,
    }
    to_value(Result {
        protocol_version,
        capabilities: Capabilities { tools: Tools {} },
        server_info: Info { name, version },
    })
}

/// One tool as `tools/list` gives it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct McpTool {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) input_schema: Value,
    #[serde(rename = "_meta")]
    pub(crate) meta: McpToolMeta,
}

impl McpTool {
    /// Tools as a capture of claude's built-ins lists them (`{"tools": [{"name", "description",
    /// "input_schema"}]}`), served under the same names, descriptions and schemas; like the
    /// built-ins they replace, always in the model's tool list.
    pub(crate) fn from_capture(capture: &str) -> Vec<McpTool> {
        let captured: Value = serde_json::from_str(capture).expect("the captured tools parse");
        captured["tools"]
            .as_array()
            .expect("the capture lists tools")
            .iter()
            .map(Self::from_api_tool)
            .collect()
    }

    /// The one tool under `key` of a capture (`{"powershell_tool": {...}}`).
    pub(crate) fn one_from_capture(capture: &str, key: &str) -> McpTool {
        let captured: Value = serde_json::from_str(capture).expect("the captured tool parses");
        assert!(captured[key].is_object(), "the capture holds {key}");
        Self::from_api_tool(&captured[key])
    }

    /// A tool as claude sends it to the API (`name`, `description`, `input_schema`).
    fn from_api_tool(tool: &Value) -> McpTool {
        let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        McpTool {
            name: text(&tool["name"]),
            description: text(&tool["description"]),
            input_schema: tool["input_schema"].clone(),
            meta: McpToolMeta { always_load: true },
        }
    }
}

/// What claude reads from a tool's `_meta`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct McpToolMeta {
    /// claude sends the tool's schema to the model with every request instead of deferring it
    /// behind its ToolSearch tool (the pinned claude defers every MCP tool by default; the key and
    /// its meaning are from the `alwaysLoad` description in its binary).
    #[serde(rename = "anthropic/alwaysLoad")]
    pub(crate) always_load: bool,
}

/// claude cuts an SDK server tool's description to this many UTF-16 units, ending it with
/// "… [truncated]", unless its environment's [`DESCRIPTION_LIMIT_ENV`] sets the limit (both read
/// from the pinned claude's binary; claude's own built-ins are not cut). claude.exe's PowerShell
/// description, which claude-acp serves in its place, is 9,006.
pub(crate) const DESCRIPTION_LIMIT: usize = 4096;

/// The environment variable that sets [`DESCRIPTION_LIMIT`] (for every MCP server of that claude).
pub(crate) const DESCRIPTION_LIMIT_ENV: &str = "CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH";

/// The environment a claude needs to give the model each of `tools`' descriptions whole: the
/// limit raised to the longest one, where one is over claude's default; none where all fit.
pub(crate) fn whole_descriptions_env(tools: &[McpTool]) -> Option<(String, String)> {
    let longest = tools
        .iter()
        .map(|tool| tool.description.encode_utf16().count())
        .max()?;
    (longest > DESCRIPTION_LIMIT).then(|| (DESCRIPTION_LIMIT_ENV.to_owned(), longest.to_string()))
}

/// [`whole_descriptions_env`] for a claude about to start beside claude-acp: none where
/// claude-acp's own environment sets the limit already (claude inherits that one).
pub(crate) fn description_limit_env(tools: &[McpTool]) -> Option<(String, String)> {
    if std::env::var_os(DESCRIPTION_LIMIT_ENV).is_some() {
        return None;
    }
    whole_descriptions_env(tools)
}

pub(crate) fn tools_list_result(tools: Vec<McpTool>) -> Value {
    #[derive(Serialize)]
    struct Result {
        tools: Vec<McpTool>,
    }
    to_value(Result { tools })
}

/// One block of a tool's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum McpContent {
    Text {
        text: String,
    },
    Image {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

/// A `tools/call` result.
pub(crate) fn call_result(content: Vec<McpContent>, is_error: bool) -> Value {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Result {
        content: Vec<McpContent>,
        is_error: bool,
    }
    to_value(Result { content, is_error })
}

/// What the pinned claude's own TaskStop answers for a background shell it stopped
/// (`fixtures/editor_terminal/tool_results.jsonl`, run cap2).
pub(crate) fn task_stopped_text(task_id: &str, command: &str) -> String {
    #[derive(Serialize)]
    struct Stopped<'a> {
        message: String,
        task_id: &'a str,
        task_type: &'static str,
        command: &'a str,
    }
    to_value(Stopped {
        message: format!("Successfully stopped task: {task_id} ({command})"),
        task_id,
        task_type: "local_bash",
        command,
    })
    .to_string()
}

fn to_value(value: impl Serialize) -> Value {
    // Strings, bools and JSON values only: serializing cannot fail.
    serde_json::to_value(value).expect("an MCP message serializes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_description_over_claudes_limit_raises_the_limit_to_it() {
        let tool = |description: &str| McpTool {
            name: "T".into(),
            description: description.into(),
            input_schema: json!({}),
            meta: McpToolMeta { always_load: true },
        };
        let short = tool("Runs a command.");
        assert_eq!(whole_descriptions_env(std::slice::from_ref(&short)), None);
        assert_eq!(whole_descriptions_env(&[]), None);
        // Counted as claude counts, in UTF-16 units: "—" is one, as it is in claude.exe's text.
        let at_limit = tool(&"—".repeat(DESCRIPTION_LIMIT));
        assert_eq!(whole_descriptions_env(&[at_limit]), None);
        let long = tool(&"x".repeat(DESCRIPTION_LIMIT + 1));
        assert_eq!(
            whole_descriptions_env(&[short, long]),
            Some((DESCRIPTION_LIMIT_ENV.into(), "4097".into()))
        );
    }

    #[test]
    fn claude_s_initialize_is_answered_from_a_server_s_discovery() {
        let discovered = json!({"supportedVersions": ["2026-07-28"], "resultType": "complete",
            "capabilities": {"tools": {"listChanged": true}}, "instructions": "Use echo.",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "tools", "version": "1"}}});
        assert_eq!(
            initialize_from_discover("2025-11-25", Some(&discovered), "tools"),
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": true}},
                "serverInfo": {"name": "tools", "version": "1"}, "instructions": "Use echo."})
        );
        // A server without `server/discover`: tools, under its configured name.
        assert_eq!(
            initialize_from_discover("2025-11-25", None, "tools"),
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "tools", "version": "0"}})
        );
    }

    #[test]
    fn answers_have_the_shapes_claude_took() {
        // e2_sdk_mcp_no_toolsearch, seq 7, 11 and 20.
        assert_eq!(
            mcp_response(rpc_result(
                Some(json!(0)),
                initialize_result("2025-11-25", "acp", "0.0.1")
            )),
            json!({"mcp_response": {"jsonrpc": "2.0", "id": 0, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "acp", "version": "0.0.1"}}}})
        );
        assert_eq!(
            rpc_result(None, empty_object()),
            json!({"jsonrpc": "2.0", "result": {}})
        );
        assert_eq!(
            call_result(vec![McpContent::Text { text: "hi".into() }], false),
            json!({"content": [{"type": "text", "text": "hi"}], "isError": false})
        );
        assert_eq!(
            serde_json::to_value(McpContent::Image {
                data: "AA==".into(),
                mime_type: "image/png".into()
            })
            .unwrap(),
            json!({"type": "image", "data": "AA==", "mimeType": "image/png"})
        );
    }
}
