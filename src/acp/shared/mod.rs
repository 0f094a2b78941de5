//! What ACP v1 and v2 share: the editor as the sessions see it ([`client`], which writes to it
//! in the form chosen at `initialize`), one permission request builder, the readings of the
//! editor's requests and the SDK's forms of the session's updates, the extensions, errors and
//! answering from a task. A leaf: it imports neither `v1` nor `v2` (`tests/it/tidy.rs`).

pub(crate) mod client;
pub(crate) mod errors;
pub(crate) mod extensions;
pub(crate) mod file_changes;
pub(crate) mod from_proto;
pub(crate) mod initialize;
pub(crate) mod mcp_over_acp;
pub(crate) mod permission_request;
pub(crate) mod raw_params;
pub(crate) mod reply;
pub(crate) mod schema_1_20;
mod subagents;
pub(crate) mod to_proto;
pub(crate) mod tool_call_json;
