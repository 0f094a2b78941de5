//! The editor as the sessions see it (`EditorClient`): updates go into the measured queue to its
//! stdout, our requests past the SDK through our pending-request map ([`crate::acp::transport`]),
//! in the form of the ACP version it chose at `initialize` ([`EditorForm`]).

use std::path::Path;
use std::sync::{Arc, OnceLock};

use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{JsonRpcRequest, JsonRpcResponse};
use async_trait::async_trait;

use super::errors::{editor_error, failure_error};
use super::permission_request::PermissionRequest;
use super::schema_1_20::Declared1_20;
use super::to_proto;
use crate::acp::transport::{
    McpRoutes, Notification, Outbound, PendingRequests, REPLAY_BUDGET, Transport,
};
use crate::domain::{
    AuthStatusInfo, EditorClient, EditorError, ElicitationOutcome, ElicitationRequest,
    McpElicitation, McpElicitationAnswer, McpElicitationMode, McpRelayNotification,
    McpRelayOutcome, McpRelayRequest, PermissionAsk, PermissionOutcome, SessionUpdate,
    TerminalCommand, TerminalExit, TerminalOutput, TurnState,
};
use crate::translate::compaction_text;

/// The extension notification that tells a change of login.
const AUTH_STATUS_NOTIFICATION: &str = "_claude/authStatus";

/// The editor over our transport, and what it declared at `initialize`.
pub struct AcpEditor {
    /// The queue to the editor's stdout: session updates go straight there, measured, instead of
    /// through the SDK's unbounded queue.
    outbound: Arc<Outbound>,
    /// Our own requests to the editor, sent past the SDK (see `transport::pending`).
    pending: Arc<PendingRequests>,
    /// Set once, by `initialize` (the editor says it before anything else).
    capabilities: OnceLock<acp::ClientCapabilities>,
    /// What the same `initialize` declared that the SDK's capabilities drop (schema 1.20's).
    declared_1_20: OnceLock<Declared1_20>,
    /// The editor's `clientInfo.name`, set by `initialize` when it sent one.
    client_name: OnceLock<String>,
    /// The form the editor is written to in: set once, by `initialize` (v1's or v2's).
    form: OnceLock<Box<dyn EditorForm>>,
    /// The form of an editor that sent no `initialize` before a session wrote to it.
    default_form: fn() -> Box<dyn EditorForm>,
    /// The `mcp/message` requests in flight, for their servers' notifications.
    pub(super) mcp_routes: Arc<McpRoutes>,
}

/// How the editor is written to in the ACP version it chose at `initialize`: every update, turn
/// state and permission request goes through the one chosen, so nothing else asks which.
pub(crate) trait EditorForm: Send + Sync {
    /// One of the session's updates, of the kinds the editor declared it takes.
    fn session_update(
        &self,
        outbound: &Outbound,
        session_id: &str,
        update: SessionUpdate,
        may_be_large: bool,
    );

    /// One update already in the SDK's (v1's) form.
    fn sdk_update(
        &self,
        outbound: &Outbound,
        session_id: &str,
        update: acp::SessionUpdate,
        may_be_large: bool,
    );

    /// One update in v1's JSON form, for what the SDK's types cannot write (1.20's).
    fn json_update(&self, outbound: &Outbound, session_id: &str, update: serde_json::Value) {
        let note = serde_json::json!({"sessionId": session_id, "update": update});
        outbound.push_json(Notification::new("session/update", note), false);
    }

    /// Where a turn stands, for an editor that [`follows_turns`](Self::follows_turns).
    fn turn_state(&self, _outbound: &Outbound, _session_id: &str, _state: TurnState) {}

    /// Whether the editor is told where each turn stands ([`TurnState`]).
    fn follows_turns(&self) -> bool {
        false
    }

    /// Whether the editor takes session cursors without declaring them (1.20's v2 editors).
    fn takes_cursors(&self) -> bool {
        false
    }

    /// A replay of stored history is over, for an editor whose version says so.
    fn replay_complete(&self, _outbound: &Outbound, _session_id: &str) {}

    /// A request that waits on the user (a permission, a form) went to the editor.
    fn ask_opened(&self, _outbound: &Outbound, _session_id: &str) {}

    /// That request was answered, or withdrawn (`answered` false: a cancel, whose turn's end
    /// follows).
    fn ask_closed(&self, _outbound: &Outbound, _session_id: &str, _answered: bool) {}

