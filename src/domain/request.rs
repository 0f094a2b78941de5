//! What the editor asks of the adapter, and what the adapter answers, in the adapter's own terms.

use std::path::PathBuf;

use serde_json::Value;

use super::{ConfigOption, ModeState, RateLimits, ToolCallUpdate};

/// One block of a prompt, as the editor sent it.
#[derive(Debug, Clone, PartialEq)]
pub enum PromptBlock {
    Text(String),
    Image {
        data: String,
        mime_type: String,
        uri: Option<String>,
    },
    /// A link to a file or resource the agent may read itself.
    ResourceLink {
        uri: String,
        name: String,
    },
    /// A resource whose text the editor embedded.
    EmbeddedText {
        uri: String,
        text: String,
        mime_type: Option<String>,
    },
    /// A resource whose bytes the editor embedded (base64).
    EmbeddedBlob {
        uri: String,
        blob: String,
        mime_type: Option<String>,
    },
}

/// An MCP server the editor wants claude to reach.
#[derive(Debug, Clone, PartialEq)]
pub enum McpServer {
    Stdio {
        name: String,
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    Http {
        name: String,
        url: String,
        headers: Vec<(String, String)>,
    },
    Sse {
        name: String,
        url: String,
        headers: Vec<(String, String)>,
    },
    /// A server that lives in the editor, reached over ACP itself (`mcp/message`): claude-acp
    /// serves it to claude over claude's control channel, as it serves the editor tools.
    Acp { name: String, server_id: String },
}

impl McpServer {
    /// Whether claude reaches it through claude-acp (not through `--mcp-config`).
    pub fn is_acp(&self) -> bool {
        matches!(self, McpServer::Acp { .. })
    }

    pub fn name(&self) -> &str {
        match self {
            McpServer::Stdio { name, .. }
            | McpServer::Http { name, .. }
            | McpServer::Sse { name, .. }
            | McpServer::Acp { name, .. } => name,
        }
    }
}

/// `session/new` (and the shared part of load and resume).
#[derive(Debug, Default)]
pub struct NewSession {
    pub cwd: PathBuf,
    /// The workspace's other roots (`additionalDirectories`), absolute.
    pub additional_directories: Vec<PathBuf>,
    pub mcp_servers: Vec<McpServer>,
    /// `_meta` of the request, for client-specific claude options.
    pub meta: Option<Value>,
    /// The request's `systemPrompt`: instructions added to claude's own, or replacing them.
    pub system_prompt: Option<SystemPrompt>,
    /// Resolves once the request's answer is queued to the editor (where the transport tells).
    pub answered: Option<AnswerWritten>,
    /// `session/fork`'s `cursorId` (ACP 1.20): the point the fork starts from, else the end.
    pub fork_at: Option<String>,
}

/// Instructions the editor gives the session's model (`systemPrompt` of `session/new`, load,
/// resume, fork).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemPrompt {
    pub text: String,
    /// Replaces claude's own system prompt (ACP's `override`); else it is appended to it.
    pub replace: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SessionOpened {
    pub session_id: String,
    pub modes: Option<ModeState>,
    pub config_options: Vec<ConfigOption>,
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndTurn,
    MaxTokens,
    MaxTurnRequests,
    Refusal,
    Cancelled,
}

/// How a turn ended, the tokens it took where claude said, and the subscription's limits as
/// claude last reported them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TurnOutcome {
    pub stop_reason: StopReason,
    pub usage: Option<TurnUsage>,
    pub rate_limits: RateLimits,
}

/// What a steer does when no turn runs (`_meta.steering.idleBehavior`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdleBehavior {
    /// Starts a turn of its own, as a prompt would (the default).
    StartNewTurn,
    /// Starts nothing: the editor sends it as a `session/prompt` instead.
    PromptRequired,
}

/// What became of a steer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SteerOutcome {
    /// Written into the running turn, which still ends once.
    Injected,
    /// No turn ran, and the editor asked to be told rather than have one started.
    PromptRequired,
    /// No turn ran: it started one, answered to no `session/prompt`.
    StartedNewTurn,
}

/// Resolves once a `session/prompt`'s answer is queued to the editor (or never can be): the
/// session holds the next turn's output until then, so the editor sees each answer before
/// what claude does for the next prompt.
pub type AnswerWritten = tokio::sync::oneshot::Receiver<()>;

/// Told the id of the user message a prompt became, once it is in the conversation (it became
/// the session's turn, or claude ran it within another's); dropped unsent if it never was (a
/// cancel ended it while it waited, or it was refused).
pub type Inserted = tokio::sync::oneshot::Sender<String>;

impl From<StopReason> for TurnOutcome {
    fn from(stop_reason: StopReason) -> Self {
        TurnOutcome {
            stop_reason,
            usage: None,
            rate_limits: RateLimits::default(),
        }
    }
}

/// The tokens of one turn, from claude's `result` (all of the turn's API requests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnUsage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub thinking: Option<u64>,
}

impl TurnUsage {
    pub fn total(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write
    }
}

/// One entry of `session/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    pub session_id: String,
    pub cwd: PathBuf,
    /// The session's other roots, where known (sessions open in this adapter).
    pub additional_directories: Vec<PathBuf>,
    pub title: Option<String>,
    /// RFC 3339.
    pub updated_at: Option<String>,
    /// Archived (`session/archive`): listed only when the listing asks for archived ones.
    pub archived: bool,
}

/// Which sessions `session/list` gives by their archive state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArchiveFilter {
    /// Only those not archived.
    #[default]
    Exclude,
    /// All of them.
    Include,
    /// Only the archived ones.
    Only,
}

impl ArchiveFilter {
    pub fn admits(self, archived: bool) -> bool {
        match self {
            ArchiveFilter::Exclude => !archived,
            ArchiveFilter::Include => true,
            ArchiveFilter::Only => archived,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct SessionPage {
    pub sessions: Vec<SessionSummary>,
    pub next_cursor: Option<String>,
}

/// The kinds of option a permission prompt can offer (ACP's `PermissionOptionKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PermissionOptionKind {
    AllowOnce,
    AllowAlways,
    RejectOnce,
    RejectAlways,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PermissionOption {
    pub id: String,
    pub name: String,
    pub kind: PermissionOptionKind,
}

/// A `session/request_permission` to put before the user.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PermissionAsk {
    pub session_id: String,
    pub tool_call: ToolCallUpdate,
    pub options: Vec<PermissionOption>,
    /// Why claude asks (its `decision_reason`), where it says: shown where the editor's prompt
    /// has room for it (ACP v2's `description`).
    pub reason: Option<String>,
}

/// The editor's answer to a permission ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionOutcome {
    Selected { option_id: String },
    Cancelled,
}
