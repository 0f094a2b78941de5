//! What the session side may ask of the editor: notifications and requests the adapter sends.

use std::path::{Path, PathBuf};

use async_trait::async_trait;

use super::{PermissionAsk, PermissionOutcome, SessionUpdate, TurnState};

/// A failure to get an answer from the editor.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum EditorError {
    #[error("the editor answered with an error: {0}")]
    Rejected(String),
    #[error("the editor's answer could not be read: {0}")]
    Malformed(String),
    #[error("the connection to the editor is closed")]
    Closed,
    #[error("the editor does not support {0}")]
    Unsupported(&'static str),
}

/// One field of a form (`elicitation/create`): a single or multiple choice among labels.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationField {
    pub key: String,
    pub title: String,
    pub description: Option<String>,
    pub options: Vec<(String, Option<String>)>,
    pub multiple: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationRequest {
    pub session_id: String,
    /// The tool call the form belongs to (AskUserQuestion's tool use), if any.
    pub tool_call_id: Option<String>,
    pub message: String,
    pub fields: Vec<ElicitationField>,
}

/// An MCP server's question to the user, passed on by claude (`elicitation/create`).
#[derive(Debug, Clone, PartialEq)]
pub struct McpElicitation {
    pub session_id: String,
    /// The server's configured name, for the user to know who asks.
    pub server: String,
    pub message: String,
    pub mode: McpElicitationMode,
}

#[derive(Debug, Clone, PartialEq)]
pub enum McpElicitationMode {
    /// A form of the server's own schema (MCP's: an object of primitive properties).
    Form { schema: serde_json::Value },
    /// A page for the user to open (a sign-in, a payment), named by the server's id for it.
    Url { url: String, elicitation_id: String },
}

/// The user's answer to an MCP server's question.
#[derive(Debug, Clone, PartialEq)]
pub enum McpElicitationAnswer {
    /// Filled in (the form's values) or done (a page: no values).
    Accept(Option<serde_json::Map<String, serde_json::Value>>),
    Decline,
    Cancel,
}

/// A command to run in an editor terminal (`terminal/create`).
#[derive(Debug, Clone, PartialEq)]
pub struct TerminalCommand {
    pub command: String,
    pub args: Vec<String>,
    /// Variables set for the command on top of the editor's environment.
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
    /// The most output the editor keeps (it drops the oldest beyond it).
    pub output_byte_limit: u64,
}

/// How a terminal's command ended: its exit code, or the signal that ended it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TerminalExit {
    pub code: Option<u32>,
    pub signal: Option<String>,
}

/// A terminal's output so far (`terminal/output`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TerminalOutput {
    pub output: String,
    /// The editor dropped the oldest output to stay within the byte limit.
    pub truncated: bool,
    /// Set once the command has ended.
    pub exit: Option<TerminalExit>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ElicitationOutcome {
    /// Field key -> the chosen labels.
    Accepted(Vec<(String, Vec<String>)>),
    Declined,
    Cancelled,
}

