//! How this adapter process was configured: where claude is and how sessions start it, and what
//! it offers the editor.

use std::path::PathBuf;
use std::sync::Arc;

use crate::claude::launch::{Launch, ProcessLauncher};
use crate::claude::locate::ClaudeCommand;
use crate::domain::AgentFeatures;
use crate::permissions::PermissionTransport;
use crate::session::options_cache::{OPTIONS_WAIT, OptionsCache};

/// Settings shared by every session of this adapter process.
#[derive(Debug, Clone)]
pub(crate) struct AdapterConfig {
    /// The claude to run, or why none was found (reported at the first `session/new`).
    pub(crate) claude: Result<ClaudeCommand, String>,
    pub(crate) permission_transport: PermissionTransport,
    /// Where claude keeps its transcripts (`CLAUDE_CONFIG_DIR` or `~/.claude`).
    pub(crate) claude_config_dir: Option<PathBuf>,
    /// Whether claude accepts bypassPermissions here (not as root unless IS_SANDBOX is set).
    pub(crate) allow_bypass_permissions: bool,
    /// How sessions start claude: a child process, except in tests that run it in-process.
    pub(crate) launcher: Arc<dyn Launch>,
    /// How long a session's claude may sit idle before it is stopped (`None`: never).
    pub(crate) idle_timeout: Option<std::time::Duration>,
    /// The models claude offered last time, so `session/new` answers with them at once.
    pub(crate) options_cache: Arc<OptionsCache>,
    /// How long the first session with nothing cached may wait for claude's models.
    pub(crate) options_wait: std::time::Duration,
    /// The editor's gateway, once `authenticate` set one: every claude started after it uses it.
    pub(crate) route: Arc<crate::auth::Route>,
}

impl AdapterConfig {
    /// Reads what depends on the environment of this process.
    pub(crate) fn from_env(
        claude: Result<ClaudeCommand, String>,
        permission_transport: PermissionTransport,
    ) -> Self {
        let claude_config_dir = crate::claude::config_dir::default_config_dir();
        let is_root = crate::platform::process::running_as_root();
        let allow_bypass_permissions = !is_root || std::env::var_os("IS_SANDBOX").is_some();
        Self {
            claude,
            permission_transport,
            claude_config_dir,
            allow_bypass_permissions,
            launcher: Arc::new(ProcessLauncher),
            idle_timeout: None,
            options_cache: Arc::new(OptionsCache::from_env()),
            options_wait: options_wait_from_env(),
            route: Arc::default(),
        }
    }
}

/// The wait for claude's models: [`OPTIONS_WAIT`], unless `CLAUDE_ACP_OPTIONS_WAIT_MS` (hidden,
/// for tests on a loaded machine, where a stand-in may take longer to answer) says otherwise.
fn options_wait_from_env() -> std::time::Duration {
    std::env::var("CLAUDE_ACP_OPTIONS_WAIT_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(OPTIONS_WAIT, std::time::Duration::from_millis)
}

/// What this adapter offers the editor (`initialize`).
pub(crate) fn features() -> AgentFeatures {
    AgentFeatures {
        load_session: true,
        mcp_http: true,
        mcp_sse: true,
        mcp_acp: true,
        list_sessions: true,
        resume_session: true,
        fork_session: true,
        close_session: true,
        delete_session: true,
        session_title: true,
        session_status: true,
        session_options: true,
        session_archive: true,
        additional_directories: true,
        logout: true,
        system_prompt: true,
        prompt_queueing: true,
        steering: true,
        providers: true,
        auth_methods: crate::auth::offered(crate::claude::install::has_key()),
        auth_status: None,
    }
}
