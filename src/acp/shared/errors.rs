//! `AgentError` -> JSON-RPC errors, with the codes editors expect.

use agent_client_protocol::Error;

use crate::acp::transport::Failure;
use crate::domain::{AgentError, EditorError};

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

/// An answer to one of our own requests that is not a result, as [`editor_error`] maps the SDK's.
pub(super) fn failure_error(failure: Failure) -> EditorError {
    match failure {
        Failure::Error { code, message } => {
            let code = i32::try_from(code).unwrap_or(i32::MIN);
            editor_error(agent_client_protocol::Error::new(code, message))
        }
        Failure::Unreadable(why) => EditorError::Malformed(why),
        Failure::Closed => EditorError::Closed,
    }
}

pub(super) fn editor_error(e: agent_client_protocol::Error) -> EditorError {
    if e.code == agent_client_protocol::ErrorCode::PARSE_ERROR
        || e.code == agent_client_protocol::ErrorCode::INVALID_PARAMS
    {
        EditorError::Malformed(e.message)
    } else {
        EditorError::Rejected(e.message)
    }
}
