//! The MCP side of the permission server: one tool whose arguments are claude's permission ask
//! and whose reply is the decision, in exactly the shape claude accepts.
//!
//! The contract (the pinned claude; checked by the tests in `real_cli::permissions::mcp_server`):
//! arguments `{tool_name, input, tool_use_id}`; the reply must be exactly one text block whose text
//! is JSON `{"behavior":"allow","updatedInput":{...}}` or `{"behavior":"deny","message":"..."}`.
//! A reply with only `structuredContent` is rejected by claude, so none is sent.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde::Deserialize as _;
use serde_json::{Map, Value};

use super::suggestions::always_allow_suggestions;
use crate::claude::wire::{
    CanUseTool, PERMISSION_SERVER_NAME, PermissionDecision, PermissionPromptArgs,
    permission_prompt_schema,
};

/// The tool's name on our server; claude knows it as `mcp__claude-acp__permission`.
pub const PERMISSION_TOOL: &str = "permission";

/// A boxed, sendable future (the same type as `futures::future::BoxFuture`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What the session does with an ask. Dropping the returned future means claude withdrew the ask
/// (the turn was interrupted): the session should close the editor's prompt.
pub type PermissionCallback =
    Arc<dyn Fn(PermissionCall) -> BoxFuture<'static, PermissionDecision> + Send + Sync>;

/// One permission ask claude sent to the MCP tool.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionCall {
    pub tool_name: String,
    /// The input claude wants to run the tool with.
    pub input: Value,
    pub tool_use_id: Option<String>,
}

impl PermissionCall {
    /// The same ask in the stdio channel's shape, so one decision path serves both transports.
    /// The MCP tool gets no description, suggestions or blocked path: the suggestions are rebuilt
    /// from the ask, so "always allow" is offered as on stdio; the rest stays empty.
    pub fn into_can_use_tool(self) -> CanUseTool {
        CanUseTool {
            display_name: None,
            description: None,
            permission_suggestions: always_allow_suggestions(&self.tool_name, &self.input),
            blocked_path: None,
            decision_reason: None,
            // Only AskUserQuestion needs the user's input rather than a yes or no.
            requires_user_interaction: self.tool_name == "AskUserQuestion",
            mcp_server: None,
            agent_id: None,
            tool_name: self.tool_name,
            input: self.input,
            tool_use_id: self.tool_use_id,
        }
    }
}

/// The rmcp handler; one is made per MCP session, all sharing the session's callback.
#[derive(Clone)]
pub(crate) struct PermissionTool {
    pub(crate) callback: PermissionCallback,
}

impl PermissionTool {
    fn tool() -> Tool {
        Tool::new(
            PERMISSION_TOOL,
            "Asks the user of the editor whether Claude Code may run a tool.",
            Arc::new(permission_prompt_schema()),
        )
    }
}

/// Reads claude's arguments. `tool_use_id` falls back to the `_meta` claude also sends.
pub(crate) fn parse_call(
    arguments: Option<&Map<String, Value>>,
    meta_tool_use_id: Option<&str>,
) -> Result<PermissionCall, String> {
    let arguments = arguments.ok_or("the permission request carried no arguments")?;
    let args = PermissionPromptArgs::deserialize(arguments)
        .map_err(|e| format!("the permission request is malformed: {e}"))?;
    Ok(PermissionCall {
        tool_name: args.tool_name,
        input: args.input,
        tool_use_id: args
            .tool_use_id
            .or_else(|| meta_tool_use_id.map(str::to_owned)),
    })
}

/// The one text block claude expects, holding the decision as JSON.
pub(crate) fn decision_result(decision: &PermissionDecision) -> CallToolResult {
    // PermissionDecision holds only strings, bools and JSON values: it always serializes.
    let text = serde_json::to_string(decision).expect("a permission decision serializes");
    CallToolResult::success(vec![ContentBlock::text(text)])
}

