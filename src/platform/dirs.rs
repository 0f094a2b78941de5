//! Where the user's per-machine data goes: the cache directory of each system.
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

#[cfg(all(unix, not(target_os = "macos")))]
mod imp {
    use std::path::PathBuf;

    pub(crate) fn default_cache_dir(var: impl Fn(&str) -> Option<PathBuf>) -> Option<PathBuf> {
        var("HOME").map(|home| home.join(".cache"))
    }
}

#[cfg(target_os = "macos")]
mod imp {
    use std::path::PathBuf;

    pub(crate) fn default_cache_dir(var: impl Fn(&str) -> Option<PathBuf>) -> Option<PathBuf> {
        var("HOME").map(|home| home.join("Library").join("Caches"))
    }
}

#[cfg(windows)]
mod imp {
    use std::path::PathBuf;

    pub(crate) fn default_cache_dir(var: impl Fn(&str) -> Option<PathBuf>) -> Option<PathBuf> {
        var("LOCALAPPDATA")
    }
}