    /// `session/request_permission`'s params in this version's form.
    fn permission_request(&self, ask: PermissionAsk) -> PermissionRequest;

    /// The editor's answer to that request.
    fn permission_outcome(
        &self,
        answer: serde_json::Value,
    ) -> Result<PermissionOutcome, EditorError>;
}

/// A request before the user, from [`AcpEditor::ask_opened`]: the form hears when it is
/// answered or, dropped unanswered, withdrawn.
struct OpenAsk<'a> {
    editor: &'a AcpEditor,
    session_id: String,
    answered: bool,
}

impl OpenAsk<'_> {
    fn answered(mut self) {
        self.answered = true;
    }
}

impl Drop for OpenAsk<'_> {
    fn drop(&mut self) {
        let editor = self.editor;
        editor
            .form()
            .ask_closed(&editor.outbound, &self.session_id, self.answered);
    }
}

/// Clients that ask their user before they carry out `fs/write_text_file` and `terminal/create`,
/// by `clientInfo.name`: acpx 0.19.1 does unless run with `--approve-all` (its `confirmWrite` and
/// its terminal policy, read in its `dist/`).
const CONFIRM_THEMSELVES: &[&str] = &["acpx"];

impl AcpEditor {
    /// The editor at the other end of `transport`.
    /// Resolves once the answer to the editor's request `id` is queued to it.
    pub(crate) fn when_answered(&self, id: serde_json::Value) -> crate::domain::AnswerWritten {
        self.outbound.when_answered(id)
    }

    /// `default_form`: the form of an editor that sends no `initialize`.
    pub(crate) fn new(
        transport: &Transport,
        default_form: fn() -> Box<dyn EditorForm>,
    ) -> Arc<Self> {
        Arc::new(Self {
            outbound: transport.outbound.clone(),
            pending: transport.pending.clone(),
            capabilities: OnceLock::new(),
            declared_1_20: OnceLock::new(),
            client_name: OnceLock::new(),
            form: OnceLock::new(),
            default_form,
            mcp_routes: transport.mcp_routes.clone(),
        })
    }

    /// What the editor declared at `initialize` (its capabilities in v1's terms, what of schema
    /// 1.20 the SDK's drop, and its name) and the form it is written to in from now on.
    pub(crate) fn set_declared(
        &self,
        capabilities: acp::ClientCapabilities,
        declared_1_20: Declared1_20,
        client_name: Option<String>,
        form: Box<dyn EditorForm>,
    ) {
        let _ = self.capabilities.set(capabilities);
        let _ = self.declared_1_20.set(declared_1_20);
        if let Some(name) = client_name {
            let _ = self.client_name.set(name);
        }
        let _ = self.form.set(form);
    }

    fn form(&self) -> &dyn EditorForm {
        self.form.get_or_init(self.default_form).as_ref()
    }

    /// Sends `request` and waits for the editor's answer, read as the SDK reads it. Dropping
    /// the future sends `$/cancel_request`.
    pub(super) async fn request<R>(&self, request: R) -> Result<R::Response, EditorError>
    where
        R: JsonRpcRequest + serde::Serialize + Send + 'static,
    {
        let method = request.method().to_owned();
        let answer = self
            .pending
            .request(&self.outbound, method.clone(), request, false)
            .await
            .map_err(failure_error)?;
        R::Response::from_json(&method, answer).map_err(editor_error)
    }

    /// What the editor declared of schema 1.20 past the SDK (nothing before `initialize`).
    fn declared_1_20(&self) -> Declared1_20 {
        self.declared_1_20.get().copied().unwrap_or_default()
    }

    /// Whether the editor declared ACP's `plan`: the plan goes as plan operations.
    fn supports_plan_operations(&self) -> bool {
        self.capabilities.get().is_some_and(|c| c.plan.is_some())
    }

    /// A request before the user, until the returned guard says it was answered or is dropped
    /// (v2's turn `requires_action` meanwhile; the same request in both versions otherwise).
    fn ask_opened(&self, session_id: &str) -> OpenAsk<'_> {
        self.form().ask_opened(&self.outbound, session_id);
        OpenAsk {
            editor: self,
            session_id: session_id.to_owned(),
            answered: false,
        }
    }
}

