//! The adapter driven by other clients: the official TypeScript ACP client, the demo, and the
//! scripted client's own self-test.

mod acp_client_selftest;
mod demo;
mod ts_client;
