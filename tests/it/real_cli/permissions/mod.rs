//! Permissions with the real claude: its stdio asks answered by the session's permission logic
//! without the adapter (`stream_json`), the MCP permission server and the fallback to it
//! (`mcp_server`, `mcp_fallback`), and every scenario through the built adapter on both
//! transports (`adapter`, `scenarios`); the tools the editor serves never decided looser than
//! claude's own (`never_looser`), and claude-acp's decisions for them against claude's for its own
//! tools over one corpus (`differential`).

mod adapter;
mod differential;
mod mcp_fallback;
mod mcp_server;
mod never_looser;
mod scenarios;
mod stream_json;