#[async_trait]
impl EditorClient for AcpEditor {
    fn session_update(&self, session_id: &str, update: SessionUpdate) {
        let form = self.form();
        // ACP: compaction updates only to editors that declared them; others get a line of text.
        let update = match update {
            // ACP: a child session's traffic only to editors that declared `subagents`.
            SessionUpdate::InSubagent { session_id, update } if self.supports_subagents() => {
                return self.session_update(&session_id, *update);
            }
            SessionUpdate::InSubagent { .. } | SessionUpdate::MessageFrom { .. }
                if !self.supports_subagents() =>
            {
                return;
            }
            // ACP: plan mode's plan only to editors that declared `plan`, with its file's path.
            SessionUpdate::MarkdownPlan { content, path } if self.supports_plan_operations() => {
                let update = to_proto::markdown_plan(content, path);
                return form.json_update(&self.outbound, session_id, update);
            }
            // ACP 1.20: cursors only to editors that take them.
            SessionUpdate::Cursor(cursor) if self.supports_cursors() => {
                let update = to_proto::cursor_update(cursor);
                return form.json_update(&self.outbound, session_id, update);
            }
            // ACP: suggestions only to editors that declared `session.promptSuggestions`.
            SessionUpdate::PromptSuggestions(suggestions) if self.supports_prompt_suggestions() => {
                let update = to_proto::prompt_suggestions(suggestions);
                return form.json_update(&self.outbound, session_id, update);
            }
            SessionUpdate::MarkdownPlan { .. }
            | SessionUpdate::Cursor(_)
            | SessionUpdate::PromptSuggestions(_) => return,
            // ACP: plan operations for editors that declared `plan`, the whole `plan` for others.
            SessionUpdate::Plan { entries } if self.supports_plan_operations() => {
                let update = to_proto::plan_operation(entries);
                return form.sdk_update(&self.outbound, session_id, update, false);
            }
            SessionUpdate::Compaction { status, .. } if !self.supports_compaction() => {
                SessionUpdate::agent_text(compaction_text(status))
            }
            // ACP: subagent updates only to editors that declared `subagents`.
            SessionUpdate::Subagent(_) if !self.supports_subagents() => return,
            SessionUpdate::Notice(notice) if !self.supports_notices() => {
                let message = to_proto::notice_as_message(notice);
                return form.sdk_update(&self.outbound, session_id, message, false);
            }
            other => other,
        };
        // Only tool calls carry payloads of MiBs (inputs, outputs, diffs): those are measured
        // first, and the big ones serialised while written; chunks go straight into their line.
        let may_be_large = matches!(
            update,
            SessionUpdate::ToolCall(_) | SessionUpdate::ToolCallUpdate(_)
        );
        form.session_update(&self.outbound, session_id, update, may_be_large);
    }

    /// Whether the editor declared ACP's `subagents`: it is told of each subagent.
    fn supports_subagents(&self) -> bool {
        self.capabilities
            .get()
            .is_some_and(|c| c.subagents.is_some())
    }

    fn turn_state(&self, session_id: &str, state: TurnState) {
        self.form().turn_state(&self.outbound, session_id, state);
    }

    fn follows_turns(&self) -> bool {
        self.form().follows_turns()
    }

    fn replay_complete(&self, session_id: &str) {
        self.form().replay_complete(&self.outbound, session_id);
    }

    fn auth_status(&self, status: &AuthStatusInfo) {
        // An extension notification (ACP has none for this): `_claude/authStatus` with the same
        // object `initialize` gives in `_meta.claudeCode.auth`.
        let params = serde_json::json!({ "auth": status });
        self.outbound
            .push_json(Notification::new(AUTH_STATUS_NOTIFICATION, params), false);
    }

    async fn room_for_updates(&self) {
        self.outbound.room().await;
    }

    async fn room_for_replay(&self) {
        self.outbound.room_below(REPLAY_BUDGET).await;
    }

    async fn request_permission(
        &self,
        ask: PermissionAsk,
    ) -> Result<PermissionOutcome, EditorError> {
        let session_id = ask.session_id.clone();
        // Its tool call may carry a file's content twice (`rawInput`, the diff), which the SDK
        // would copy three times; here it is serialised once, while written.
        let request = self.form().permission_request(ask);
        let open = self.ask_opened(&session_id);
        // Dropping this future (a cancel) sends `$/cancel_request` and withdraws the ask.
        let answer = self
            .pending
            .request(&self.outbound, "session/request_permission", request, true)
            .await;
        open.answered();
        self.form()
            .permission_outcome(answer.map_err(failure_error)?)
    }

