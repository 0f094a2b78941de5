//! ACP request payloads -> the adapter's own types.

use agent_client_protocol::v1::schema as acp;

use crate::domain::{
    AgentError, ApiKind, Gateway, McpServer, NewSession, PromptBlock, SystemPrompt, VertexTarget,
};

pub fn prompt_blocks(blocks: Vec<acp::ContentBlock>) -> Vec<PromptBlock> {
    blocks.into_iter().filter_map(prompt_block).collect()
}

fn prompt_block(block: acp::ContentBlock) -> Option<PromptBlock> {
    Some(match block {
        acp::ContentBlock::Text(t) => PromptBlock::Text(t.text),
        acp::ContentBlock::Image(i) => PromptBlock::Image {
            data: i.data,
            mime_type: i.mime_type,
            uri: i.uri,
        },
        acp::ContentBlock::ResourceLink(l) => PromptBlock::ResourceLink {
            uri: l.uri,
            name: l.name,
        },
        acp::ContentBlock::Resource(r) => match r.resource {
            acp::EmbeddedResourceResource::TextResourceContents(t) => PromptBlock::EmbeddedText {
                uri: t.uri,
                text: t.text,
                mime_type: t.mime_type,
            },
            acp::EmbeddedResourceResource::BlobResourceContents(b) => PromptBlock::EmbeddedBlob {
                uri: b.uri,
                blob: b.blob,
                mime_type: b.mime_type,
            },
            _ => return None,
        },
        // Audio is not offered in promptCapabilities; anything else is newer than this adapter.
        _ => return None,
    })
}

/// `session/list`'s `archived`: not archived by default; a filter ACP may add later is refused
/// rather than read as another.
pub fn archive_filter(
    filter: Option<acp::SessionArchiveFilter>,
) -> Result<crate::domain::ArchiveFilter, AgentError> {
    use crate::domain::ArchiveFilter;
    match filter {
        None | Some(acp::SessionArchiveFilter::Exclude) => Ok(ArchiveFilter::Exclude),
        Some(acp::SessionArchiveFilter::Include) => Ok(ArchiveFilter::Include),
        Some(acp::SessionArchiveFilter::Only) => Ok(ArchiveFilter::Only),
        Some(other) => Err(AgentError::InvalidParams(format!(
            "session/list: archived must be exclude, include or only, not {other:?}"
        ))),
    }
}

/// The editor's MCP servers. A server the editor hosts itself (`acp`) is served to claude under
/// its name, so that name must be its own: one another server has, or the name of claude-acp's
/// own server (`acp`), is refused (schema 1.20 refuses duplicate names with -32602).
pub fn mcp_servers(servers: Vec<acp::McpServer>) -> Result<Vec<McpServer>, AgentError> {
    let servers: Vec<McpServer> = servers
        .into_iter()
        .filter_map(|s| match s {
            acp::McpServer::Stdio(s) => Some(McpServer::Stdio {
                name: s.name,
                command: s.command.to_string_lossy().into_owned(),
                args: s.args,
                env: s.env.into_iter().map(|e| (e.name, e.value)).collect(),
            }),
            acp::McpServer::Http(s) => Some(McpServer::Http {
                name: s.name,
                url: s.url,
                headers: s.headers.into_iter().map(|h| (h.name, h.value)).collect(),
            }),
            acp::McpServer::Sse(s) => Some(McpServer::Sse {
                name: s.name,
                url: s.url,
                headers: s.headers.into_iter().map(|h| (h.name, h.value)).collect(),
            }),
            acp::McpServer::Acp(s) => Some(McpServer::Acp {
                name: s.name,
                server_id: s.server_id.0.to_string(),
            }),
            _ => None,
        })
        .collect();
    for server in &servers {
        let McpServer::Acp { name, server_id } = server else {
            continue;
        };
        let refused = if name.is_empty() || server_id.is_empty() {
            "an acp MCP server needs a name and a serverId".to_owned()
        } else if name == crate::domain::tool_names::SERVER_NAME {
            format!(
                "the MCP server name {name:?} is claude-acp's own; name the acp server otherwise"
            )
        } else if servers.iter().filter(|s| s.name() == name).count() > 1 {
            format!("two MCP servers are named {name:?}; an acp server's name must be its own")
        } else {
            continue;
        };
        return Err(AgentError::InvalidParams(format!("mcpServers: {refused}")));
    }
    Ok(servers)
}

pub fn meta_value(meta: Option<acp::Meta>) -> Option<serde_json::Value> {
    meta.map(serde_json::Value::Object)
}

pub fn new_session(
    cwd: std::path::PathBuf,
    additional_directories: Vec<std::path::PathBuf>,
    servers: Vec<acp::McpServer>,
    system_prompt: Option<acp::SystemPrompt>,
    meta: Option<acp::Meta>,
) -> Result<NewSession, AgentError> {
    Ok(NewSession {
        cwd,
        additional_directories,
        mcp_servers: mcp_servers(servers)?,
        meta: meta_value(meta),
        system_prompt: system_prompt.map(self::system_prompt).transpose()?,
        answered: None,
        fork_at: None,
    })
}

