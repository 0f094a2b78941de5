//! The ACP v2 agent: the same sessions as v1's ([`crate::domain::AgentCore`]), one handler per
//! v2 method, each answering from a task of its own. v2's requests are read into v1's shapes
//! where they are the same (prompt content, MCP servers, system prompts) so that both
//! versions go through one reading of them (`from_proto`).

use std::sync::Arc;

use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v2::{Responder, schema as v2};
use agent_client_protocol::{Agent, Error, on_receive_notification, on_receive_request};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::acp::shared::client::AcpEditor;
use crate::acp::shared::errors::to_rpc;
use crate::acp::shared::extensions::{
    AsyncTaskStopRequest, AsyncTaskStopResponse, SteeringRequest, SteeringResponse,
};
use crate::acp::shared::raw_params::{AnsweredInJson, WithParams};
use crate::acp::shared::reply::reply_later;
use crate::acp::shared::schema_1_20::{Declared1_20, IdempotencyKey, PromptRequestV2, fork_cursor};
use crate::acp::shared::{from_proto, initialize, to_proto};
use crate::domain::{
    AgentCore, AgentError, ConfigOption, SessionOpened, SessionStatus, StopReason,
};

/// The methods of the v2 schema this agent has a handler for (the conformance test checks the
/// schema's against it); every other is answered "method not found".
#[cfg(test)]
pub(crate) const HANDLED_METHODS: &[&str] = &[
    "initialize",
    "auth/login",
    "auth/logout",
    "providers/list",
    "providers/set",
    "providers/disable",
    "session/new",
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
    "session/set_config_option",
    "session/cancel",
    "mcp/message",
    "tool_call/cancel",
    "_session/steering",
    "_session/async_task/stop",
];

/// What a v2 handler's work fails with ([`spawned`]): already the protocol's error.
type HandlerError = Error;

/// A v2 value read as the v1 type of the same shape.
fn as_v1<T: DeserializeOwned>(value: impl serde::Serialize, what: &str) -> Result<T, Error> {
    let value = serde_json::to_value(value).map_err(|e| invalid(format!("{what}: {e}")))?;
    serde_json::from_value(value).map_err(|e| invalid(format!("{what}: {e}")))
}

/// JSON built here read as the v2 type it is meant to be.
fn as_v2<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    serde_json::from_value(value)
        .map_err(|e| Error::internal_error().data(format!("an ACP v2 answer: {e}")))
}

fn as_json(value: impl serde::Serialize) -> Result<Value, Error> {
    serde_json::to_value(value).map_err(|e| Error::internal_error().data(e.to_string()))
}

fn invalid(message: String) -> Error {
    to_rpc(AgentError::InvalidParams(message))
}

/// [`initialize_response`] with what schema 1.20 adds that the SDK's types cannot say: an editor
/// that takes skills (`session.commands.skill`) is told a `skill` block invokes one
/// (`session.prompt.skill`).
fn initialize_answer(
    core: &dyn AgentCore,
    request: &v2::InitializeRequest,
    declared_1_20: Declared1_20,
) -> Result<Value, Error> {
    let mut answer = as_json(initialize_response(core, request)?)?;
    if declared_1_20.skill_commands {
        answer["capabilities"]["session"]["prompt"]["skill"] = json!({});
    }
    Ok(answer)
}

