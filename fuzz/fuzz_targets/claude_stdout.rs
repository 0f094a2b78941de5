//! claude's stdout: the stream-json reader, parser and translation to the editor's updates.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| claude_acp::fuzzing::claude_stdout(bytes));
