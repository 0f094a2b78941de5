//! What an editor declares at `initialize` past the pinned SDK reaches the sessions: the
//! connection served in either version, through the SDK's dispatch.

use std::io::Cursor;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::acp::Protocol;
use crate::acp::connection::{Connection, serve};
use crate::acp::transport::Transport;
use crate::domain::EditorClient as _;
use crate::fuzzing::InstantCore;

/// What the sessions see of an editor that sent `initialize` with `params`, under `protocol`:
/// (prompt suggestions, skill commands, cursors).
fn declared(protocol: Protocol, params: Value) -> (bool, bool, bool) {
    let line = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params});
    let input = format!("{line}\n").into_bytes();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let (ours, _theirs) = tokio::io::duplex(64 * 1024);
        let connection = Connection::new(Transport::new(Cursor::new(input), ours));
        let editor = connection.editor();
        let _ = serve(Arc::new(InstantCore), connection, protocol).await;
        (
            editor.supports_prompt_suggestions(),
            editor.supports_skill_commands(),
            editor.supports_cursors(),
        )
    })
}

#[test]
fn the_capabilities_the_sdk_drops_reach_the_sessions_in_both_versions() {
    let v1 = json!({"protocolVersion": 1, "clientCapabilities": {"session": {
        "promptSuggestions": {}, "cursors": {}}}});
    let v2 = json!({"protocolVersion": 2, "info": {"name": "e", "version": "1"},
        "capabilities": {"session": {"promptSuggestions": {}, "commands": {"skill": {}}}}});
    for protocol in [Protocol::Auto, Protocol::V1] {
        assert_eq!(declared(protocol, v1.clone()), (true, false, true));
    }
    for protocol in [Protocol::Auto, Protocol::V2] {
        // 1.20's v2 has cursors for every editor.
        assert_eq!(declared(protocol, v2.clone()), (true, true, true));
    }
    let bare = json!({"protocolVersion": 1, "clientCapabilities": {"session": {}}});
    assert_eq!(declared(Protocol::Auto, bare), (false, false, false));
}