    fn supports_prompt_suggestions(&self) -> bool {
        self.declared_1_20().prompt_suggestions
    }

    fn supports_skill_commands(&self) -> bool {
        self.declared_1_20().skill_commands
    }

    fn supports_cursors(&self) -> bool {
        self.declared_1_20().cursors || self.form().takes_cursors()
    }

    fn knows_speed_category(&self) -> bool {
        self.declared_1_20().knows_1_20()
    }

    fn supports_notices(&self) -> bool {
        self.capabilities
            .get()
            .and_then(|c| c.session.as_ref())
            .is_some_and(|s| s.notices.is_some())
    }

    fn supports_compaction(&self) -> bool {
        self.capabilities
            .get()
            .and_then(|c| c.session.as_ref())
            .is_some_and(|s| s.compaction.is_some())
    }

    fn supports_boolean_options(&self) -> bool {
        self.capabilities
            .get()
            .and_then(|c| c.session.as_ref())
            .and_then(|s| s.config_options.as_ref())
            .is_some_and(|o| o.boolean.is_some())
    }

    fn supports_text_files(&self) -> bool {
        self.capabilities
            .get()
            .is_some_and(|c| c.fs.read_text_file && c.fs.write_text_file)
    }

    fn confirms_itself(&self) -> bool {
        self.client_name
            .get()
            .is_some_and(|name| CONFIRM_THEMSELVES.contains(&name.as_str()))
    }

    async fn read_text_file(&self, session_id: &str, path: &Path) -> Result<String, EditorError> {
        let request = acp::ReadTextFileRequest::new(session_id.to_owned(), path.to_path_buf());
        // Dropping this future (the tool call timed out) sends `$/cancel_request` to the editor.
        Ok(self.request(request).await?.content)
    }

    async fn write_text_file(
        &self,
        session_id: &str,
        path: &Path,
        content: String,
    ) -> Result<(), EditorError> {
        let request =
            acp::WriteTextFileRequest::new(session_id.to_owned(), path.to_path_buf(), content);
        self.request(request).await?;
        Ok(())
    }

    fn supports_terminal(&self) -> bool {
        self.capabilities.get().is_some_and(|c| c.terminal)
    }

    async fn create_terminal(
        &self,
        session_id: &str,
        command: TerminalCommand,
    ) -> Result<String, EditorError> {
        let request = acp::CreateTerminalRequest::new(session_id.to_owned(), command.command)
            .args(command.args)
            .env(
                command
                    .env
                    .into_iter()
                    .map(|(name, value)| acp::EnvVariable::new(name, value))
                    .collect(),
            )
            .cwd(command.cwd)
            .output_byte_limit(command.output_byte_limit);
        let response = self.request(request).await?;
        Ok(response.terminal_id.0.to_string())
    }

    async fn terminal_output(
        &self,
        session_id: &str,
        terminal_id: &str,
    ) -> Result<TerminalOutput, EditorError> {
        let request =
            acp::TerminalOutputRequest::new(session_id.to_owned(), terminal_id.to_owned());
        let response = self.request(request).await?;
        Ok(TerminalOutput {
            output: response.output,
            truncated: response.truncated,
            exit: response.exit_status.map(terminal_exit),
        })
    }

    async fn wait_for_terminal_exit(
        &self,
        session_id: &str,
        terminal_id: &str,
    ) -> Result<TerminalExit, EditorError> {
        let request =
            acp::WaitForTerminalExitRequest::new(session_id.to_owned(), terminal_id.to_owned());
        // Dropping this future (a timeout, a cancel) sends `$/cancel_request` to the editor.
        let response = self.request(request).await?;
        Ok(terminal_exit(response.exit_status))
    }

    async fn kill_terminal(&self, session_id: &str, terminal_id: &str) -> Result<(), EditorError> {
        let request = acp::KillTerminalRequest::new(session_id.to_owned(), terminal_id.to_owned());
        self.request(request).await?;
        Ok(())
    }

    async fn release_terminal(
        &self,
        session_id: &str,
        terminal_id: &str,
    ) -> Result<(), EditorError> {
        let request =
            acp::ReleaseTerminalRequest::new(session_id.to_owned(), terminal_id.to_owned());
        self.request(request).await?;
        Ok(())
    }

    fn supports_elicitation(&self) -> bool {
        self.capabilities
            .get()
            .is_some_and(|c| c.elicitation.as_ref().is_some_and(|e| e.form.is_some()))
    }

