//! The ACP agent on stdio: one handler per method, each handing its work to a task so the SDK's
//! dispatch loop never waits on claude or on the editor.

use std::future::Future;
use std::sync::Arc;

use agent_client_protocol::v1::{Responder, schema as acp};
use agent_client_protocol::{
    Agent, Error, JsonRpcResponse, Stdio, on_receive_notification, on_receive_request,
};

use super::client::AcpEditor;
use super::errors::to_rpc;
use super::{from_proto, to_proto};
use crate::domain::{AgentCore, AgentError, SessionOpened};

/// Answers `responder` with what `work` yields, from a task of its own.
fn reply_later<T, F>(responder: Responder<T>, work: F)
where
    T: JsonRpcResponse + Send + 'static,
    F: Future<Output = Result<T, AgentError>> + Send + 'static,
{
    tokio::spawn(async move {
        let result = work.await.map_err(to_rpc);
        if let Err(e) = responder.respond_with_result(result) {
            tracing::debug!("response not sent: {e}");
        }
    });
}

fn new_session_response(opened: SessionOpened) -> acp::NewSessionResponse {
    acp::NewSessionResponse::new(opened.session_id)
        .modes(opened.modes.map(to_proto::modes))
        .config_options(
            Some(to_proto::config_options(opened.config_options)).filter(|o| !o.is_empty()),
        )
}

fn initialize_response(
    core: &dyn AgentCore,
    req: &acp::InitializeRequest,
) -> acp::InitializeResponse {
    let f = core.features();
    let mut session = acp::SessionCapabilities::new();
    if f.list_sessions {
        session = session.list(acp::SessionListCapabilities::new());
    }
    if f.resume_session {
        session.resume = Some(acp::SessionResumeCapabilities::new());
    }
    if f.close_session {
        session.close = Some(acp::SessionCloseCapabilities::new());
    }
    if f.fork_session {
        session.fork = Some(acp::SessionForkCapabilities::new());
    }
    let caps = acp::AgentCapabilities::new()
        .load_session(f.load_session)
        .prompt_capabilities(
            acp::PromptCapabilities::new()
                .image(true)
                .embedded_context(true),
        )
        .mcp_capabilities(acp::McpCapabilities::new().http(f.mcp_http).sse(f.mcp_sse))
        .session_capabilities(session);
    let auth_methods = f
        .auth_methods
        .into_iter()
        .map(|(id, name, description)| {
            acp::AuthMethod::Terminal(
                acp::AuthMethodTerminal::new(id, name)
                    .description(description)
                    .args(vec!["login".into()]),
            )
        })
        .collect();
    // ACP v1 is the only version spoken; a client asking for another gets v1 and decides.
    let _ = req;
    acp::InitializeResponse::new(agent_client_protocol::schema::ProtocolVersion::V1)
        .agent_capabilities(caps)
        .agent_info(
            acp::Implementation::new("claude-acp", env!("CARGO_PKG_VERSION"))
                .title("Claude Code (claude-acp)"),
        )
        .auth_methods(auth_methods)
}

