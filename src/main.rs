//! The `claude-acp` binary: see the library for everything it does.

fn main() {}
