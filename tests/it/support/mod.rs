//! Shared support for the integration tests: a scripted ACP client that drives the
//! built binary, process-table helpers, a scripted mock Anthropic API, the pinned real claude CLI with
//! an isolated per-test environment, and a driver for claude's stream-json stdio.

// Each test crate uses only part of the support code.
#![allow(dead_code, unused_imports)]

/// The claude-acp the tests drive: the one cargo built, or `CLAUDE_ACP_TEST_ADAPTER` (an absolute
/// path), so that a build for another target runs the same tests (`.ci/aarch64`: an aarch64 build
/// run under qemu-user).
pub fn adapter() -> &'static str {
    static ADAPTER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ADAPTER.get_or_init(|| match std::env::var("CLAUDE_ACP_TEST_ADAPTER") {
        Ok(path) if !path.is_empty() => path,
        _ => env!("CARGO_BIN_EXE_claude-acp").to_owned(),
    })
}

/// How many times longer than the tests' own limits a waiting client gives the adapter:
/// `CLAUDE_ACP_TEST_SLOWDOWN` (a whole number, default 1), for builds run under emulation
/// (`.ci/aarch64` sets 4: a debug build under qemu-user on two cores). Limits are not speed checks.
pub fn slowdown() -> u32 {
    static SLOWDOWN: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *SLOWDOWN.get_or_init(|| {
        std::env::var("CLAUDE_ACP_TEST_SLOWDOWN")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&n| n >= 1)
            .unwrap_or(1)
    })
}

pub mod acp_client;
pub mod argv;
pub mod editor_buffers;
pub mod editor_terminals;
pub mod history;
pub mod json_schema;
pub mod mcp;
pub mod mock_api;
// Network namespaces are Linux's; elsewhere the tests use the host's loopback.
#[cfg(target_os = "linux")]
pub mod netns;
#[cfg(not(target_os = "linux"))]
#[path = "netns_unavailable.rs"]
pub mod netns;
pub mod procs;
pub mod raw_editor;
pub mod real_cli;
pub mod real_editor;
pub mod real_session;
pub mod session_end;
pub mod standin;
pub mod stream_json;

/// One test per claude CI runs (the oldest, the middle and the pinned version) for each
/// `name => scenario`, where `scenario` is an async function or closure taking the version
/// (`&'static str`): `name::oldest`, `name::middle`, `name::pinned`. The scenarios that matter most
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
            async fn pinned() {
                ($scenario)($crate::support::real_cli::scenario_versions()[2]).await;
            }
        }
    )+};
}
