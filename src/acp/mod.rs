//! The editor side: ACP over stdio through the official SDK. The only module that imports it.

mod client;
mod errors;
mod from_proto;
mod server;
mod to_proto;
mod transport;

pub use client::AcpEditor;
pub use server::serve_stdio;
