//! The adapter driven by other clients: the official TypeScript ACP client, the demo, the
//! scripted client's own self-test, the editor configs in `editors/` (acpx among them), and the
//! real editors running those configs (`real_editors/`).

mod acp_client_selftest;
mod acpx_terminal;
mod demo;
mod editor_configs;
mod real_editors;
mod registry;
pub(crate) mod ts_client;
