//! The seam between the editor protocol (ACP, in `crate::acp`) and the rest of the adapter.
//!
//! Nothing outside `crate::acp` imports the ACP SDK: sessions, translation and the claude side
//! speak these small types instead, so a new SDK major version touches one folder. Beside them,
//! the names of the tools the editor serves claude ([`tool_names`]), which every side reads.

mod core;
mod cursor;
mod editor;
mod error;
mod request;
pub(crate) mod tool_names;
mod update;

pub use core::{
    AgentCore, AgentFeatures, ApiKind, AuthMethodInfo, AuthStatusInfo, Gateway, MAIN_PROVIDER,
    ProviderRoute, SessionStatus, VertexTarget,
};
pub use cursor::{AnchorMessage, Cursor, ForkPoint};
pub use editor::{
    EditorClient, EditorError, ElicitationField, ElicitationOutcome, ElicitationRequest,
    McpElicitation, McpElicitationAnswer, McpElicitationMode, McpRelayNotification,
    McpRelayOutcome, McpRelayRequest, TerminalCommand, TerminalExit, TerminalOutput,
};
pub use error::AgentError;
pub use request::*;
pub use update::*;
