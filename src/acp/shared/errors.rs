//! `AgentError` -> JSON-RPC errors, with the codes editors expect.

use agent_client_protocol::Error;

use crate::domain::AgentError;

pub fn to_rpc(err: AgentError) -> Error {
    let message = err.to_string();
    match err {
        AgentError::InvalidParams(_) => Error::new(-32602, message),
        AgentError::UnknownSession(id) => {
            Error::new(-32602, message).data(serde_json::json!({ "sessionId": id }))
        }
        AgentError::SessionNotFound(id) => {
            Error::new(-32002, message).data(serde_json::json!({ "sessionId": id }))
        }
        AgentError::AuthRequired(_) => Error::new(-32000, message),
        AgentError::QueueFull { .. } => Error::new(-32602, message),
        AgentError::MethodNotFound(_) => Error::new(-32601, message),
        AgentError::Internal(_) => Error::new(-32603, message),
    }
}

/// The handlers' answers ([`super::reply::reply_later`]) turn a session's error into the
/// protocol's with [`to_rpc`].
impl From<AgentError> for Error {
    fn from(err: AgentError) -> Self {
        to_rpc(err)
    }
}
