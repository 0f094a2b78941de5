//! An MCP server's question to the user (claude's `elicitation` control request: a form to fill
//! in, or a page to open) asked as the editor's `elicitation/create`, and the answer passed back
//! to claude for the server. Like a permission ask it waits on the user in a task of its own, with
//! no time limit; it ends with the user's answer, a cancel (the server hears `cancel`), claude
//! withdrawing it, or the session's end. An editor that cannot show it gets a notice saying why,
//! and the server hears no.

use tokio::task::JoinHandle;

use super::super::ctx::{SessionContext, deliver};
use crate::claude::ClaudeHandle;
use crate::claude::wire::{ElicitationAnswer, ElicitationAsk};
use crate::domain::{McpElicitation, McpElicitationAnswer, McpElicitationMode, SessionUpdate};
use crate::translate;

/// Asks the editor claude's `ask` in a task (returned), which answers claude and then calls
/// `done`; an ask the editor cannot show is declined at once (no task).
pub(super) fn ask(
    ctx: &SessionContext,
    request_id: &str,
    handle: ClaudeHandle,
    ask: ElicitationAsk,
    done: impl FnOnce() + Send + 'static,
) -> Option<JoinHandle<()>> {
    let editor = ctx.editor.clone();
    let session_id = ctx.id.clone();
    let server = ask.mcp_server_name.clone();
    let request = match elicitation(&session_id, ask) {
        Ok(request) => request,
        Err(why) => {
            tracing::info!(session = %session_id, server = %server, "MCP elicitation declined: {why}");
            let notice = translate::elicitation_declined(&server, why);
            editor.session_update(&session_id, SessionUpdate::Notice(notice));
            deliver(handle.respond_success(request_id, ElicitationAnswer::Decline.to_value()));
            return None;
        }
    };
    let shown = match &request.mode {
        McpElicitationMode::Form { .. } => editor.supports_elicitation(),
        McpElicitationMode::Url { .. } => editor.supports_url_elicitation(),
    };
    if !shown {
        let why = match &request.mode {
            McpElicitationMode::Form { .. } => {
                "This editor cannot show MCP forms (it did not declare `elicitation.form`)."
            }
            McpElicitationMode::Url { .. } => {
                "This editor cannot open MCP pages (it did not declare `elicitation.url`)."
            }
        };
        let notice = translate::elicitation_declined(&server, why.to_owned());
        editor.session_update(&session_id, SessionUpdate::Notice(notice));
        deliver(handle.respond_success(request_id, ElicitationAnswer::Decline.to_value()));
        return None;
    }
    let rid = request_id.to_owned();
    Some(tokio::spawn(async move {
        let answer = match editor.elicit_mcp(request).await {
            Ok(answer) => wire_answer(answer),
            Err(e) => {
                // Fail closed: the server hears no, and the user why.
                let why = format!("The editor could not show it: {e}.");
                let notice = translate::elicitation_declined(&server, why);
                editor.session_update(&session_id, SessionUpdate::Notice(notice));
                ElicitationAnswer::Decline
            }
        };
        let _ = handle.respond_success(&rid, answer.to_value()).await;
        done();
    }))
}

/// claude's ask as the editor's request; `Err`: why it cannot be asked at all.
fn elicitation(session_id: &str, mut ask: ElicitationAsk) -> Result<McpElicitation, String> {
    let mode = if ask.is_url() {
        let url = ask
            .url
            .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
            .ok_or("It asked to open a page without giving an http(s) address.")?;
        McpElicitationMode::Url {
            url,
            elicitation_id: ask.elicitation_id.unwrap_or_default(),
        }
    } else {
        McpElicitationMode::Form {
            schema: ask.schema(),
        }
    };
    Ok(McpElicitation {
        session_id: session_id.to_owned(),
        server: ask.mcp_server_name,
        message: ask.message,
        mode,
    })
}

fn wire_answer(answer: McpElicitationAnswer) -> ElicitationAnswer {
    match answer {
        McpElicitationAnswer::Accept(content) => ElicitationAnswer::Accept { content },
        McpElicitationAnswer::Decline => ElicitationAnswer::Decline,
        McpElicitationAnswer::Cancel => ElicitationAnswer::Cancel,
    }
}
