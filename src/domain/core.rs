//! The adapter as the editor-protocol layer sees it: one method per ACP request.

use std::path::PathBuf;

use async_trait::async_trait;

use super::{
    AgentError, AnswerWritten, ArchiveFilter, ConfigOption, IdleBehavior, Inserted, NewSession,
    PromptBlock, SessionOpened, SessionPage, SteerOutcome, TurnOutcome,
};

/// What `initialize` may claim, decided by what is built and configured.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AgentFeatures {
    pub load_session: bool,
    pub list_sessions: bool,
    pub resume_session: bool,
    pub close_session: bool,
    pub fork_session: bool,
    /// `session/delete`: claude's stored conversation can be removed.
    pub delete_session: bool,
    /// `session/set_title`: a session is named as claude's own `/rename` names it.
    pub session_title: bool,
    /// `session/status`: whether a session is open here or only stored.
    pub session_status: bool,
    /// `session/options`: a new session's modes and config options without opening one.
    pub session_options: bool,
    /// `session/archive`, `session/unarchive` and `session/list`'s `archived` filter.
    pub session_archive: bool,
    /// `additionalDirectories` on session lifecycle requests (claude's `--add-dir`).
    pub additional_directories: bool,
    /// `logout`: claude's own logout can be run.
    pub logout: bool,
    /// `systemPrompt` on session lifecycle requests, in both modes (append and override).
    pub system_prompt: bool,
    pub mcp_http: bool,
    pub mcp_sse: bool,
    /// MCP servers the editor hosts itself, reached over ACP (`mcpServers` of type `acp`,
    /// `mcp/message`).
    pub mcp_acp: bool,
    /// A prompt sent while a turn runs waits its turn instead of being refused
    /// (`agentCapabilities._meta.claudeCode.promptQueueing`, which Zed reads).
    pub prompt_queueing: bool,
    /// `_session/steering` is served (`InitializeResponse._meta.steering.supported`).
    pub steering: bool,
    /// `providers/list|set|disable`: the editor routes claude's requests (one provider, `main`).
    pub providers: bool,
    /// Auth methods that may be offered, each run as `claude-acp <args>` in a terminal.
    pub auth_methods: Vec<AuthMethodInfo>,
    /// The login in use as `initialize` reports it (`_meta.claudeCode.auth`), if known.
    pub auth_status: Option<AuthStatusInfo>,
}

/// One way to log in: the editor runs `claude-acp <args>` in a terminal, then `authenticate`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AuthMethodInfo {
    pub id: String,
    pub name: String,
    pub description: String,
    pub args: Vec<String>,
    /// Offered only to editors that declared they run terminal logins (`auth.terminal`, or
    /// `_meta["terminal-auth"]`); the others get the methods without it, as before.
    pub needs_terminal_client: bool,
    /// The editor's own gateway (`_meta.gateway` on `authenticate`) and the API it speaks,
    /// offered only to editors that declare gateways (`auth._meta.gateway`).
    pub gateway: Option<ApiKind>,
}

/// The API claude's requests speak on their route: Anthropic's own, or a cloud's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ApiKind {
    #[default]
    Anthropic,
    Bedrock,
    Vertex,
}

impl ApiKind {
    /// The name ACP gives it (`LlmProtocol`, and `_meta.gateway.protocol`).
    pub fn name(self) -> &'static str {
        match self {
            ApiKind::Anthropic => "anthropic",
            ApiKind::Bedrock => "bedrock",
            ApiKind::Vertex => "vertex",
        }
    }
}

/// Where a session is (`session/status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionStatus {
    /// In memory here: its actor runs (its claude may be idle and stopped).
    Open,
    /// Only in claude's store: `session/load` or `session/resume` opens it.
    Saved,
}

/// The one provider of `providers/*`: claude has one route for all its requests.
pub const MAIN_PROVIDER: &str = "main";

/// Where claude's requests go now (`providers/list`): no secret, only the API and the URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderRoute {
    pub api: ApiKind,
    pub base_url: String,
}

