//! Where the user's per-machine data goes: the cache directory of each system; and where the
//! machine's managed policy for claude lives.
//!
//! Linux and other Unix: `$XDG_CACHE_HOME`, else `~/.cache`; macOS: `~/Library/Caches` (an
//! explicit `$XDG_CACHE_HOME` wins there too); Windows: `%LOCALAPPDATA%`.

use std::path::PathBuf;

/// The user's cache directory, or `None` when the environment names none.
pub(crate) fn user_cache_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    if let Some(xdg) = var("XDG_CACHE_HOME") {
        return Some(xdg);
    }
    imp::default_cache_dir(var)
}

/// The user's home directory (`$HOME`; `%USERPROFILE%` on Windows), as claude expands `~`.
pub(crate) fn home_dir() -> Option<PathBuf> {
    std::env::var_os(imp::HOME_VAR)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

/// `path` with a leading `~` or `~/` made the home directory, as claude's file tools take it.
pub(crate) fn expand_home(path: &str) -> PathBuf {
    let rest = match path.strip_prefix('~') {
        Some("") => Some(""),
        Some(rest) if rest.starts_with('/') || rest.starts_with(std::path::MAIN_SEPARATOR) => {
            Some(&rest[1..])
        }
        _ => None,
    };
    match (rest, home_dir()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(path),
    }
}

/// claude's managed policy files on this machine: `managed-settings.json` in the system's
/// policy directory and the files of its `managed-settings.d` (in name order).
pub(crate) fn managed_settings_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(imp::POLICY_DIR);
    let mut files = vec![dir.join("managed-settings.json")];
    if let Ok(entries) = std::fs::read_dir(dir.join("managed-settings.d")) {
        let mut more: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        more.sort();
        files.extend(more);
    }
    files
}

#[cfg(all(unix, not(target_os = "macos")))]
mod imp {
    use std::path::PathBuf;

    pub(crate) const POLICY_DIR: &str = "/etc/claude-code";
    pub(crate) const HOME_VAR: &str = "HOME";

    pub(crate) fn default_cache_dir(var: impl Fn(&str) -> Option<PathBuf>) -> Option<PathBuf> {
        var("HOME").map(|home| home.join(".cache"))
    }
}

#[cfg(target_os = "macos")]
mod imp {
    use std::path::PathBuf;

    pub(crate) const POLICY_DIR: &str = "/Library/Application Support/ClaudeCode";
    pub(crate) const HOME_VAR: &str = "HOME";

    pub(crate) fn default_cache_dir(var: impl Fn(&str) -> Option<PathBuf>) -> Option<PathBuf> {
        var("HOME").map(|home| home.join("Library").join("Caches"))
    }
}

#[cfg(windows)]
mod imp {
    use std::path::PathBuf;

    pub(crate) const POLICY_DIR: &str = r"C:\Program Files\ClaudeCode";
    pub(crate) const HOME_VAR: &str = "USERPROFILE";

    pub(crate) fn default_cache_dir(var: impl Fn(&str) -> Option<PathBuf>) -> Option<PathBuf> {
        var("LOCALAPPDATA")
    }
}
