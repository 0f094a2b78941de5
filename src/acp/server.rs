//! The ACP agent on stdio: one handler per method, each handing its work to a task so the SDK's
//! dispatch loop never waits on claude or on the editor.

use std::future::Future;
use std::sync::Arc;

use agent_client_protocol::v1::{Responder, schema as acp};
use agent_client_protocol::{
    Agent, ConnectTo as _, Error, JsonRpcResponse, Lines, Protocol, on_receive_notification,
    on_receive_request,
};

use super::client::AcpEditor;
use super::extensions::{
    self, AsyncTaskStopRequest, AsyncTaskStopResponse, SteeringRequest, SteeringResponse,
};
use super::transport::Transport;
use super::{from_proto, to_proto};
use crate::domain::{AgentCore, AgentError, ConfigOption, SessionOpened};

/// What a v1 handler's work fails with ([`spawned`]).
type HandlerError = AgentError;

/// Answers `responder` with what `work` yields, from a task of its own: v1's handlers and v2's
/// (their errors are the session's, or already the protocol's).
pub(super) fn reply_later<T, P, E, F>(responder: agent_client_protocol::Responder<T, P>, work: F)
where
    T: JsonRpcResponse + Send + 'static,
    P: Protocol,
    E: Into<Error>,
    F: Future<Output = Result<T, E>> + Send + 'static,
{
    tokio::spawn(async move {
        if let Err(e) = responder.respond_with_result(work.await.map_err(Into::into)) {
            tracing::debug!("response not sent: {e}");
        }
    });
}

/// The parts every session-opening response shares: the modes and the config options.
fn opened_parts(
    opened: SessionOpened,
) -> (
    String,
    Option<acp::SessionModeState>,
    Option<Vec<acp::SessionConfigOption>>,
) {
    let options = to_proto::config_options(opened.config_options);
    (
        opened.session_id,
        opened.modes.map(to_proto::modes),
        Some(options).filter(|o| !o.is_empty()),
    )
}

pub(super) fn initialize_response(
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
    if f.delete_session {
        session = session.delete(acp::SessionDeleteCapabilities::new());
    }
    if f.additional_directories {
        session =
            session.additional_directories(acp::SessionAdditionalDirectoriesCapabilities::new());
    }
    if f.fork_session {
        session.fork = Some(acp::SessionForkCapabilities::new());
    }
    if f.system_prompt {
        session = session.system_prompt(
            acp::SessionSystemPromptCapabilities::new().mode(
                acp::SessionSystemPromptModeCapabilities::new()
                    .override_(acp::SessionSystemPromptOverrideCapabilities::new()),
            ),
        );
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
    let caps = if f.logout {
        caps.auth(acp::AgentAuthCapabilities::new().logout(acp::LogoutCapabilities::new()))
    } else {
        caps
    };
    let caps = if f.providers {
        caps.providers(acp::ProvidersCapabilities::new())
    } else {
        caps
    };
    let caps = if f.prompt_queueing {
        let mut meta = acp::Meta::new();
        meta.insert(
            "claudeCode".into(),
            serde_json::json!({ "promptQueueing": true }),
        );
        caps.meta(meta)
    } else {
        caps
    };
    let client = &req.client_capabilities;
    // The TypeScript adapter's extension: the client launches the command itself.
    let meta_terminal = client
        .meta
        .as_ref()
        .and_then(|m| m.get("terminal-auth"))
        .and_then(serde_json::Value::as_bool)
        == Some(true);
    let runs_terminal_logins = client.auth.terminal || meta_terminal;
    // The TypeScript adapter's: `auth._meta.gateway: true`, the client routes claude itself.
    let declares_gateway = client
        .auth
        .meta
        .as_ref()
        .and_then(|m| m.get("gateway"))
        .and_then(serde_json::Value::as_bool)
        == Some(true);
    let auth_methods = f
        .auth_methods
        .into_iter()
        .filter(|m| runs_terminal_logins || !m.needs_terminal_client)
        .filter(|m| declares_gateway || m.gateway.is_none())
        .map(|m| {
            if let Some(api) = m.gateway {
                let mut meta = acp::Meta::new();
                meta.insert(
                    "gateway".into(),
                    serde_json::json!({"protocol": api.name()}),
                );
                return acp::AuthMethod::Agent(
                    acp::AuthMethodAgent::new(m.id, m.name)
                        .description(m.description)
                        .meta(meta),
                );
            }
            let mut method = acp::AuthMethodTerminal::new(m.id, m.name.clone())
                .description(m.description)
                .args(m.args.clone());
            if meta_terminal {
                method = method.meta(terminal_auth_meta(&m.name, &m.args));
            }
            acp::AuthMethod::Terminal(method)
        })
        .collect();
    let mut response =
        acp::InitializeResponse::new(agent_client_protocol::schema::ProtocolVersion::V1)
            .agent_capabilities(caps)
            .agent_info(
                acp::Implementation::new("claude-acp", env!("CARGO_PKG_VERSION"))
                    .title("Claude Code (claude-acp)"),
            )
            .auth_methods(auth_methods);
    let mut meta = acp::Meta::new();
    if let Some(status) = f.auth_status {
        meta.insert("claudeCode".into(), serde_json::json!({ "auth": status }));
    }
    if f.steering {
        meta.insert("steering".into(), extensions::steering_meta());
    }
    if !meta.is_empty() {
        response = response.meta(meta);
    }
    // ACP v1 is the only version spoken; a client asking for another gets v1 and decides.
    response
}

/// `_meta["terminal-auth"]`: the command a client that launches logins itself runs, this very
/// program with its own arguments and the login's (as the TypeScript adapter gives it).
fn terminal_auth_meta(label: &str, args: &[String]) -> acp::Meta {
    let command = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "claude-acp".into());
    let mut all: Vec<String> = std::env::args().skip(1).collect();
    all.extend(args.iter().cloned());
    let mut meta = acp::Meta::new();
    meta.insert(
        "terminal-auth".into(),
        serde_json::json!({"command": command, "args": all, "label": label}),
    );
    meta
}