impl ServerHandler for PermissionTool {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new(PERMISSION_SERVER_NAME, env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![Self::tool()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != PERMISSION_TOOL {
            return Err(ErrorData::invalid_params(
                format!("no tool named {}", request.name),
                None,
            ));
        }
        // rmcp may move the request's `_meta` into the context; look in both.
        let meta_tool_use_id = request
            .meta
            .iter()
            .chain(std::iter::once(&context.meta))
            .find_map(|meta| meta.get("claudecode/toolUseId").and_then(Value::as_str))
            .map(str::to_owned);
        let call = match parse_call(request.arguments.as_ref(), meta_tool_use_id.as_deref()) {
            Ok(call) => call,
            Err(why) => {
                // Deny rather than fail: a failed call could leave claude unsure what to do.
                tracing::info!("malformed permission request from claude: {why}");
                let deny = PermissionDecision::Deny {
                    message: format!("claude-acp could not read the permission request: {why}"),
                    interrupt: false,
                };
                return Ok(decision_result(&deny).into());
            }
        };
        tracing::debug!(
            tool = %call.tool_name,
            tool_use_id = ?call.tool_use_id,
            "permission asked over MCP"
        );
        // claude cancels the call when the user interrupts the turn; dropping the callback's
        // future is how the session learns the ask is gone.
        let decision = tokio::select! {
            decision = (self.callback)(call) => decision,
            () = context.ct.cancelled() => {
                return Err(ErrorData::internal_error("the permission request was cancelled", None));
            }
        };
        Ok(decision_result(&decision).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(value: Value) -> Map<String, Value> {
        let Value::Object(map) = value else { panic!() };
        map
    }

    #[test]
    fn claudes_arguments_become_a_permission_call() {
        let a = args(json!({"tool_name": "Write",
            "input": {"file_path": "/w/a.txt", "content": "x"}, "tool_use_id": "toolu_1"}));
        let call = parse_call(Some(&a), Some("toolu_meta")).unwrap();
        assert_eq!(call.tool_name, "Write");
        assert_eq!(call.input["file_path"], "/w/a.txt");
        assert_eq!(call.tool_use_id.as_deref(), Some("toolu_1"));
    }

    #[test]
    fn the_tool_use_id_falls_back_to_claudes_meta() {
        let a = args(json!({"tool_name": "Bash", "input": {"command": "ls"}}));
        let call = parse_call(Some(&a), Some("toolu_meta")).unwrap();
        assert_eq!(call.tool_use_id.as_deref(), Some("toolu_meta"));
    }

    #[test]
    fn a_request_without_tool_name_is_refused() {
        let a = args(json!({"input": {}}));
        assert!(parse_call(Some(&a), None).is_err());
        assert!(parse_call(None, None).is_err());
    }

    #[test]
    fn the_reply_is_exactly_one_text_block_of_decision_json() {
        let allow = PermissionDecision::Allow {
            updated_input: json!({"content": "edited"}),
            updated_permissions: vec![],
        };
        let reply = serde_json::to_value(decision_result(&allow)).unwrap();
        let content = reply["content"].as_array().unwrap();
        assert_eq!(content.len(), 1);
        assert_eq!(content[0]["type"], "text");
        let text: Value = serde_json::from_str(content[0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(
            text,
            json!({"behavior": "allow", "updatedInput": {"content": "edited"}})
        );
        assert!(reply.get("structuredContent").is_none());

        let deny = PermissionDecision::Deny {
            message: "no".into(),
            interrupt: false,
        };
        let reply = serde_json::to_value(decision_result(&deny)).unwrap();
        let text: Value =
            serde_json::from_str(reply["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, json!({"behavior": "deny", "message": "no"}));
    }

    #[test]
    fn an_mcp_ask_reads_as_a_can_use_tool() {
        let call = PermissionCall {
            tool_name: "AskUserQuestion".into(),
            input: json!({"questions": []}),
            tool_use_id: Some("toolu_q".into()),
        };
        let ask = call.into_can_use_tool();
        assert_eq!(ask.tool_name, "AskUserQuestion");
        assert_eq!(ask.input, json!({"questions": []}));
        assert_eq!(ask.tool_use_id.as_deref(), Some("toolu_q"));
        assert!(ask.requires_user_interaction);
        let write = PermissionCall {
            tool_name: "Write".into(),
            input: json!({}),
            tool_use_id: None,
        };
        assert!(!write.into_can_use_tool().requires_user_interaction);
    }
}
