//! Permissions with the real claude: its stdio asks answered by the session's permission logic
//! without the adapter (`stream_json`), the MCP permission server and the fallback to it
//! (`mcp_server`, `mcp_fallback`), and every scenario through the built adapter on both
//! transports (`adapter`, `scenarios`).

mod adapter;
mod differential;
mod mcp_fallback;
mod mcp_server;
mod scenarios;
mod stream_json;