/// The v2 `initialize` answer: what v1's says, in v2's form. `session/list`, `resume` and
/// `close` are v2's baseline; `auth/logout` comes with any auth method.
pub(crate) fn initialize_response(
    core: &dyn AgentCore,
    request: &v2::InitializeRequest,
) -> Result<v2::InitializeResponse, Error> {
    let v1_request =
        acp::InitializeRequest::new(agent_client_protocol::schema::ProtocolVersion::V1)
            .client_capabilities(super::editor::declared_as_v1(request))
            .client_info(acp::Implementation::new(
                request.info.name.clone(),
                request.info.version.clone(),
            ));
    let v1 = serde_json::to_value(initialize::initialize_response(core, &v1_request))
        .map_err(|e| Error::internal_error().data(e.to_string()))?;
    let f = core.features();
    let mut session = json!({
        "prompt": {"image": {}, "embeddedContext": {}},
        "mcp": {"stdio": {}},
    });
    if f.mcp_http {
        session["mcp"]["http"] = json!({});
    }
    if f.mcp_acp {
        session["mcp"]["acp"] = json!({});
    }
    for (on, name, value) in [
        (f.delete_session, "delete", json!({})),
        (f.fork_session, "fork", json!({})),
        (f.session_title, "title", json!({})),
        (f.session_status, "status", json!({})),
        (f.session_archive, "archive", json!({})),
        (f.session_options, "options", json!({})),
        (f.additional_directories, "additionalDirectories", json!({})),
        (
            f.system_prompt,
            "systemPrompt",
            json!({"mode": {"override": {}}}),
        ),
    ] {
        if on {
            session[name] = value;
        }
    }
    let mut capabilities = json!({"session": session});
    if f.providers {
        capabilities["providers"] = json!({});
    }
    if let Some(meta) = v1["agentCapabilities"].get("_meta") {
        capabilities["_meta"] = meta.clone();
    }
    let auth_methods: Vec<Value> = v1["authMethods"]
        .as_array()
        .into_iter()
        .flatten()
        .map(auth_method)
        .collect();
    let mut response = json!({
        "protocolVersion": 2,
        "info": v1["agentInfo"],
        "capabilities": capabilities,
        "authMethods": auth_methods,
    });
    if let Some(meta) = v1.get("_meta") {
        response["_meta"] = meta.clone();
    }
    as_v2(response)
}

/// A v1 auth method as v2's: `methodId` for `id`, `type` always said, `env` as a list.
fn auth_method(v1: &Value) -> Value {
    let mut method = v1.clone();
    let Some(object) = method.as_object_mut() else {
        return method;
    };
    if let Some(id) = object.remove("id") {
        object.insert("methodId".into(), id);
    }
    if !object.contains_key("type") {
        object.insert("type".into(), "agent".into());
    }
    if let Some(Value::Object(env)) = object.remove("env") {
        let env: Vec<Value> = env
            .into_iter()
            .map(|(name, value)| json!({"name": name, "value": value}))
            .collect();
        object.insert("env".into(), env.into());
    }
    method
}

/// What a session-opening answer carries in v2: its config options (the mode among them).
fn opened_json(opened: &SessionOpened) -> Value {
    let options = config_options_json(opened.config_options.clone());
    json!({"sessionId": opened.session_id, "configOptions": options})
}

fn config_options_json(options: Vec<ConfigOption>) -> Value {
    let mut options = serde_json::to_value(to_proto::config_options(options)).unwrap_or_default();
    if let Value::Array(list) = &mut options {
        list.iter_mut().for_each(super::convert::config_option);
    }
    options
}

/// A v2 session-opening request's common fields, read as v1's `session/new`.
fn new_session(request: impl serde::Serialize) -> Result<crate::domain::NewSession, Error> {
    let mut value = serde_json::to_value(request).map_err(|e| invalid(e.to_string()))?;
    if value.get("mcpServers").is_none() {
        value["mcpServers"] = json!([]);
    }
    let v1: acp::NewSessionRequest = as_v1(value, "the session's parameters")?;
    from_proto::new_session(
        v1.cwd,
        v1.additional_directories,
        v1.mcp_servers,
        v1.system_prompt,
        v1.meta,
    )
    .map_err(to_rpc)
}

