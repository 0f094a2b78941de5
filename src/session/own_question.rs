//! A question of claude-acp's own to the user (trust this workspace? send the prompt again when
//! the usage limit resets?): a tool call of kind `other`, asked through `session/request_permission`,
//! the ask every editor renders. Only the `yes` option counts as yes: a rejection, a cancel or a
//! failed ask is no, so every such question fails closed.

use crate::domain::{
    EditorClient, PermissionAsk, PermissionOption, PermissionOutcome, SessionUpdate, ToolCall,
    ToolCallUpdate, ToolContent, ToolKind, ToolStatus,
};

pub(crate) struct Question<'a> {
    pub(crate) session: &'a str,
    /// The tool call's id, which the asker then ends with what the answer did.
    pub(crate) id: &'a str,
    pub(crate) title: String,
    pub(crate) text: String,
    pub(crate) yes: PermissionOption,
    pub(crate) no: PermissionOption,
}

/// Shows the question as a pending tool call and asks it; true only if the user chose `yes`.
pub(crate) async fn ask(editor: &dyn EditorClient, question: Question<'_>) -> bool {
    let Question {
        session,
        id,
        title,
        text,
        yes,
        no,
    } = question;
    let content = vec![ToolContent::Text { text }];
    editor.session_update(
        session,
        SessionUpdate::ToolCall(ToolCall {
            id: id.to_owned(),
            title: title.clone(),
            kind: ToolKind::Other,
            status: ToolStatus::Pending,
            locations: vec![],
            content: content.clone(),
            raw_input: None,
            parent_tool_call: None,
        }),
    );
    let yes_id = yes.id.clone();
    let ask = PermissionAsk {
        session_id: session.to_owned(),
        tool_call: ToolCallUpdate {
            id: id.to_owned(),
            title: Some(title),
            kind: Some(ToolKind::Other),
            content: Some(content),
            ..ToolCallUpdate::default()
        },
        options: vec![yes, no],
        reason: None,
    };
    match editor.request_permission(ask).await {
        Ok(PermissionOutcome::Selected { option_id }) => option_id == yes_id,
        Ok(PermissionOutcome::Cancelled) => false,
        Err(e) => {
            tracing::info!(session = %session, "claude-acp's question {id} was not answered: {e}");
            false
        }
    }
}
