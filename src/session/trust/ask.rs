//! The one question to the user: trust this workspace, seeing what its settings would run? A
//! `session/request_permission` on a tool call of claude-acp's own (kind `other`), the ask every
//! editor renders. Anything but a clear "trust" (a rejection, a cancel, an error) keeps the
//! workspace untrusted.

use std::path::Path;

use crate::domain::{
    EditorClient, PermissionOption, PermissionOptionKind, SessionUpdate, ToolCallUpdate,
    ToolContent, ToolStatus,
};
use crate::session::own_question::{self, Question};

/// The option that trusts the workspace.
pub(crate) const TRUST: &str = "trust";
/// The option that keeps it untrusted.
pub(crate) const NOT_NOW: &str = "not-now";

/// What the user reads: the workspace `cwd`, each thing its settings would run (`shown`), and what
/// answering does.
pub(crate) fn question(cwd: &Path, shown: &[String]) -> String {
    let mut text = format!(
        "This workspace's own settings run code, or send your requests elsewhere, as soon as \
         claude starts in {}:\n",
        cwd.display()
    );
    for line in shown {
        text.push_str(&format!("- {line}\n"));
    }
    text.push_str(
        "Until you trust it, claude runs here with your own settings only (the project's deny \
         and ask rules still apply). Trusting it restarts claude with the project's settings, \
         and is kept for claude's terminal too.",
    );
    text
}

/// The user's answer, and the ask's tool call to settle once it is carried out.
pub(crate) struct Answer {
    /// True only when the user chose to trust the workspace.
    pub(crate) trusted: bool,
    tool_call_id: String,
    text: String,
}

/// Asks the user on `session_id`'s behalf ([`question`]).
pub(crate) async fn ask(
    editor: &dyn EditorClient,
    session_id: &str,
    cwd: &Path,
    shown: &[String],
) -> Answer {
    let id = format!("workspace-trust-{}", uuid::Uuid::new_v4().simple());
    let text = question(cwd, shown);
    let trusted = own_question::ask(
        editor,
        Question {
            session: session_id,
            id: &id,
            title: "Trust this workspace?".into(),
            text: text.clone(),
            yes: PermissionOption {
                id: TRUST.into(),
                name: "Trust this workspace".into(),
                kind: PermissionOptionKind::AllowAlways,
            },
            no: PermissionOption {
                id: NOT_NOW.into(),
                name: "Not now".into(),
                kind: PermissionOptionKind::RejectOnce,
            },
        },
    )
    .await;
    Answer {
        trusted,
        tool_call_id: id,
        text,
    }
}

impl Answer {
    /// Ends the ask's tool call, saying what the answer did: called once it is in force (the
    /// session's next claude loads the project's settings), so what the editor shows is so.
    pub(crate) fn settle(self, editor: &dyn EditorClient, session_id: &str) {
        let (status, after) = match self.trusted {
            true => (
                ToolStatus::Completed,
                "Trusted: claude restarts with the project's settings.",
            ),
            false => (
                ToolStatus::Failed,
                "Not trusted: claude keeps running with your own settings only.",
            ),
        };
        editor.session_update(
            session_id,
            SessionUpdate::ToolCallUpdate(ToolCallUpdate {
                id: self.tool_call_id,
                status: Some(status),
                content: Some(vec![ToolContent::Text {
                    text: format!("{}\n\n{after}", self.text),
                }]),
                ..ToolCallUpdate::default()
            }),
        );
    }
}
