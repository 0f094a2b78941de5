//! The ACP v1 agent: one handler per method, each handing its work to a task so the SDK's
//! dispatch loop never waits on claude or on the editor.

use std::sync::Arc;

use agent_client_protocol::v1::{Responder, schema as acp};
use agent_client_protocol::{Agent, on_receive_notification, on_receive_request};

use crate::acp::shared::client::AcpEditor;
use crate::acp::shared::extensions::{
    AsyncTaskStopRequest, AsyncTaskStopResponse, SteeringRequest, SteeringResponse,
};
use crate::acp::shared::initialize::initialize_response;
use crate::acp::shared::raw_params::WithParams;
use crate::acp::shared::reply::reply_later;
use crate::acp::shared::schema_1_20::{Declared1_20, fork_cursor};
use crate::acp::shared::{from_proto, to_proto};
use crate::domain::{AgentCore, AgentError, ConfigOption, SessionOpened};

/// What a v1 handler's work fails with ([`spawned`]).
type HandlerError = AgentError;

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

/// The ACP methods (and the cancel notification) this agent has a handler for, then the
/// extensions of `extensions.rs`; the conformance test checks the schema's methods against it.
#[cfg(test)]
pub(crate) const HANDLED_METHODS: &[&str] = &[
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
    "session/set_title",
    "session/status",
    "session/archive",
    "session/options",
    "session/unarchive",
    "session/prompt",
    "session/set_mode",
    "session/set_config_option",
    "session/cancel",
    "mcp/message",
    "providers/list",
    "providers/set",
    "providers/disable",
    "_session/steering",
    "_session/async_task/stop",
];

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
pub(crate) fn agent(
    core: Arc<dyn AgentCore>,
    editor: Arc<AcpEditor>,
) -> impl agent_client_protocol::ConnectTo<agent_client_protocol::Client> {
    let builder = Agent.v1().name("claude-acp").on_receive_request(
        {
            let (core, editor) = (core.clone(), editor.clone());
            async move |init: WithParams<acp::InitializeRequest>,
                        responder: Responder<acp::InitializeResponse>,
                        _cx| {
                let declared = Declared1_20::of_initialize(&init.params);
                let req = init.request;
                let name = req.client_info.as_ref().map(|info| info.name.clone());
                // An editor that takes cursors holds the messages they are anchored to by id.
                let form = match declared.cursors {
                    true => super::editor::form_with_message_ids(),
                    false => super::editor::form(),
                };
                editor.set_declared(req.client_capabilities.clone(), declared, name, form);
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
                                                   read: WithParams<
        acp::ForkSessionRequest,
    >,
                                                   answered|
     -> acp::ForkSessionResponse {
        let fork_at = fork_cursor(&read.params)?;
        let req = read.request;
        let mut new = new_session_of!(req)?;
        new.answered = answered;
        new.fork_at = fork_at.map(|cursor| cursor.0);
        let (id, modes, options) = opened_parts(c.fork_session(&req.session_id.0, new).await?);
        Ok(acp::ForkSessionResponse::new(id)
            .modes(modes)
            .config_options(options))
    });
    let builder = spawned!(builder, core, |c,
                                           req: acp::ListSessionsRequest|
     -> acp::ListSessionsResponse {
        let archived = from_proto::archive_filter(req.archived)?;
        let page = c.list_sessions(req.cwd, req.cursor, archived).await?;
        let sessions = page
            .sessions
            .into_iter()
            .map(|s| {
                acp::SessionInfo::new(s.session_id, s.cwd)
                    .additional_directories(s.additional_directories)
                    .title(s.title)
                    .updated_at(s.updated_at)
                    .archived(s.archived)
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
    let builder = spawned!(builder, core, |c,
                                           req: acp::SessionOptionsRequest|
     -> acp::SessionOptionsResponse {
        let session_id = req.session_id.as_ref().map(|id| id.0.to_string());
        let new = from_proto::new_session(
            req.cwd,
            req.additional_directories,
            Vec::new(),
            None,
            req.meta,
        )?;
        let opened = c.session_options(session_id.as_deref(), new).await?;
        let (_, modes, options) = opened_parts(opened);
        Ok(acp::SessionOptionsResponse::new()
            .modes(modes)
            .config_options(options))
    });
    let builder = spawned!(builder, core, |c,
                                           req: acp::ArchiveSessionRequest|
     -> acp::ArchiveSessionResponse {
        c.set_archived(&req.session_id.0, true)
            .await
            .map(|()| acp::ArchiveSessionResponse::new())
    });
    let builder = spawned!(builder, core, |c,
                                           req: acp::UnarchiveSessionRequest|
     -> acp::UnarchiveSessionResponse {
        c.set_archived(&req.session_id.0, false)
            .await
            .map(|()| acp::UnarchiveSessionResponse::new())
    });
    let builder = spawned!(builder, core, |c,
                                           req: acp::SetSessionTitleRequest|
     -> acp::SetSessionTitleResponse {
        c.set_session_title(&req.session_id.0, &req.title)
            .await
            .map(acp::SetSessionTitleResponse::new)
    });
    let builder = spawned!(builder, core, |c,
                                           req: acp::SessionStatusRequest|
     -> acp::SessionStatusResponse {
        let status = c.session_status(&req.session_id.0).await?;
        Ok(acp::SessionStatusResponse::new(to_proto::session_status(
            status,
        )))
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
