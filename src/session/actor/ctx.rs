//! What every part of the session shares: what the session is and talks to, how an answer to
//! the editor is sent, and how a part's own tasks report back to the session's loop.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;

use crate::domain::{AgentError, EditorClient, McpServer, SessionUpdate};
use crate::session::config::AdapterConfig;
use crate::session::spawn::SessionFlags;

/// How long a control request to claude may take.
pub(super) const CONTROL_TIMEOUT: Duration = Duration::from_secs(10);

pub(crate) type Reply<T> = oneshot::Sender<Result<T, AgentError>>;

/// What the session is and talks to: fixed when it opens, except claude's flags, which follow
/// the settings so a restarted claude starts with them.
pub(super) struct SessionContext {
    pub(super) id: String,
    pub(super) cwd: PathBuf,
    pub(super) config: Arc<AdapterConfig>,
    pub(super) editor: Arc<dyn EditorClient>,
    /// claude's command-line flags (`--model`, `--effort`, `--permission-mode` kept current).
    pub(super) flags: SessionFlags,
    /// The editor's MCP servers, passed to claude in `--mcp-config`.
    pub(super) editor_servers: Vec<McpServer>,
    /// While the workspace is not trusted, claude starts without its project's settings.
    pub(super) untrusted: Option<crate::session::trust::Untrusted>,
}

impl SessionContext {
    /// Tells the editor something about this session.
    pub(super) fn tell_editor(&self, update: SessionUpdate) {
        self.editor.session_update(&self.id, update);
    }
}

/// How a part's tasks report to the session's loop: what they send arrives there in the order
/// sent, among every other part's reports (one channel), and is handed back to the part.
pub(super) struct Tell<T>(Arc<dyn Fn(T) + Send + Sync>);

impl<T> Clone for Tell<T> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T> Tell<T> {
    pub(super) fn new(send: impl Fn(T) + Send + Sync + 'static) -> Self {
        Self(Arc::new(send))
    }

    /// Reports `what`; dropped when the session is gone.
    pub(super) fn tell(&self, what: T) {
        (self.0)(what);
    }
}

/// Lets a line already queued for claude finish writing in the background.
pub(super) fn deliver(
    sent: impl Future<Output = Result<(), crate::claude::ClaudeError>> + Send + 'static,
) {
    tokio::spawn(async move {
        if let Err(e) = sent.await {
            tracing::debug!("control reply not delivered: {e}");
        }
    });
}