/// `systemPrompt`: text blocks in a mode claude has (ACP says to refuse anything else rather
/// than open the session without it).
fn system_prompt(prompt: acp::SystemPrompt) -> Result<SystemPrompt, AgentError> {
    let replace = match prompt.mode {
        acp::SystemPromptMode::Append => false,
        acp::SystemPromptMode::Override => true,
        other => {
            return Err(AgentError::InvalidParams(format!(
                "systemPrompt.mode {}: claude-acp takes append or override",
                serde_json::to_string(&other).unwrap_or_default()
            )));
        }
    };
    if prompt.content.is_empty() {
        return Err(AgentError::InvalidParams(
            "systemPrompt.content is empty".into(),
        ));
    }
    let mut texts = Vec::new();
    for block in prompt.content {
        match block {
            acp::ContentBlock::Text(text) => texts.push(text.text),
            _ => {
                return Err(AgentError::InvalidParams(
                    "systemPrompt.content: claude-acp takes text blocks only".into(),
                ));
            }
        }
    }
    Ok(SystemPrompt {
        text: texts.join("\n\n"),
        replace,
    })
}

/// `_meta.gateway` of `authenticate`: the editor's gateway, checked whole before anything changes
/// (an error names the field; a header's value, which may be a secret, is never repeated).
pub fn gateway(meta: Option<&acp::Meta>) -> Result<Option<Gateway>, AgentError> {
    let bad = |what: String| AgentError::InvalidParams(what);
    let Some(value) = meta.and_then(|m| m.get("gateway")).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let object = value.as_object().ok_or_else(|| {
        bad("`_meta.gateway` must be an object with `baseUrl` and `headers`".into())
    })?;
    let base_url = object
        .get("baseUrl")
        .and_then(serde_json::Value::as_str)
        .map(str::trim)
        .filter(|url| is_http_url(url))
        .ok_or_else(|| bad("`_meta.gateway.baseUrl` must be an absolute http(s) URL".into()))?;
    let headers = match object.get("headers") {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(serde_json::Value::Object(map)) => {
            let mut pairs = Vec::new();
            for (name, value) in map {
                let value = value.as_str().ok_or_else(|| {
                    bad(format!("`_meta.gateway.headers.{name}` must be a string"))
                })?;
                pairs.push((name.clone(), value.to_owned()));
            }
            checked_headers("_meta.gateway.headers", pairs)?
        }
        Some(_) => {
            return Err(bad(
                "`_meta.gateway.headers` must be an object of header names to strings".into(),
            ));
        }
    };
    Ok(Some(Gateway {
        base_url: base_url.to_owned(),
        headers,
        ..Gateway::default()
    }))
}

/// `providers/set`: the editor's gateway for the provider, checked whole before anything changes
/// (as `_meta.gateway`). Vertex needs its project and region, which the request's fields cannot
/// carry: `_meta.claudeCode.vertex.{projectId, region}`, as the TypeScript adapter reads them.
pub fn provider_gateway(req: acp::SetProviderRequest) -> Result<(String, Gateway), AgentError> {
    let bad = |what: String| AgentError::InvalidParams(what);
    let api = match &req.api_type {
        acp::LlmProtocol::Anthropic => ApiKind::Anthropic,
        acp::LlmProtocol::Bedrock => ApiKind::Bedrock,
        acp::LlmProtocol::Vertex => ApiKind::Vertex,
        other => {
            let name = serde_json::to_value(other)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            return Err(bad(format!(
                "apiType `{name}` is not one claude speaks: anthropic, bedrock or vertex"
            )));
        }
    };
    let base_url = req.base_url.trim();
    if !is_http_url(base_url) {
        return Err(bad("baseUrl must be an absolute http(s) URL".into()));
    }
    let vertex = if api == ApiKind::Vertex {
        let target = req
            .meta
            .as_ref()
            .and_then(|m| m.get("claudeCode"))
            .and_then(|c| c.get("vertex"));
        let field = |name: &str| {
            target
                .and_then(|t| t.get(name))
                .and_then(serde_json::Value::as_str)
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        match (field("projectId"), field("region")) {
            (Some(project_id), Some(region)) => Some(VertexTarget { project_id, region }),
            _ => {
                return Err(bad(
                    "the vertex apiType needs `_meta.claudeCode.vertex.projectId` and `.region`"
                        .into(),
                ));
            }
        }
    } else {
        None
    };
    let mut pairs: Vec<(String, String)> = req.headers.into_iter().collect();
    // The request's map has no order; claude's header list is kept stable.
    pairs.sort();
    let gateway = Gateway {
        api,
        base_url: base_url.to_owned(),
        vertex,
        headers: checked_headers("headers", pairs)?,
    };
    Ok((req.provider_id.0.to_string(), gateway))
}

/// Header names that are HTTP tokens and values on one line; an error names the header, never
/// its value (which may be a secret).
fn checked_headers(
    field: &str,
    pairs: Vec<(String, String)>,
) -> Result<Vec<(String, String)>, AgentError> {
    for (name, value) in &pairs {
        let is_token = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c));
        if !is_token {
            return Err(AgentError::InvalidParams(format!(
                "`{field}`: {name:?} is not a header name"
            )));
        }
        if value.contains(['\r', '\n']) {
            return Err(AgentError::InvalidParams(format!(
                "`{field}.{name}` must be a single line"
            )));
        }
    }
    Ok(pairs)
}

/// `http://host...` or `https://host...`, with a host and no whitespace.
fn is_http_url(url: &str) -> bool {
    let Some(rest) = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
    else {
        return false;
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    !host.is_empty() && !url.chars().any(char::is_whitespace)
}
