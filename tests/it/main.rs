//! The one integration-test binary: the built `claude-acp` and its library driven from outside.
//!
//! Modules by backend, then subject: `standin/` runs the adapter on the replay stand-in for claude
//! (fast, every run), `real_cli/` runs the pinned real claude CLI against the mock Anthropic API,
//! `clients/` drives the adapter from other clients (the SDK client, the demo). Everything shared
//! lives in `support/`.

// Every test drives the adapter through `sh` wrappers and reads the process table from /proc: these
// run on Unix (all of them on Linux). On Windows the library's unit tests are what runs.
#![cfg(unix)]

mod clients;
mod real_cli;
mod standin;
mod support;
mod tidy;
