//! What is known about claude's installation without running it: the versions this adapter was
//! tested with, and whether claude has credentials to use. The session and `doctor` both ask here.

use crate::history::default_config_dir;

/// The claude versions the test suite has verified this adapter against.
pub const TESTED_CLAUDE_VERSIONS: (&str, &str) = ("2.1.332", "2.1.332");

/// Whether `version` ("2.1.332" or "2.1.332 (Claude Code)") is inside the tested range.
pub fn version_is_tested(version: &str) -> bool {
    let parse = |v: &str| -> Option<Vec<u64>> {
        v.split_whitespace()
            .next()?
            .split('.')
            .map(|p| p.parse().ok())
            .collect()
    };
    match (
        parse(version),
        parse(TESTED_CLAUDE_VERSIONS.0),
        parse(TESTED_CLAUDE_VERSIONS.1),
    ) {
        (Some(v), Some(lo), Some(hi)) => v >= lo && v <= hi,
        _ => false,
    }
}

/// Whether an API key or token for claude is set in the environment.
pub(crate) fn has_key() -> bool {
    let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
    set("ANTHROPIC_API_KEY") || set("ANTHROPIC_AUTH_TOKEN") || set("CLAUDE_CODE_OAUTH_TOKEN")
}

/// Whether claude has a way to authenticate: a key or token in the environment, or a stored login.
pub fn has_credentials() -> bool {
    has_key()
        || default_config_dir().is_some_and(|d| d.join(".credentials.json").exists())
        // macOS keeps claude's login in the Keychain, out of our sight: trust it there.
        || cfg!(target_os = "macos")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tested_range_is_compared_numerically() {
        assert!(version_is_tested("2.1.332 (Claude Code)"));
        assert!(!version_is_tested("2.1.40"));
        assert!(!version_is_tested("2.2.0"));
        assert!(!version_is_tested("garbage"));
    }
}
