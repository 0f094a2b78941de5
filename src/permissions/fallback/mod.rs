//! How claude's permission asks reach us, and the switch from claude's stdio permission channel
//! to our MCP permission tool when that channel breaks mid-session (`--permission-transport auto`):
//! the break noticed ([`detector`]), the MCP server and its `--mcp-config` ([`mcp_path`]), and
//! what the session does about a break: one line to the user, claude restarted on MCP with the
//! conversation intact, and the turn kept by asking claude to retry what was denied.
//!
//! The MCP permission path is public and stable: an MCP server of our own that claude calls for
//! every permission ask (`--permission-prompt-tool mcp__claude-acp__permission`):
//! [`mcp_server`] is the token-guarded streamable-HTTP server, [`mcp_tool`] its one tool, and
//! [`suggestions`] rebuilds the "always allow" suggestions claude gives only on stdio.

pub(crate) mod detector;
mod mcp_path;
mod mcp_server;
mod mcp_tool;
mod suggestions;

use crate::claude::wire::{ClaudeMessage, McpConfigFile};
use crate::domain::{McpServer, PromptBlock};

use super::PermissionTransport;
use super::asker::PermissionAsker;
pub use detector::{BreakDetector, BreakKind, BreakSymptom};
use mcp_path::McpPath;
pub use mcp_server::{McpError, PermissionServer};
pub use mcp_tool::{BoxFuture, PermissionCall, PermissionCallback};

/// The permission path of one session, with what each way needs.
pub(crate) enum PermissionPath {
    /// claude asks over stdio (`can_use_tool`); nothing watches the channel.
    Stdio,
    /// claude asks over stdio, and the detector watches for a broken channel. A break seen in
    /// the turn is kept until the turn ends, then the session switches to MCP.
    Watched {
        detector: Box<BreakDetector>,
        seen: Option<BreakSymptom>,
    },
    /// claude asks our MCP permission tool; the server starts with the first claude.
    Mcp(Option<McpPath>),
}

impl PermissionPath {
    pub(crate) fn new(transport: PermissionTransport) -> Self {
        match transport {
            PermissionTransport::Auto => Self::Watched {
                detector: Box::new(BreakDetector::new()),
                seen: None,
            },
            PermissionTransport::Stdio => Self::Stdio,
            PermissionTransport::Mcp => Self::Mcp(None),
        }
    }

    /// The `--permission-prompt-tool` and `--mcp-config` arguments for a spawn of claude, and the
    /// config file they name (kept alive as long as that claude may read it).
    pub(crate) fn claude_args(
        &mut self,
        asker: &PermissionAsker,
        editor_servers: &[McpServer],
    ) -> Result<(Vec<String>, Option<McpConfigFile>), String> {
        if let Self::Mcp(server @ None) = self {
            *server = Some(McpPath::start(asker.clone())?);
        }
        let server = match self {
            Self::Mcp(server) => server.as_ref(),
            _ => None,
        };
        mcp_path::claude_args(editor_servers, server)
    }

    /// A new turn: no break seen in it yet.
    pub(crate) fn turn_started(&mut self) {
        if let Self::Watched { seen, .. } = self {
            *seen = None;
        }
    }

    /// claude asked over stdio for this tool call (so its denial is not a break).
    pub(crate) fn saw_can_use_tool(&mut self, tool_use_id: &str) {
        if let Self::Watched { detector, .. } = self {
            detector.saw_can_use_tool(tool_use_id);
        }
    }

    /// Feeds one message of claude's, during a turn, to the detector; the first break is kept.
    pub(crate) fn watch(&mut self, session: &str, message: &ClaudeMessage) {
        if let Self::Watched {
            detector,
            seen: seen @ None,
        } = self
            && let Some(symptom) = detector.on_message(message)
        {
            tracing::info!(session = %session, "{symptom}");
            *seen = Some(symptom);
        }
    }

    /// The break seen in this turn, if any; from now on claude asks over MCP.
    pub(crate) fn take_break(&mut self) -> Option<BreakSymptom> {
        let Self::Watched { seen, .. } = self else {
            return None;
        };
        let symptom = seen.take()?;
        *self = Self::Mcp(None);
        Some(symptom)
    }

    /// Same, when claude exited during a turn: its last words on stderr may name the break.
    pub(crate) fn take_break_on_exit(
        &mut self,
        session: &str,
        stderr_tail: &str,
    ) -> Option<BreakSymptom> {
        if let Self::Watched { seen, .. } = self
            && seen.is_none()
        {
            *seen = BreakDetector::on_exit(stderr_tail);
        }
        let symptom = self.take_break()?;
        tracing::info!(session = %session, "{symptom}");
        Some(symptom)
    }

    /// Stops the MCP permission server, if one runs (the session is closing).
    pub(crate) fn stop(&mut self) {
        if let Self::Mcp(server) = self {
            *server = None;
        }
    }
}

/// The line the user reads in the thread when the session switches.
pub(crate) fn switch_notice(symptom: &BreakSymptom) -> String {
    format!("\n\n[claude-acp] {}.\n\n", symptom.description())
}

/// What claude is sent after the switch: a request to retry the call that was denied without
/// asking, or, when nothing was denied yet (claude refused the flag), the prompt itself again,
/// which it never read.
pub(crate) fn retry_prompt(symptom: &BreakSymptom, prompt: &[PromptBlock]) -> Vec<PromptBlock> {
    match retry_text(symptom) {
        Some(text) => vec![PromptBlock::Text(text)],
        None => prompt.to_vec(),
    }
}

/// What claude is told after the switch, naming the call that was denied without asking.
fn retry_text(symptom: &BreakSymptom) -> Option<String> {
    let tool = symptom.tool_name.as_deref()?;
    let input = symptom
        .tool_input
        .as_ref()
        .map(|i| format!(" with input {i}"))
        .unwrap_or_default();
    Some(format!(
        "[claude-acp] Your {tool} call{input} was denied automatically because permission prompts \
         were not reaching the user. That is fixed now: the user will be asked. Please retry it, \
         then continue with the task."
    ))
}
