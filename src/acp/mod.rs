//! The editor side: ACP over stdio through the official SDK. The only module that imports it.

mod client;
mod errors;
mod from_proto;
mod server;
mod to_proto;

#[cfg(test)]
mod conformance_tests;

pub use client::AcpEditor;
pub use server::serve_stdio;
