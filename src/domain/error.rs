//! Errors the adapter answers editor requests with; `crate::acp` maps each to a JSON-RPC error.

/// Why an editor request failed.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum AgentError {
    /// The request's parameters are wrong (JSON-RPC -32602).
    #[error("{0}")]
    InvalidParams(String),
    /// No such session in this adapter (JSON-RPC -32602, naming the id).
    #[error("unknown session id: {0}")]
    UnknownSession(String),
    /// No session of that id, open or stored (ACP's resource-not-found, -32002).
    #[error("no session {0}: it is not open here and claude stored no conversation under it")]
    SessionNotFound(String),
    /// claude needs the user to log in (ACP auth_required, -32000).
    #[error("{0}")]
    AuthRequired(String),
    /// A prompt arrived while the session already has as many waiting as it keeps.
    #[error(
        "session {session} already has {limit} prompts waiting behind the running one; wait for one to end or cancel"
    )]
    QueueFull { session: String, limit: usize },
    /// The method exists in ACP but this adapter does not offer it (-32601).
    #[error("{0}")]
    MethodNotFound(String),
    /// Anything else: claude failed, exited, or answered with an error (JSON-RPC -32603).
    #[error("{0}")]
    Internal(String),
}