/// The ACP methods (and the cancel notification) this agent has a handler for, then the
/// extensions of `extensions.rs`; the conformance test checks the schema's methods against it.
#[cfg(test)]
pub(super) const HANDLED_METHODS: &[&str] = &[
    "initialize",
    "authenticate",
    "logout",
    "session/new",
    "session/load",
    "session/resume",
    "session/fork",
    "session/list",
    "session/close",
    "session/delete",
    "session/prompt",
    "session/set_mode",
    "session/set_config_option",
    "session/cancel",
    "providers/list",
    "providers/set",
    "providers/disable",
    "_session/steering",
    "_session/async_task/stop",
];

/// The editor at the other end of a transport, before it is served: the sessions are given
/// [`Connection::editor`] to talk to, then [`serve`] serves the transport.
pub(crate) struct Connection {
    editor: Arc<AcpEditor>,
    transport: Transport,
}

impl Connection {
    /// The editor on this process's stdin and stdout.
    pub(crate) fn stdio() -> Self {
        Self::new(Transport::stdio())
    }

    pub(crate) fn new(transport: Transport) -> Self {
        Connection {
            editor: AcpEditor::new(&transport),
            transport,
        }
    }

    pub(crate) fn editor(&self) -> Arc<AcpEditor> {
        self.editor.clone()
    }
}

/// Serves ACP on the connection until the editor's input ends, in the version `protocol` allows
/// and the editor's `initialize` asks for.
pub(crate) async fn serve(
    core: Arc<dyn AgentCore>,
    connection: Connection,
    protocol: super::Protocol,
) -> Result<(), Error> {
    let Connection { editor, transport } = connection;
    let (outgoing, incoming) = transport.into_lines();
    let lines = Lines::new(outgoing, incoming);
    let v2 = || super::v2::server::agent(core.clone(), editor.clone());
    match protocol {
        super::Protocol::V1 => {
            v1_agent(core.clone(), editor.clone())
                .connect_to(lines)
                .await
        }
        super::Protocol::V2 => v2().connect_to(lines).await,
        super::Protocol::Auto => {
            Agent
                .protocol_router()
                .with_v1(v1_agent(core.clone(), editor.clone()))
                .with_v2(v2())
                .connect_to(lines)
                .await
        }
    }
}

