//! The adapter driven by other clients: the official TypeScript ACP client, the demo, the
//! scripted client's own self-test, and the editor configs in `editors/` (acpx among them).

mod acp_client_selftest;
mod acpx_terminal;
mod demo;
mod editor_configs;
mod registry;
mod ts_client;