    /// `elicitation/create` in form mode: one required field per question, its choices titled
    /// with their labels and described with their descriptions.
    async fn elicit(&self, request: ElicitationRequest) -> Result<ElicitationOutcome, EditorError> {
        if !self.supports_elicitation() {
            return Err(EditorError::Unsupported("form elicitation"));
        }
        let schema = request
            .fields
            .iter()
            .fold(acp::ElicitationSchema::new(), |schema, field| {
                schema.property(field.key.clone(), to_proto::form_field(field), true)
            });
        let open = self.ask_opened(&request.session_id);
        let scope = acp::ElicitationSessionScope::new(request.session_id)
            .tool_call_id(request.tool_call_id.map(acp::ToolCallId::new));
        let create = acp::CreateElicitationRequest::new(
            acp::ElicitationFormMode::new(scope, schema),
            request.message,
        );
        let response = self.request(create).await;
        open.answered();
        let response = response?;
        match response.action {
            acp::ElicitationAction::Accept(accept) => {
                let mut fields = Vec::new();
                for (key, value) in accept.content.unwrap_or_default() {
                    let labels = match value {
                        acp::ElicitationContentValue::String(label) => vec![label],
                        acp::ElicitationContentValue::StringArray(labels) => labels,
                        other => {
                            return Err(EditorError::Malformed(format!(
                                "form field `{key}` holds {other:?}, not a choice"
                            )));
                        }
                    };
                    fields.push((key, labels));
                }
                Ok(ElicitationOutcome::Accepted(fields))
            }
            acp::ElicitationAction::Decline => Ok(ElicitationOutcome::Declined),
            acp::ElicitationAction::Cancel => Ok(ElicitationOutcome::Cancelled),
            _ => Err(EditorError::Malformed(
                "an unknown elicitation action".into(),
            )),
        }
    }

    fn supports_url_elicitation(&self) -> bool {
        self.capabilities
            .get()
            .is_some_and(|c| c.elicitation.as_ref().is_some_and(|e| e.url.is_some()))
    }

    /// `elicitation/create` for an MCP server: its own schema (MCP's and ACP's form schemas are
    /// the same restricted JSON Schema) or its page, the server named in the message.
    async fn elicit_mcp(
        &self,
        request: McpElicitation,
    ) -> Result<McpElicitationAnswer, EditorError> {
        let open = self.ask_opened(&request.session_id);
        let scope = acp::ElicitationSessionScope::new(request.session_id);
        let mode: acp::ElicitationMode = match request.mode {
            McpElicitationMode::Form { schema } => {
                let schema: acp::ElicitationSchema = serde_json::from_value(schema)
                    .map_err(|e| EditorError::Malformed(format!("the server's form: {e}")))?;
                acp::ElicitationFormMode::new(scope, schema).into()
            }
            McpElicitationMode::Url {
                url,
                elicitation_id,
            } => acp::ElicitationUrlMode::new(scope, elicitation_id, url).into(),
        };
        let message = format!("MCP server {} asks: {}", request.server, request.message);
        let response = self
            .request(acp::CreateElicitationRequest::new(mode, message))
            .await;
        open.answered();
        let response = response?;
        match response.action {
            acp::ElicitationAction::Accept(accept) => {
                let content = accept
                    .content
                    .map(|fields| {
                        fields
                            .into_iter()
                            .map(|(key, value)| Ok((key, serde_json::to_value(value)?)))
                            .collect::<Result<serde_json::Map<_, _>, serde_json::Error>>()
                    })
                    .transpose()
                    .map_err(|e| EditorError::Malformed(e.to_string()))?;
                Ok(McpElicitationAnswer::Accept(content))
            }
            acp::ElicitationAction::Decline => Ok(McpElicitationAnswer::Decline),
            acp::ElicitationAction::Cancel => Ok(McpElicitationAnswer::Cancel),
            _ => Err(EditorError::Malformed(
                "an unknown elicitation action".into(),
            )),
        }
    }

    async fn mcp_message(
        &self,
        request: McpRelayRequest,
        notifications: tokio::sync::mpsc::Sender<McpRelayNotification>,
    ) -> Result<McpRelayOutcome, EditorError> {
        self.relay_mcp(request, notifications).await
    }
}

fn terminal_exit(status: acp::TerminalExitStatus) -> TerminalExit {
    TerminalExit {
        code: status.exit_code,
        signal: status.signal,
    }
}
