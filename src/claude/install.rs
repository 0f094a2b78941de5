//! What is known about claude's installation without running it: the versions this adapter was
//! tested with, and whether claude has credentials to use. The session and `doctor` both ask here.

use crate::history::default_config_dir;
use crate::platform::os::Os;

/// The claude this adapter is written and tested against ("the pinned claude" in comments across
/// the code): the whole test suite runs on it, the stand-in and the fixtures show what it does,
/// and claude-acp's own copies of claude's tools and texts are captured from it. Bumping it is
/// this one line (and the README's "Tested with").
pub const PINNED_CLAUDE_VERSION: &str = "2.1.332";

/// The claude versions CI runs the real-CLI scenarios against, oldest first; the last is the
/// pinned one.
pub const CI_CLAUDE_VERSIONS: [&str; 3] = ["2.1.150", "2.1.250", PINNED_CLAUDE_VERSION];

/// The range the test suite has verified this adapter against: the oldest to the newest CI runs.
pub(crate) const TESTED_CLAUDE_VERSIONS: (&str, &str) = (
    CI_CLAUDE_VERSIONS[0],
    CI_CLAUDE_VERSIONS[CI_CLAUDE_VERSIONS.len() - 1],
);

/// Where a claude version stands against [`TESTED_CLAUDE_VERSIONS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VersionFit {
    Tested,
    /// Older than the oldest tested: the user should update claude.
    TooOld,
    /// Newer than the newest tested, or not a version number we can compare.
    Untested,
}

/// Where `version` ("2.1.250" or "2.1.250 (Claude Code)") stands against the tested range.
pub(crate) fn version_fit(version: &str) -> VersionFit {
    if version_is_tested(version) {
        VersionFit::Tested
    } else if version_is_older_than_tested(version) {
        VersionFit::TooOld
    } else {
        VersionFit::Untested
    }
}

/// What the log and `doctor` say about a claude older than the tested range.
pub(crate) fn too_old_message(version: &str) -> String {
    format!(
        "claude {version} is too old for claude-acp (the oldest tested is {}): update claude \
         (`claude update`, or `npm install -g @anthropic-ai/claude-code`)",
        TESTED_CLAUDE_VERSIONS.0
    )
}

fn version_is_older_than_tested(version: &str) -> bool {
    match (
        parse_version(version),
        parse_version(TESTED_CLAUDE_VERSIONS.0),
    ) {
        (Some(v), Some(lo)) => v < lo,
        _ => false,
    }
}

fn parse_version(version: &str) -> Option<Vec<u64>> {
    version
        .split_whitespace()
        .next()?
        .split('.')
        .map(|p| p.parse().ok())
        .collect()
}

/// Whether `version` ("2.1.250" or "2.1.250 (Claude Code)") is inside the tested range.
pub(crate) fn version_is_tested(version: &str) -> bool {
    match (
        parse_version(version),
        parse_version(TESTED_CLAUDE_VERSIONS.0),
        parse_version(TESTED_CLAUDE_VERSIONS.1),
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
pub(crate) fn has_credentials() -> bool {
    has_key()
        || default_config_dir().is_some_and(|d| d.join(".credentials.json").exists())
        // macOS keeps claude's login in the Keychain, out of our sight: trust it there.
        || Os::CURRENT == Os::MacOs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tested_range_is_compared_numerically() {
        assert!(version_is_tested("2.1.332 (Claude Code)"));
        assert!(version_is_tested("2.1.150"));
        assert!(version_is_tested("2.1.250 (Claude Code)"));
        assert!(!version_is_tested("2.1.40"));
        assert!(!version_is_tested("2.2.0"));
        assert!(!version_is_tested("garbage"));
    }

    #[test]
    fn only_a_version_below_the_range_is_too_old() {
        assert_eq!(version_fit("2.1.149 (Claude Code)"), VersionFit::TooOld);
        assert_eq!(version_fit("1.0.0"), VersionFit::TooOld);
        assert_eq!(version_fit("2.1.150"), VersionFit::Tested);
        assert_eq!(version_fit("2.1.333"), VersionFit::Untested);
        assert_eq!(version_fit("garbage"), VersionFit::Untested);
    }
}