/// The editor's gateway for claude's API: the API it speaks, its URL and the headers to send it.
#[derive(Clone, PartialEq, Default)]
pub struct Gateway {
    pub api: ApiKind,
    pub base_url: String,
    /// Vertex only: the Google Cloud project and region claude names in its requests.
    pub vertex: Option<VertexTarget>,
    /// May hold secrets: never printed (see `Debug`).
    pub headers: Vec<(String, String)>,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Gateway")
            .field("api", &self.api)
            .field("base_url", &self.base_url)
            .field("vertex", &self.vertex)
            .field("header_names", &names)
            .finish()
    }
}

/// A Vertex route's Google Cloud project and region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VertexTarget {
    pub project_id: String,
    pub region: String,
}

/// The login claude uses, for the editor: what kind and the account (e-mail masked).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthStatusInfo {
    pub logged_in: bool,
    /// claude's `authMethod`: `claude.ai`, `console`, `api_key`, `oauth_token`, `third_party`, `none`.
    pub method: String,
    /// claude's `apiProvider`: `firstParty`, `bedrock`, `vertex`, ...
    pub provider: String,
    /// The e-mail masked as in the logs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// One line for people: "Claude subscription (max)", "API key (ANTHROPIC_API_KEY)".
    pub summary: String,
}