/// The v2 agent over `core`, speaking to `editor`.
pub(crate) fn agent(
    core: Arc<dyn AgentCore>,
    editor: Arc<AcpEditor>,
) -> impl agent_client_protocol::ConnectTo<agent_client_protocol::Client> {
    let builder = Agent.v2().name("claude-acp").on_receive_request(
        {
            let (core, editor) = (core.clone(), editor.clone());
            async move |init: AnsweredInJson<WithParams<v2::InitializeRequest>>,
                        responder: Responder<Value>,
                        _cx| {
                let declared_1_20 = Declared1_20::of_initialize(&init.0.params);
                let req = init.0.request;
                let declared = super::editor::declared_as_v1(&req);
                editor.set_declared(
                    declared,
                    declared_1_20,
                    Some(req.info.name.clone()),
                    super::editor::form(),
                );
                responder.respond_with_result(initialize_answer(core.as_ref(), &req, declared_1_20))
            }
        },
        on_receive_request!(),
    );
    let builder = spawned!(builder, core, |c,
                                           req: v2::LoginAuthRequest|
     -> v2::LoginAuthResponse {
        let gateway = from_proto::gateway(req.meta.as_ref()).map_err(to_rpc)?;
        c.authenticate(&req.method_id.0, gateway)
            .await
            .map_err(to_rpc)?;
        Ok(v2::LoginAuthResponse::new())
    });
    let builder = spawned!(builder, core, |c,
                                           _req: v2::LogoutAuthRequest|
     -> v2::LogoutAuthResponse {
        c.logout().await.map_err(to_rpc)?;
        Ok(v2::LogoutAuthResponse::new())
    });
    let builder = spawned!(builder, core, |c,
                                           _req: v2::ListProvidersRequest|
     -> v2::ListProvidersResponse {
        let provider = to_proto::provider(c.provider_route());
        as_v2(json!({"providers": [as_json(provider)?]}))
    });
    let builder = spawned!(builder, core, |c,
                                           req: v2::SetProviderRequest|
     -> v2::SetProviderResponse {
        let (id, gateway) =
            from_proto::provider_gateway(as_v1(&req, "the provider")?).map_err(to_rpc)?;
        c.set_provider(&id, gateway).await.map_err(to_rpc)?;
        Ok(v2::SetProviderResponse::new())
    });
    let builder = spawned!(builder, core, |c,
                                           req: v2::DisableProviderRequest|
     -> v2::DisableProviderResponse {
        c.disable_provider(&req.provider_id.0)
            .await
            .map_err(to_rpc)?;
        Ok(v2::DisableProviderResponse::new())
    });
    let builder = spawned!(builder, core, editor, |c,
                                                   req: v2::NewSessionRequest,
                                                   answered|
     -> v2::NewSessionResponse {
        let mut new = new_session(&req)?;
        new.answered = answered;
        let opened = c.new_session(new).await.map_err(to_rpc)?;
        as_v2(opened_json(&opened))
    });
    let builder = spawned!(builder, core, editor, |c,
                                                   req: v2::ResumeSessionRequest,
                                                   answered|
     -> v2::ResumeSessionResponse {
        let session_id = req.session_id.0.to_string();
        // With a replay, the thread is told first (v1's load); without, it just continues.
        let replay = match &req.replay_from {
            None => false,
            Some(v2::ReplayFrom::Start(_)) => true,
            Some(other) => {
                return Err(invalid(format!(
                    "replay from {other:?} is not supported; replay from the start"
                )));
            }
        };
        let mut value = serde_json::to_value(&req).map_err(|e| invalid(e.to_string()))?;
        if let Some(object) = value.as_object_mut() {
            object.remove("replayFrom");
            object.remove("sessionId");
        }
        let mut new = new_session(value)?;
        new.answered = answered;
        let opened = if replay {
            c.load_session(&session_id, new).await
        } else {
            c.resume_session(&session_id, new).await
        }
        .map_err(to_rpc)?;
        let mut answer = opened_json(&opened);
        answer.as_object_mut().map(|o| o.remove("sessionId"));
        as_v2(answer)
    });
    let builder = spawned!(builder, core, editor, |c,
                                                   read: WithParams<
        v2::ForkSessionRequest,
    >,
                                                   answered|
     -> v2::ForkSessionResponse {
        let fork_at = fork_cursor(&read.params).map_err(to_rpc)?;
        let req = read.request;
        let session_id = req.session_id.0.to_string();
        let mut value = serde_json::to_value(&req).map_err(|e| invalid(e.to_string()))?;
        value.as_object_mut().map(|o| o.remove("sessionId"));
        let mut new = new_session(value)?;
        new.answered = answered;
        new.fork_at = fork_at.map(|cursor| cursor.0);
        let opened = c.fork_session(&session_id, new).await.map_err(to_rpc)?;
        as_v2(opened_json(&opened))
    });
    let builder = spawned!(builder, core, |c,
                                           req: v2::ListSessionsRequest|
     -> v2::ListSessionsResponse {
        let cwd = req.cwd.map(|p| p.0);
        let cursor = req.cursor.map(|c| c.0.to_string());
        let archived: Option<acp::SessionArchiveFilter> = as_v1(&req.archived, "archived")?;
        let archived = from_proto::archive_filter(archived).map_err(to_rpc)?;
        let page = c
            .list_sessions(cwd, cursor, archived)
            .await
            .map_err(to_rpc)?;
        let sessions: Vec<Value> = page
            .sessions
            .into_iter()
            .map(|s| {
                json!({
                    "sessionId": s.session_id,
                    "cwd": s.cwd,
                    "additionalDirectories": s.additional_directories,
                    "title": s.title,
                    "updatedAt": s.updated_at,
                    "archived": s.archived,
                })
            })
            .collect();
        as_v2(json!({"sessions": sessions, "nextCursor": page.next_cursor}))
    });
    let builder = spawned!(builder, core, |c,
                                           req: v2::CloseSessionRequest|
     -> v2::CloseSessionResponse {
        c.close_session(&req.session_id.0).await.map_err(to_rpc)?;
        Ok(v2::CloseSessionResponse::new())
    });
    let builder = spawned!(builder, core, |c,
                                           req: v2::DeleteSessionRequest|
     -> v2::DeleteSessionResponse {
        c.delete_session(&req.session_id.0).await.map_err(to_rpc)?;
        Ok(v2::DeleteSessionResponse::new())
    });
    let builder = spawned!(builder, core, |c,
                                           req: v2::SessionOptionsRequest|
     -> v2::SessionOptionsResponse {
        let session_id = req.session_id.as_ref().map(|id| id.0.to_string());
        let mut value = serde_json::to_value(&req).map_err(|e| invalid(e.to_string()))?;
        value.as_object_mut().map(|o| o.remove("sessionId"));
        let new = new_session(value)?;
        let opened = c
            .session_options(session_id.as_deref(), new)
            .await
            .map_err(to_rpc)?;
        let mut answer = opened_json(&opened);
        answer.as_object_mut().map(|o| o.remove("sessionId"));
        as_v2(answer)
    });
    let builder = spawned!(builder, core, |c,
                                           req: v2::ArchiveSessionRequest|
     -> v2::ArchiveSessionResponse {
        c.set_archived(&req.session_id.0, true)
            .await
            .map_err(to_rpc)?;
        Ok(v2::ArchiveSessionResponse::new())
    });
    let builder = spawned!(builder, core, |c,
                                           req: v2::UnarchiveSessionRequest|
     -> v2::UnarchiveSessionResponse {
        c.set_archived(&req.session_id.0, false)
            .await
            .map_err(to_rpc)?;
        Ok(v2::UnarchiveSessionResponse::new())
    });
    let builder = spawned!(builder, core, |c,
                                           req: v2::SetSessionTitleRequest|
     -> v2::SetSessionTitleResponse {
        let title = c
            .set_session_title(&req.session_id.0, &req.title)
            .await
            .map_err(to_rpc)?;
        Ok(v2::SetSessionTitleResponse::new(title))
    });
    let builder = spawned!(builder, core, |c,
                                           req: v2::SessionStatusRequest|
     -> v2::SessionStatusResponse {
        let status = c.session_status(&req.session_id.0).await.map_err(to_rpc)?;
        let status = match status {
            SessionStatus::Open => v2::SessionStatus::Open,
            SessionStatus::Saved => v2::SessionStatus::Saved,
        };
        Ok(v2::SessionStatusResponse::new(status))
    });
    let builder = spawned!(builder, core, |c,
                                           req: PromptRequestV2|
     -> v2::PromptResponse {
        let (req, key) = req.parse().map_err(to_rpc)?;
        prompt(c, req, key).await
    });
    let builder = spawned!(builder, core, |c,
                                           req: v2::SetSessionConfigOptionRequest|
     -> v2::SetSessionConfigOptionResponse {
        let value = match &req.value {
            v2::SessionConfigOptionValue::Id { value } => value.0.to_string(),
            v2::SessionConfigOptionValue::Boolean { value: true } => ConfigOption::ON.into(),
            v2::SessionConfigOptionValue::Boolean { value: false } => ConfigOption::OFF.into(),
            _ => {
                return Err(invalid(format!(
                    "config option `{}` takes one of its listed values",
                    req.config_id.0
                )));
            }
        };
        let options = c
            .set_config_option(&req.session_id.0, &req.config_id.0, &value)
            .await
            .map_err(to_rpc)?;
        as_v2(json!({"configOptions": config_options_json(options)}))
    });
    let builder = spawned!(builder, core, |c,
                                           req: SteeringRequest|
     -> SteeringResponse {
        let steer = req.parse().map_err(to_rpc)?;
        c.steer(&steer.session_id, steer.blocks, steer.idle)
            .await
            .map(SteeringResponse::from)
            .map_err(to_rpc)
    });
    let builder = spawned!(builder, core, |c,
                                           req: AsyncTaskStopRequest|
     -> AsyncTaskStopResponse {
        let (session_id, task_id) = req.parse().map_err(to_rpc)?;
        c.stop_async_task(&session_id, &task_id)
            .await
            .map(AsyncTaskStopResponse::stopped)
            .map_err(to_rpc)
    });
    let builder = spawned!(builder, core, |c,
                                           req: v2::CancelToolCallRequest|
     -> v2::CancelToolCallResponse {
        c.cancel_tool_call(&req.session_id.0, &req.tool_call_id.0)
            .await
            .map_err(to_rpc)?;
        Ok(v2::CancelToolCallResponse::new())
    });
    // No terminal is ever reported to a v2 editor, so none can be cancelled: a clear refusal
    // rather than "method not found" for a method the schema has.
    let builder = spawned!(builder, core, |_c,
                                           req: v2::CancelTerminalRequest|
     -> v2::CancelTerminalResponse {
        Err(invalid(format!(
            "terminal {} is unknown: claude-acp reports no terminals to ACP v2 editors \
             (a background command is cancelled by its tool call, tool_call/cancel)",
            req.terminal_id.0
        )))
    });
    builder.on_receive_notification(
        {
            let core = core.clone();
            async move |note: v2::CancelSessionNotification, _cx| {
                core.cancel(&note.session_id.0);
                Ok(())
            }
        },
        on_receive_notification!(),
    )
}

