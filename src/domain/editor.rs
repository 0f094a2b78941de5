//! What the session side may ask of the editor: notifications and requests the adapter sends.

use std::path::Path;

use async_trait::async_trait;

use super::{PermissionAsk, PermissionOutcome, SessionUpdate};

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

#[derive(Debug, Clone, PartialEq)]
pub enum ElicitationOutcome {
    /// Field key -> the chosen labels.
    Accepted(Vec<(String, Vec<String>)>),
    Declined,
    Cancelled,
}

/// The editor as the session side sees it. `crate::acp` implements it over the SDK connection;
/// tests implement it with a recording stub.
#[async_trait]
pub trait EditorClient: Send + Sync + 'static {
    /// Sends a `session/update` notification. Never blocks on the editor.
    fn session_update(&self, session_id: &str, update: SessionUpdate);

    /// Resolves when the editor has taken enough of what was sent that more may follow. Sessions
    /// wait on it before reading claude's next message: an editor that stops reading then stops
    /// claude (through its stdout pipe) instead of growing the adapter.
    async fn room_for_updates(&self) {}

    /// Asks the user to allow or reject a tool call.
    async fn request_permission(
        &self,
        ask: PermissionAsk,
    ) -> Result<PermissionOutcome, EditorError>;

    /// Whether the editor declared `session.compaction` (else compactions are told as text).
    fn supports_compaction(&self) -> bool {
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

    /// Whether the editor declared both `fs.readTextFile` and `fs.writeTextFile`.
    fn supports_text_files(&self) -> bool {
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
}
