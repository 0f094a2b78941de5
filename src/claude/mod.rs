//! The claude side: the `claude` CLI as a child process speaking stream-json.

pub mod wire;