/// `session/prompt`: answered once the prompt is in the conversation, with its message's id;
/// the turn goes on and its states follow as `state_update`s. Sent again under the
/// `idempotencyKey` of a prompt the session took in, it is answered with that prompt's id. A prompt that ends before it is
/// in (a cancel while it waited) is answered `-32800`, one refused with the refusal.
async fn prompt(
    core: Arc<dyn AgentCore>,
    req: v2::PromptRequest,
    key: Option<IdempotencyKey>,
) -> Result<v2::PromptResponse, Error> {
    if req.prompt.is_empty() {
        return Err(invalid(
            "`prompt` must hold at least one content block".into(),
        ));
    }
    let blocks: Vec<acp::ContentBlock> = as_v1(&req.prompt, "the prompt")?;
    let blocks = from_proto::prompt_blocks(blocks);
    let session_id = req.session_id.0.to_string();
    let (inserted, message_id) = tokio::sync::oneshot::channel();
    let key = key.map(|k| k.as_str().to_owned());
    let turn = tokio::spawn(async move {
        core.prompt_inserted(&session_id, blocks, inserted, key)
            .await
    });
    if let Ok(id) = message_id.await {
        return Ok(v2::PromptResponse::new(id));
    }
    match turn.await {
        Ok(Ok(outcome)) if outcome.stop_reason == StopReason::Cancelled => Err(Error::new(
            -32800,
            "the prompt was cancelled before it was taken in",
        )),
        Ok(Ok(_)) => {
            Err(Error::internal_error().data("the turn ended before the prompt was taken in"))
        }
        Ok(Err(e)) => Err(to_rpc(e)),
        Err(e) => Err(Error::internal_error().data(e.to_string())),
    }
}
