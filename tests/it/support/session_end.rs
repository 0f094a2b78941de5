//! The ways a session ends, for the checks that nothing it started outlives it: the editor's
//! `session/close` or `session/delete`, its closing claude-acp's stdin, SIGTERM, SIGINT, SIGHUP,
//! and SIGKILL of claude-acp.

use std::time::Duration;

use serde_json::json;

use super::acp_client::AcpClient;
use super::procs;

/// How long after the end every process of the session's tree must be gone.
pub const GONE_WITHIN: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, Copy)]
pub enum End {
    Close,
    Delete,
    Eof,
    Sigterm,
    Sigint,
    Sighup,
    Sigkill,
}

impl End {
    /// Ends session `id` of the adapter `c` this way.
    pub async fn end(self, c: &AcpClient, id: &str) {
        match self {
            End::Close => {
                c.request("session/close", json!({"sessionId": id}))
                    .await
                    .unwrap_or_else(|e| panic!("session/close: {e}\n{}", c.diagnostics()));
            }
            End::Delete => {
                c.request("session/delete", json!({"sessionId": id}))
                    .await
                    .unwrap_or_else(|e| panic!("session/delete: {e}\n{}", c.diagnostics()));
            }
            End::Eof => c.close_stdin().await,
            End::Sigterm => c.signal(libc::SIGTERM),
            End::Sigint => c.signal(libc::SIGINT),
            End::Sighup => c.signal(libc::SIGHUP),
            End::Sigkill => c.signal(libc::SIGKILL),
        }
    }
}

/// Waits until no process of `tree` runs, killing what is left (so a failure leaves nothing
/// behind) and failing with it after [`GONE_WITHIN`].
pub async fn assert_tree_gone(tree: &[(u32, u64)], end: End, diagnostics: impl FnOnce() -> String) {
    if let Err(left) = procs::wait_tree_gone(tree, GONE_WITHIN).await {
        procs::kill_left(&left);
        panic!(
            "after {end:?}, {} of the session's {} processes still ran {GONE_WITHIN:?} later: {left:#?}\n{}",
            left.len(),
            tree.len(),
            diagnostics()
        );
    }
}
