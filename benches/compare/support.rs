//! The mock API and the pinned claude of the integration tests, shared with the bench.
#![allow(dead_code, unused_imports)]

#[path = "../../tests/it/support/mock_api/mod.rs"]
pub mod mock_api;
// Network namespaces are Linux's; elsewhere the mock API runs on the host's loopback.
#[cfg(target_os = "linux")]
#[path = "../../tests/it/support/netns.rs"]
pub mod netns;
#[cfg(not(target_os = "linux"))]
#[path = "../../tests/it/support/netns_unavailable.rs"]
pub mod netns;
#[path = "../../tests/it/support/real_cli.rs"]
pub mod real_cli;