/// The editor as the session side sees it. `crate::acp` implements it over our transport; tests
/// use the one test double, `crate::testing::TestEditor`.
#[async_trait]
pub trait EditorClient: Send + Sync + 'static {
    /// Sends a `session/update` notification. Never blocks on the editor.
    fn session_update(&self, session_id: &str, update: SessionUpdate);

    /// Tells where the session's foreground work stands, in order with its updates. Editors
    /// that learn it from the prompt's answer alone (ACP v1) ignore it.
    fn turn_state(&self, _session_id: &str, _state: TurnState) {}

    /// Whether the editor follows [`Self::turn_state`] (so the session tells it at all).
    fn follows_turns(&self) -> bool {
        false
    }

    /// The replay of a stored thread is over (ACP v2's `replay_complete`, which v1 has not).
    fn replay_complete(&self, _session_id: &str) {}

    /// Resolves when the editor has taken enough of what was sent that more may follow. Sessions
    /// wait on it before reading claude's next message: an editor that stops reading then stops
    /// claude (through its stdout pipe) instead of growing the adapter.
    async fn room_for_updates(&self) {}

    /// [`Self::room_for_updates`] for a replay of stored history, which has everything at hand
    /// and no claude to slow down: resolves only once little is left for the editor to read, so
    /// a replay holds a few lines, not the queue's whole budget.
    async fn room_for_replay(&self) {
        self.room_for_updates().await;
    }

    /// Asks the user to allow or reject a tool call.
    async fn request_permission(
        &self,
        ask: PermissionAsk,
    ) -> Result<PermissionOutcome, EditorError>;

    /// Tells the editor the login in use changed (not tied to a session).
    fn auth_status(&self, _status: &super::AuthStatusInfo) {}

    /// Whether the editor declared `session.promptSuggestions` (schema 1.20): claude is asked for
    /// the prompts the user may send next, and they go to the editor after each turn.
    fn supports_prompt_suggestions(&self) -> bool {
        false
    }

    /// Whether the editor declared `session.commands.skill` (schema 1.20, v2): claude's skills
    /// are listed as skills, apart from its commands.
    fn supports_skill_commands(&self) -> bool {
        false
    }

    /// Whether the editor takes session cursors (schema 1.20's `cursor_update`: a v1 editor that
    /// declared `session.cursors`, every v2 editor), so the session announces them at all.
    fn supports_cursors(&self) -> bool {
        false
    }

    /// Whether the editor knows schema 1.20's `speed` config category (Fast mode's; else Fast
    /// mode is a `model_config` option, as before 1.20).
    fn knows_speed_category(&self) -> bool {
        false
    }

    /// Whether the editor declared `session.notices` (else notices are told as agent lines).
    fn supports_notices(&self) -> bool {
        false
    }

    /// Whether the editor declared `session.compaction` (else compactions are told as text).
    fn supports_compaction(&self) -> bool {
        false
    }

    /// Whether the editor declared ACP's `subagents`: a subagent's own output goes to its child
    /// session, and claude is asked to forward it.
    fn supports_subagents(&self) -> bool {
        false
    }

    /// Whether the editor declared boolean config options (`session.configOptions.boolean`).
    fn supports_boolean_options(&self) -> bool {
        false
    }

    /// Whether the editor declared form elicitation.
    fn supports_elicitation(&self) -> bool {
        false
    }

    /// Shows a form (`elicitation/create`).
    async fn elicit(
        &self,
        _request: ElicitationRequest,
    ) -> Result<ElicitationOutcome, EditorError> {
        Err(EditorError::Unsupported("elicitation"))
    }

    /// Whether the editor declared URL elicitation (`elicitation.url`).
    fn supports_url_elicitation(&self) -> bool {
        false
    }

    /// Asks the user an MCP server's question (`elicitation/create`, form or URL mode).
    async fn elicit_mcp(
        &self,
        _request: McpElicitation,
    ) -> Result<McpElicitationAnswer, EditorError> {
        Err(EditorError::Unsupported("elicitation"))
    }

    /// Whether the editor declared both `fs.readTextFile` and `fs.writeTextFile`.
    fn supports_text_files(&self) -> bool {
        false
    }

    /// Whether the editor asks its user before it carries out `fs/write_text_file` and
    /// `terminal/create` (acpx does by default), so that an edit or a command the user allowed in
    /// the permission prompt would be asked twice.
    fn confirms_itself(&self) -> bool {
        false
    }

    /// The text of a file as the editor has it (`fs/read_text_file`), unsaved changes included.
    async fn read_text_file(&self, _session_id: &str, _path: &Path) -> Result<String, EditorError> {
        Err(EditorError::Unsupported("fs/read_text_file"))
    }

    /// Hands the new text of a file to the editor (`fs/write_text_file`).
    async fn write_text_file(
        &self,
        _session_id: &str,
        _path: &Path,
        _content: String,
    ) -> Result<(), EditorError> {
        Err(EditorError::Unsupported("fs/write_text_file"))
    }

    /// Whether the editor declared `terminal`.
    fn supports_terminal(&self) -> bool {
        false
    }

    /// Starts a command in a new editor terminal (`terminal/create`); returns its id.
    async fn create_terminal(
        &self,
        _session_id: &str,
        _command: TerminalCommand,
    ) -> Result<String, EditorError> {
        Err(EditorError::Unsupported("terminal/create"))
    }

    /// The terminal's output so far, and its exit once ended (`terminal/output`).
    async fn terminal_output(
        &self,
        _session_id: &str,
        _terminal_id: &str,
    ) -> Result<TerminalOutput, EditorError> {
        Err(EditorError::Unsupported("terminal/output"))
    }

    /// Resolves when the terminal's command has ended (`terminal/wait_for_exit`).
    async fn wait_for_terminal_exit(
        &self,
        _session_id: &str,
        _terminal_id: &str,
    ) -> Result<TerminalExit, EditorError> {
        Err(EditorError::Unsupported("terminal/wait_for_exit"))
    }

    /// Kills the terminal's command; the terminal stays until released (`terminal/kill`).
    async fn kill_terminal(
        &self,
        _session_id: &str,
        _terminal_id: &str,
    ) -> Result<(), EditorError> {
        Err(EditorError::Unsupported("terminal/kill"))
    }

    /// Kills the command if still running and frees the terminal (`terminal/release`).
    async fn release_terminal(
        &self,
        _session_id: &str,
        _terminal_id: &str,
    ) -> Result<(), EditorError> {
        Err(EditorError::Unsupported("terminal/release"))
    }

    /// One MCP request to a server the editor hosts (`mcp/message`); the server's notifications
    /// for it, while it is active, go to `notifications`. Dropping the future withdraws it.
    async fn mcp_message(
        &self,
        _request: McpRelayRequest,
        _notifications: tokio::sync::mpsc::Sender<McpRelayNotification>,
    ) -> Result<McpRelayOutcome, EditorError> {
        Err(EditorError::Unsupported("mcp/message"))
    }
}

/// One MCP request to an MCP server the editor hosts (the `params` of `mcp/message`).
#[derive(Debug, Clone, PartialEq)]
pub struct McpRelayRequest {
    pub server_id: String,
    /// The inner request's id: made by claude-acp, unique among those active on the connection.
    pub request_id: String,
    pub method: String,
    pub params: Option<serde_json::Map<String, serde_json::Value>>,
}

/// What the editor's server answered one request: its result, or its MCP error (`code`,
/// `message`, `data`, as it wrote them).
#[derive(Debug, Clone, PartialEq)]
pub enum McpRelayOutcome {
    Result(serde_json::Value),
    Error(serde_json::Value),
}

/// An MCP notification the editor's server sent while one of its requests was active.
#[derive(Debug, Clone, PartialEq)]
pub struct McpRelayNotification {
    pub method: String,
    pub params: Option<serde_json::Map<String, serde_json::Value>>,
}
