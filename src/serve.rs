//! The adapter's main job: serve ACP on stdio until the editor goes, then leave no claude behind.

use std::sync::Arc;
use std::time::Duration;

use crate::acp::{self, Connection};
use crate::claude::wire::remove_stale_config_files;
use crate::claude::{kill_all_children, locate};
use crate::domain::AgentCore;
use crate::permissions::PermissionTransport;
use crate::platform;
use crate::session::Sessions;
use crate::session::config::AdapterConfig;

/// How long sessions get to end cleanly once the editor has gone.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(1500);

pub async fn run(
    claude_path: Option<&std::path::Path>,
    transport: PermissionTransport,
    idle_timeout: Option<Duration>,
    protocol: crate::Protocol,
) -> i32 {
    let claude = locate::locate(claude_path).map_err(|e| e.to_string());
    if let Err(e) = &claude {
        tracing::warn!("{e}");
    }
    start_reaper();
    let mut config = AdapterConfig::from_env(claude, transport);
    config.idle_timeout = idle_timeout;
    // Off the path to `initialize`: a directory scan must not delay the editor.
    tokio::task::spawn_blocking(|| remove_stale_config_files(&platform::files::private_dir()));
    let connection = Connection::stdio();
    let sessions = Sessions::new(config, connection.editor());
    let core: Arc<dyn AgentCore> = sessions.clone();

    let code = tokio::select! {
        result = acp::serve(core.clone(), connection, protocol) => {
            if let Err(e) = result {
                tracing::info!("ACP connection ended: {e}");
            }
            0
        }
        signal = platform::signals::termination() => {
            tracing::info!("{}: stopping every claude", signal.name);
            kill_all_children();
            signal.exit_code
        }
    };
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, core.shutdown()).await;
    kill_all_children();
    code
}

/// Starts the helper that kills claude's children if this process is killed outright.
fn start_reaper() {
    let started = std::env::current_exe().and_then(|exe| platform::process::start_reaper(&exe));
    if let Err(error) = started {
        tracing::warn!(%error, "cannot start the reaper: a killed adapter may leave claude's children running");
    }
}
