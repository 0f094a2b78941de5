//! The editor side: ACP over stdio through the official SDK. The only module that imports it.

mod client;
mod errors;
mod extensions;
mod from_proto;
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) mod fuzzing;
mod permission_request;
mod server;
mod subagents;
mod to_proto;
mod tool_call_json;
mod transport;

/// The tracing target the SDK logs under (at trace level it logs whole messages).
pub const SDK_LOG_TARGET: &str = "agent_client_protocol";

#[cfg(test)]
mod tests;

pub(crate) use server::{Connection, serve};
