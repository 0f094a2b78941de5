//! The one integration-test binary: the built `claude-acp` and its library driven from outside.
//!
//! Modules by backend, then subject: `standin/` runs the adapter on the replay stand-in for claude
//! (fast, every run), `real_cli/` runs the pinned real claude CLI against the mock Anthropic API,
//! `clients/` drives the adapter from other clients (the SDK client, the demo). Everything shared
//! lives in `support/`.

// Unix: the tests start `sh` scripts and send Unix signals (Windows runs a chosen set of them
// against claude-acp.exe from Linux, `.ci/windows`). The ones that read /proc, through
// `support/procs.rs`, are `cfg(target_os = "linux")`; the rest build for macOS too.
#![cfg(unix)]

mod clients;
mod real_cli;
mod standin;
mod support;
mod tidy;
