//! The editor side driven by arbitrary bytes, for `crate::fuzzing`: the real transport (line cap,
//! UTF-8 check) and the SDK's parsing and dispatch, over a core given by the caller; and the
//! check that every update the translation makes is one the editor's SDK can read back.

use std::io::Cursor;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema as acp;
use serde_json::Value;
use tokio::io::AsyncReadExt;

use super::connection::{Connection, serve};
use super::shared::to_proto;
use super::transport::Transport;
use crate::domain::{AgentCore, SessionUpdate};

/// The id of the request appended after the fuzzer's bytes: it must still be answered.
pub(crate) const PROBE_ID: &str = "claude-acp-fuzz-probe";

/// Everything the adapter wrote to the editor after reading `bytes` as its stdin, then one more
/// line (a well-formed `initialize` with id [`PROBE_ID`], asking for ACP v2 in a form v1 reads
/// too, so that it is answered whichever version the bytes negotiated), as JSON values; a line
/// that is not JSON is returned as a string.
pub(crate) fn serve_bytes(core: Arc<dyn AgentCore>, bytes: &[u8]) -> Vec<Value> {
    let mut input = bytes.to_vec();
    // Ends whatever line the fuzzer left open, so the probe is a line of its own.
    input.push(b'\n');
    let probe = serde_json::json!({
        "jsonrpc": "2.0", "id": PROBE_ID, "method": "initialize",
        "params": {
            "protocolVersion": 2,
            "info": {"name": "probe", "version": "1"},
            "clientCapabilities": {},
        },
    });
    input.extend_from_slice(probe.to_string().as_bytes());
    input.push(b'\n');

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let written = Arc::new(Mutex::new(Vec::new()));
    runtime.block_on({
        let written = written.clone();
        async move {
            let (ours, mut theirs) = tokio::io::duplex(64 * 1024);
            tokio::spawn(async move {
                let mut chunk = vec![0; 64 * 1024];
                while let Ok(n @ 1..) = theirs.read(&mut chunk).await {
                    written.lock().unwrap().extend_from_slice(&chunk[..n]);
                }
            });
            let transport = Transport::new(Cursor::new(input), ours);
            let _ = serve(core, Connection::new(transport), super::Protocol::Auto).await;
            // Replies answered from tasks, and the writer: no I/O is real, so a few rounds
            // of the single-threaded scheduler finish them.
            for _ in 0..256 {
                tokio::task::yield_now().await;
            }
        }
    });
    drop(runtime);
    let written = std::mem::take(&mut *written.lock().unwrap());
    written
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| {
            serde_json::from_slice(line)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(line).into_owned()))
        })
        .collect()
}

/// Panics unless `update`, as the `session/update` notification the editor gets, reads back as
/// one with the SDK's own types.
pub(crate) fn check_update_reads_back(update: SessionUpdate) {
    let note = acp::SessionNotification::new("s".to_owned(), to_proto::session_update(update));
    let text = serde_json::to_string(&note).expect("a session update serialises");
    if let Err(error) = serde_json::from_str::<acp::SessionNotification>(&text) {
        panic!("the editor cannot read this session/update ({error}): {text}");
    }
}
