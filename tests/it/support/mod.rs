//! Shared support for the integration tests: a scripted ACP client that drives the
//! built binary, process-table helpers, a scripted mock Anthropic API, the pinned real claude CLI with
//! an isolated per-test environment, and a driver for claude's stream-json stdio.

// Each test crate uses only part of the support code.
#![allow(dead_code, unused_imports)]

pub mod acp_client;
// The adapter under test and how long a waiting client gives it live with the client, which the
// benches share (`benches/shared/`).
pub use acp_client::{adapter, slowdown};
pub mod argv;
pub mod editor_buffers;
pub mod editor_terminals;
pub mod history;
pub mod json_schema;
pub mod liveness;
pub mod mcp;
pub mod mock_api;
// Network namespaces are Linux's; elsewhere the tests use the host's loopback.
#[cfg(target_os = "linux")]
pub mod netns;
#[cfg(not(target_os = "linux"))]
#[path = "netns_unavailable.rs"]
pub mod netns;
// The process table is read from /proc, which is Linux's: what needs it is Linux-only too (the
// compiler finds every use when the tests are checked for macOS; `tidy.rs` keeps /proc here).
#[cfg(target_os = "linux")]
pub mod procs;
pub mod raw_editor;
pub mod real_cli;
pub mod real_editor;
pub mod real_session;
#[cfg(target_os = "linux")]
pub mod session_end;
pub mod standin;
pub mod stream_json;
pub mod tmux;
pub mod v2_schema;

/// One test per claude CI runs (the oldest, the middle, the previous and the pinned version) for each
/// `name => scenario`, where `scenario` is an async function or closure taking the version
/// (`&'static str`): `name::oldest`, `name::middle`, `name::previous`, `name::pinned`. The scenarios that matter most
/// run this way; the rest of the suite runs on the pinned claude only.
#[macro_export]
macro_rules! on_each_claude {
    ($($name:ident => $scenario:expr;)+) => {$(
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[tokio::test]
            async fn oldest() {
                ($scenario)($crate::support::real_cli::scenario_versions()[0]).await;
            }

            #[tokio::test]
            async fn middle() {
                ($scenario)($crate::support::real_cli::scenario_versions()[1]).await;
            }

            #[tokio::test]
            async fn previous() {
                ($scenario)($crate::support::real_cli::scenario_versions()[2]).await;
            }

            #[tokio::test]
            async fn pinned() {
                ($scenario)($crate::support::real_cli::scenario_versions()[3]).await;
            }
        }
    )+};
}
