//! The adapter's main job: serve ACP on stdio until the editor goes, then leave no claude behind.

use std::sync::Arc;
use std::time::Duration;

use crate::acp::{AcpEditor, serve_stdio};
use crate::claude::{kill_all_children, locate};
use crate::domain::AgentCore;
use crate::mcp::remove_stale_config_files;
use crate::session::Sessions;
use crate::session::config::{AdapterConfig, PermissionTransport};

/// How long sessions get to end cleanly once the editor has gone.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(1500);

pub async fn run(
    claude_path: Option<&std::path::Path>,
    transport: PermissionTransport,
    idle_timeout: Option<Duration>,
) -> i32 {
    let claude = locate::locate(claude_path).map_err(|e| e.to_string());
    if let Err(e) = &claude {
        tracing::warn!("{e}");
    }
    let mut config = AdapterConfig::from_env(claude, transport);
    config.idle_timeout = idle_timeout;
    // Off the path to `initialize`: a directory scan must not delay the editor.
    tokio::task::spawn_blocking(|| remove_stale_config_files(&std::env::temp_dir()));
    let editor = AcpEditor::new();
    let sessions = Sessions::new(config, editor.clone());
    let core: Arc<dyn AgentCore> = sessions.clone();

    let code = tokio::select! {
        result = serve_stdio(core.clone(), editor) => {
            if let Err(e) = result {
                tracing::warn!("ACP connection ended: {e}");
            }
            0
        }
        signal = termination_signal() => {
            tracing::info!("{signal}: stopping every claude");
            kill_all_children();
            // The conventional exit status for death by signal.
            128 + if signal == "SIGINT" { 2 } else { 15 }
        }
    };
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, core.shutdown()).await;
    kill_all_children();
    code
}

async fn termination_signal() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
    }
}