/// The session a v1 session-opening request (new, load, resume, fork) asks for: the fields they
/// share, read by [`from_proto::new_session`].
macro_rules! new_session_of {
    ($req:ident) => {
        from_proto::new_session(
            $req.cwd,
            $req.additional_directories,
            $req.mcp_servers,
            $req.system_prompt,
            $req.meta,
        )
    };
}

/// The v1 agent over `core`, speaking to `editor`.
fn v1_agent(
    core: Arc<dyn AgentCore>,
    editor: Arc<AcpEditor>,
) -> impl agent_client_protocol::ConnectTo<agent_client_protocol::Client> {
    let builder = Agent.v1().name("claude-acp").on_receive_request(
        {
            let (core, editor) = (core.clone(), editor.clone());
            async move |req: acp::InitializeRequest,
                        responder: Responder<acp::InitializeResponse>,
                        _cx| {
                editor.set_declared(&req);
                responder.respond(initialize_response(core.as_ref(), &req))
            }
        },
        on_receive_request!(),
    );
    let builder = spawned!(builder, core, |c,
                                           req: acp::AuthenticateRequest|
     -> acp::AuthenticateResponse {
        let gateway = from_proto::gateway(req.meta.as_ref())?;
        c.authenticate(&req.method_id.0, gateway)
            .await
            .map(|()| acp::AuthenticateResponse::new())
    });
    let builder = spawned!(builder, core, |c,
                                           _req: acp::LogoutRequest|
     -> acp::LogoutResponse {
        c.logout().await.map(|()| acp::LogoutResponse::new())
    });
    let builder = spawned!(builder, core, |c,
                                           _req: acp::ListProvidersRequest|
     -> acp::ListProvidersResponse {
        Ok(acp::ListProvidersResponse::new(vec![to_proto::provider(
            c.provider_route(),
        )]))
    });
    let builder = spawned!(builder, core, |c,
                                           req: acp::SetProviderRequest|
     -> acp::SetProviderResponse {
        let (id, gateway) = from_proto::provider_gateway(req)?;
        c.set_provider(&id, gateway)
            .await
            .map(|()| acp::SetProviderResponse::new())
    });
    let builder = spawned!(builder, core, |c,
                                           req: acp::DisableProviderRequest|
     -> acp::DisableProviderResponse {
        c.disable_provider(&req.provider_id.0)
            .await
            .map(|()| acp::DisableProviderResponse::new())
    });
    let builder = spawned!(builder, core, editor, |c,
                                                   req: acp::NewSessionRequest,
                                                   answered|
     -> acp::NewSessionResponse {
        let mut new = new_session_of!(req)?;
        new.answered = answered;
        let (id, modes, options) = opened_parts(c.new_session(new).await?);
        Ok(acp::NewSessionResponse::new(id)
            .modes(modes)
            .config_options(options))
    });
    let builder = spawned!(builder, core, editor, |c,
                                                   req: acp::LoadSessionRequest,
                                                   answered|
     -> acp::LoadSessionResponse {
        let mut new = new_session_of!(req)?;
        new.answered = answered;
        let (_, modes, options) = opened_parts(c.load_session(&req.session_id.0, new).await?);
        Ok(acp::LoadSessionResponse::new()
            .modes(modes)
            .config_options(options))
    });
    let builder = spawned!(builder, core, editor, |c,
                                                   req: acp::ResumeSessionRequest,
                                                   answered|
     -> acp::ResumeSessionResponse {
        let mut new = new_session_of!(req)?;
        new.answered = answered;
        let (_, modes, options) = opened_parts(c.resume_session(&req.session_id.0, new).await?);
        Ok(acp::ResumeSessionResponse::new()
            .modes(modes)
            .config_options(options))
    });
    let builder = spawned!(builder, core, editor, |c,
                                                   req: acp::ForkSessionRequest,
                                                   answered|
     -> acp::ForkSessionResponse {
        let mut new = new_session_of!(req)?;
        new.answered = answered;
        let (id, modes, options) = opened_parts(c.fork_session(&req.session_id.0, new).await?);
        Ok(acp::ForkSessionResponse::new(id)
            .modes(modes)
            .config_options(options))
    });
    let builder = spawned!(builder, core, |c,
                                           req: acp::ListSessionsRequest|
     -> acp::ListSessionsResponse {
        let page = c.list_sessions(req.cwd, req.cursor).await?;
        let sessions = page
            .sessions
            .into_iter()
            .map(|s| {
                acp::SessionInfo::new(s.session_id, s.cwd)
                    .additional_directories(s.additional_directories)
                    .title(s.title)
                    .updated_at(s.updated_at)
            })
            .collect();
        Ok(acp::ListSessionsResponse::new(sessions).next_cursor(page.next_cursor))
    });
    let builder = spawned!(builder, core, |c,
                                           req: acp::CloseSessionRequest|
     -> acp::CloseSessionResponse {
        c.close_session(&req.session_id.0)
            .await
            .map(|()| acp::CloseSessionResponse::new())
    });
    let builder = spawned!(builder, core, |c,
                                           req: acp::DeleteSessionRequest|
     -> acp::DeleteSessionResponse {
        c.delete_session(&req.session_id.0)
            .await
            .map(|()| acp::DeleteSessionResponse::new())
    });
    // By hand, not `spawned!`: the session is told when its answer is queued to the editor, so
    // that a prompt waiting behind it shows nothing before this one is answered.
    let builder = builder.on_receive_request(
        {
            let (core, editor) = (core.clone(), editor.clone());
            async move |req: acp::PromptRequest, responder: Responder<acp::PromptResponse>, _cx| {
                let written = serde_json::to_value(responder.raw_id())
                    .ok()
                    .map(|id| editor.when_answered(id));
                let c = core.clone();
                reply_later(responder, async move {
                    let blocks = from_proto::prompt_blocks(req.prompt);
                    let outcome = c.prompt(&req.session_id.0, blocks, written).await?;
                    Ok::<_, HandlerError>(
                        acp::PromptResponse::new(to_proto::stop_reason(outcome.stop_reason))
                            .usage(outcome.usage.map(to_proto::turn_usage))
                            .meta(to_proto::rate_limits_meta(&outcome.rate_limits)),
                    )
                });
                Ok(())
            }
        },
        on_receive_request!(),
    );
    let builder = spawned!(builder, core, |c,
                                           req: acp::SetSessionModeRequest|
     -> acp::SetSessionModeResponse {
        c.set_mode(&req.session_id.0, &req.mode_id.0)
            .await
            .map(|()| acp::SetSessionModeResponse::new())
    });
    let builder = spawned!(builder, core, |c,
                                           req: acp::SetSessionConfigOptionRequest|
     -> acp::SetSessionConfigOptionResponse {
        // A boolean travels as a toggle's `on`/`off`, the values of its select form.
        let value = match &req.value {
            acp::SessionConfigOptionValue::ValueId { value } => value.0.to_string(),
            acp::SessionConfigOptionValue::Boolean { value: true } => ConfigOption::ON.into(),
            acp::SessionConfigOptionValue::Boolean { value: false } => ConfigOption::OFF.into(),
            _ => {
                return Err(AgentError::InvalidParams(format!(
                    "config option `{}` takes one of its listed values",
                    req.config_id.0
                )));
            }
        };
        let options = c
            .set_config_option(&req.session_id.0, &req.config_id.0, &value)
            .await?;
        Ok(acp::SetSessionConfigOptionResponse::new(
            to_proto::config_options(options),
        ))
    });
    let builder = spawned!(builder, core, |c,
                                           req: SteeringRequest|
     -> SteeringResponse {
        let steer = req.parse()?;
        c.steer(&steer.session_id, steer.blocks, steer.idle)
            .await
            .map(SteeringResponse::from)
    });
    let builder = spawned!(builder, core, |c,
                                           req: AsyncTaskStopRequest|
     -> AsyncTaskStopResponse {
        let (session_id, task_id) = req.parse()?;
        c.stop_async_task(&session_id, &task_id)
            .await
            .map(AsyncTaskStopResponse::stopped)
    });
    builder.on_receive_notification(
        {
            let core = core.clone();
            async move |note: acp::CancelNotification, _cx| {
                core.cancel(&note.session_id.0);
                Ok(())
            }
        },
        on_receive_notification!(),
    )
}
