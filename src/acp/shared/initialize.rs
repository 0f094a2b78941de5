//! What the agent offers at `initialize`, in v1's terms: v1's answer, and what v2's answer is
//! made from.

use agent_client_protocol::v1::schema as acp;

use super::extensions;
use crate::domain::AgentCore;

pub(crate) fn initialize_response(
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
    if f.session_title {
        session.title = Some(acp::SessionTitleCapabilities::new());
    }
    if f.session_archive {
        session.archive = Some(acp::SessionArchiveCapabilities::new());
    }
    if f.session_options {
        session.options = Some(acp::SessionOptionsCapabilities::new());
    }
    if f.session_status {
        session.status = Some(acp::SessionStatusCapabilities::new());
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
        .mcp_capabilities(
            acp::McpCapabilities::new()
                .http(f.mcp_http)
                .sse(f.mcp_sse)
                .acp(f.mcp_acp),
        )
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