/// Serves ACP on this process's stdin/stdout until the editor closes stdin.
pub async fn serve_stdio(core: Arc<dyn AgentCore>, editor: Arc<AcpEditor>) -> Result<(), Error> {
    let c = || core.clone();
    let e = || editor.clone();
    Agent
        .v1()
        .name("claude-acp")
        .on_receive_request(
            {
                let (core, editor) = (c(), e());
                async move |req: acp::InitializeRequest,
                            responder: Responder<acp::InitializeResponse>,
                            cx| {
                    editor.attach(&cx);
                    editor.set_capabilities(req.client_capabilities.clone());
                    responder.respond(initialize_response(core.as_ref(), &req))
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (core, editor) = (c(), e());
                async move |req: acp::AuthenticateRequest,
                            responder: Responder<acp::AuthenticateResponse>,
                            cx| {
                    editor.attach(&cx);
                    let core = core.clone();
                    reply_later(responder, async move {
                        core.authenticate(&req.method_id.0)
                            .await
                            .map(|()| acp::AuthenticateResponse::new())
                    });
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (core, editor) = (c(), e());
                async move |req: acp::NewSessionRequest,
                            responder: Responder<acp::NewSessionResponse>,
                            cx| {
                    editor.attach(&cx);
                    let core = core.clone();
                    let new = from_proto::new_session(req.cwd, req.mcp_servers, req.meta);
                    reply_later(responder, async move {
                        core.new_session(new).await.map(new_session_response)
                    });
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (core, editor) = (c(), e());
                async move |req: acp::LoadSessionRequest,
                            responder: Responder<acp::LoadSessionResponse>,
                            cx| {
                    editor.attach(&cx);
                    let core = core.clone();
                    let new = from_proto::new_session(req.cwd, req.mcp_servers, req.meta);
                    reply_later(responder, async move {
                        let o = core.load_session(&req.session_id.0, new).await?;
                        Ok(acp::LoadSessionResponse::new()
                            .modes(o.modes.map(to_proto::modes))
                            .config_options(
                                Some(to_proto::config_options(o.config_options))
                                    .filter(|v| !v.is_empty()),
                            ))
                    });
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (core, editor) = (c(), e());
                async move |req: acp::ResumeSessionRequest,
                            responder: Responder<acp::ResumeSessionResponse>,
                            cx| {
                    editor.attach(&cx);
                    let core = core.clone();
                    let new = from_proto::new_session(req.cwd, req.mcp_servers, req.meta);
                    reply_later(responder, async move {
                        let o = core.resume_session(&req.session_id.0, new).await?;
                        Ok(acp::ResumeSessionResponse::new()
                            .modes(o.modes.map(to_proto::modes))
                            .config_options(
                                Some(to_proto::config_options(o.config_options))
                                    .filter(|v| !v.is_empty()),
                            ))
                    });
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (core, editor) = (c(), e());
                async move |req: acp::ForkSessionRequest,
                            responder: Responder<acp::ForkSessionResponse>,
                            cx| {
                    editor.attach(&cx);
                    let core = core.clone();
                    let new = from_proto::new_session(req.cwd, req.mcp_servers, req.meta);
                    reply_later(responder, async move {
                        let o = core.fork_session(&req.session_id.0, new).await?;
                        Ok(acp::ForkSessionResponse::new(o.session_id)
                            .modes(o.modes.map(to_proto::modes))
                            .config_options(
                                Some(to_proto::config_options(o.config_options))
                                    .filter(|v| !v.is_empty()),
                            ))
                    });
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (core, editor) = (c(), e());
                async move |req: acp::ListSessionsRequest,
                            responder: Responder<acp::ListSessionsResponse>,
                            cx| {
                    editor.attach(&cx);
                    let core = core.clone();
                    reply_later(responder, async move {
                        let page = core.list_sessions(req.cwd, req.cursor).await?;
                        let sessions = page
                            .sessions
                            .into_iter()
                            .map(|s| {
                                acp::SessionInfo::new(s.session_id, s.cwd)
                                    .title(s.title)
                                    .updated_at(s.updated_at)
                            })
                            .collect();
                        Ok(acp::ListSessionsResponse::new(sessions).next_cursor(page.next_cursor))
                    });
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (core, editor) = (c(), e());
                async move |req: acp::CloseSessionRequest,
                            responder: Responder<acp::CloseSessionResponse>,
                            cx| {
                    editor.attach(&cx);
                    let core = core.clone();
                    reply_later(responder, async move {
                        core.close_session(&req.session_id.0)
                            .await
                            .map(|()| acp::CloseSessionResponse::new())
                    });
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (core, editor) = (c(), e());
                async move |req: acp::PromptRequest,
                            responder: Responder<acp::PromptResponse>,
                            cx| {
                    editor.attach(&cx);
                    let core = core.clone();
                    let blocks = from_proto::prompt_blocks(req.prompt);
                    reply_later(responder, async move {
                        let stop = core.prompt(&req.session_id.0, blocks).await?;
                        Ok(acp::PromptResponse::new(to_proto::stop_reason(stop)))
                    });
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_notification(
            {
                let core = c();
                async move |note: acp::CancelNotification, _cx| {
                    core.cancel(&note.session_id.0);
                    Ok(())
                }
            },
            on_receive_notification!(),
        )
        .on_receive_request(
            {
                let (core, editor) = (c(), e());
                async move |req: acp::SetSessionModeRequest,
                            responder: Responder<acp::SetSessionModeResponse>,
                            cx| {
                    editor.attach(&cx);
                    let core = core.clone();
                    reply_later(responder, async move {
                        core.set_mode(&req.session_id.0, &req.mode_id.0)
                            .await
                            .map(|()| acp::SetSessionModeResponse::new())
                    });
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (core, editor) = (c(), e());
                async move |req: acp::SetSessionConfigOptionRequest,
                            responder: Responder<acp::SetSessionConfigOptionResponse>,
                            cx| {
                    editor.attach(&cx);
                    let core = core.clone();
                    reply_later(responder, async move {
                        let value = match &req.value {
                            acp::SessionConfigOptionValue::ValueId { value } => value.0.to_string(),
                            _ => {
                                return Err(AgentError::InvalidParams(format!(
                                    "config option `{}` takes one of its listed values",
                                    req.config_id.0
                                )));
                            }
                        };
                        let options = core
                            .set_config_option(&req.session_id.0, &req.config_id.0, &value)
                            .await?;
                        Ok(acp::SetSessionConfigOptionResponse::new(
                            to_proto::config_options(options),
                        ))
                    });
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .connect_to(Stdio::new())
        .await
}
