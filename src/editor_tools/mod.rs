//! The tools the editor serves claude instead of its built-ins: Read, Write and Edit through the
//! editor's buffers ([`fs`]) and Bash in the editor's terminal ([`terminal`]), behind the one MCP
//! server claude reaches over its own control channel ([`server`]), each as its option says
//! ([`setting`]); and the MCP servers the editor hosts itself, relayed to it over ACP
//! ([`relay`]).

pub(crate) mod answer_bound;
pub(crate) mod fs;
pub(crate) mod relay;
pub(crate) mod server;
pub(crate) mod setting;
pub(crate) mod terminal;