/// The editor-facing operations of the adapter. `crate::session::Sessions` implements it; the ACP
/// layer calls it from tasks it spawns, never from inside the SDK's dispatch loop.
#[async_trait]
pub trait AgentCore: Send + Sync + 'static {
    fn features(&self) -> AgentFeatures;
    async fn authenticate(
        &self,
        method_id: &str,
        gateway: Option<Gateway>,
    ) -> Result<(), AgentError>;
    async fn new_session(&self, req: NewSession) -> Result<SessionOpened, AgentError>;
    async fn load_session(
        &self,
        session_id: &str,
        req: NewSession,
    ) -> Result<SessionOpened, AgentError>;
    async fn resume_session(
        &self,
        session_id: &str,
        req: NewSession,
    ) -> Result<SessionOpened, AgentError>;
    async fn fork_session(
        &self,
        session_id: &str,
        req: NewSession,
    ) -> Result<SessionOpened, AgentError>;
    async fn list_sessions(
        &self,
        cwd: Option<PathBuf>,
        cursor: Option<String>,
        archived: ArchiveFilter,
    ) -> Result<SessionPage, AgentError>;
    /// `session/archive` (`archived`) and `session/unarchive`: kept across processes; an open
    /// session is closed first.
    async fn set_archived(&self, session_id: &str, archived: bool) -> Result<(), AgentError> {
        let _ = archived;
        Err(AgentError::MethodNotFound(format!(
            "session/archive is not supported (session {session_id})"
        )))
    }
    async fn close_session(&self, session_id: &str) -> Result<(), AgentError>;
    /// `session/delete`: ends the session if open and removes its stored conversation.
    async fn delete_session(&self, session_id: &str) -> Result<(), AgentError> {
        Err(AgentError::MethodNotFound(format!(
            "session/delete is not supported (session {session_id})"
        )))
    }
    /// `session/set_title`: names the session (its title trimmed); the title it has now.
    async fn set_session_title(&self, session_id: &str, title: &str) -> Result<String, AgentError> {
        let _ = title;
        Err(AgentError::MethodNotFound(format!(
            "session/set_title is not supported (session {session_id})"
        )))
    }
    /// `session/options`: the modes and config options a new session of `req` would open with,
    /// or session `session_id`'s.
    async fn session_options(
        &self,
        session_id: Option<&str>,
        req: NewSession,
    ) -> Result<SessionOpened, AgentError> {
        let _ = (session_id, req);
        Err(AgentError::MethodNotFound(
            "session/options is not supported".into(),
        ))
    }
    /// `session/status`: open here, or only stored; it starts and loads nothing.
    async fn session_status(&self, session_id: &str) -> Result<SessionStatus, AgentError> {
        Err(AgentError::MethodNotFound(format!(
            "session/status is not supported (session {session_id})"
        )))
    }
    /// `logout`: signs the user out of claude.
    async fn logout(&self) -> Result<(), AgentError> {
        Err(AgentError::MethodNotFound("logout is not supported".into()))
    }
    /// `providers/list`: the route claude's requests take now, the editor's or the environment's.
    fn provider_route(&self) -> ProviderRoute {
        ProviderRoute {
            api: ApiKind::Anthropic,
            base_url: String::new(),
        }
    }
    /// `providers/set`: every claude from now on goes through `gateway`, the live sessions at
    /// their next turn.
    async fn set_provider(&self, provider_id: &str, gateway: Gateway) -> Result<(), AgentError> {
        let _ = gateway;
        Err(AgentError::MethodNotFound(format!(
            "providers/set is not supported (provider {provider_id})"
        )))
    }
    /// `providers/disable`: claude's requests take the environment's own route again.
    async fn disable_provider(&self, provider_id: &str) -> Result<(), AgentError> {
        Err(AgentError::MethodNotFound(format!(
            "providers/disable is not supported (provider {provider_id})"
        )))
    }
    /// `written`: told when the answer is queued to the editor, if the caller can tell.
    async fn prompt(
        &self,
        session_id: &str,
        blocks: Vec<PromptBlock>,
        written: Option<AnswerWritten>,
    ) -> Result<TurnOutcome, AgentError>;
    /// A prompt whose editor is answered once it is in the conversation (ACP v2): as
    /// [`Self::prompt`], and `inserted` is told the id of its user message then. Sent again
    /// under the `key` of one taken in (v2's `idempotencyKey`), it is not run again: `inserted`
    /// is told that prompt's id. By default it is inserted at once, under a fresh id.
    async fn prompt_inserted(
        &self,
        session_id: &str,
        blocks: Vec<PromptBlock>,
        inserted: Inserted,
        key: Option<String>,
    ) -> Result<TurnOutcome, AgentError> {
        let _ = key;
        let _ = inserted.send(uuid::Uuid::new_v4().to_string());
        self.prompt(session_id, blocks, None).await
    }
    /// `_session/steering`: `blocks` into the running turn, or per `idle` when none runs.
    async fn steer(
        &self,
        session_id: &str,
        blocks: Vec<PromptBlock>,
        idle: IdleBehavior,
    ) -> Result<SteerOutcome, AgentError> {
        let _ = (blocks, idle);
        Err(AgentError::MethodNotFound(format!(
            "_session/steering is not supported (session {session_id})"
        )))
    }
    /// `_session/async_task/stop`: stops one of claude's background jobs (claude's task id), not
    /// the turn; whether claude stopped one.
    async fn stop_async_task(&self, session_id: &str, task_id: &str) -> Result<bool, AgentError> {
        let _ = task_id;
        Err(AgentError::MethodNotFound(format!(
            "_session/async_task/stop is not supported (session {session_id})"
        )))
    }
    /// ACP v2's `tool_call/cancel`: stops the background job tool call `tool_call_id` started
    /// (its card then ends); invalid params for a call that runs no such job.
    async fn cancel_tool_call(
        &self,
        session_id: &str,
        tool_call_id: &str,
    ) -> Result<(), AgentError> {
        let _ = tool_call_id;
        Err(AgentError::MethodNotFound(format!(
            "tool_call/cancel is not supported (session {session_id})"
        )))
    }
    /// `session/cancel`: a notification, so it returns nothing; it must not block.
    fn cancel(&self, session_id: &str);
    async fn set_mode(&self, session_id: &str, mode_id: &str) -> Result<(), AgentError>;
    async fn set_config_option(
        &self,
        session_id: &str,
        config_id: &str,
        value: &str,
    ) -> Result<Vec<ConfigOption>, AgentError>;
    /// The editor went away: end every session and its claude.
    async fn shutdown(&self);
}
