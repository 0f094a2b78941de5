//! The editor's stdin: our ACP transport's framing, the SDK's parsing and the request handlers.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| claude_acp::fuzzing::editor_stdin(bytes));
