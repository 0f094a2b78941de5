//! What is known about claude's installation without running it: the versions this adapter was
//! tested with, and whether claude has credentials to use. The session and `doctor` both ask here.

use super::config_dir::default_config_dir;
use crate::platform::os::Os;

/// The claude this adapter is written and tested against ("the pinned claude" in comments across
/// the code): the whole test suite runs on it, the stand-in and the fixtures show what it does,
/// and claude-acp's own copies of claude's tools and texts are captured from it. Bumping it is
/// this one line (and the README's "Tested with").
pub const PINNED_CLAUDE_VERSION: &str = "2.1.337";

/// The claude versions CI runs the real-CLI scenarios against, oldest first; the last is the
/// pinned one, and the one before it the pin before (npm's `@anthropic-ai/claude-code` release
/// when the pin is newer, only in the agent SDK's platform packages).
pub const CI_CLAUDE_VERSIONS: [&str; 4] = ["2.1.150", "2.1.250", "2.1.332", PINNED_CLAUDE_VERSION];

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

/// The login claude would use, read from the environment and claude's files without running
/// claude (so `initialize` can say it at once): the same order claude follows, a provider's
/// variables, then a key or token in the environment, then the stored login.
pub(crate) fn login_in_use() -> crate::domain::AuthStatusInfo {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let home = std::env::var_os(if Os::CURRENT == Os::Windows {
        "USERPROFILE"
    } else {
        "HOME"
    })
    .map(std::path::PathBuf::from);
    let config_dir = default_config_dir();
    let global = match var("CLAUDE_CONFIG_DIR") {
        Some(dir) => Some(std::path::PathBuf::from(dir).join(".claude.json")),
        None => home.map(|h| h.join(".claude.json")),
    };
    let read = |path: Option<std::path::PathBuf>| -> Option<serde_json::Value> {
        serde_json::from_slice(&std::fs::read(path?).ok()?).ok()
    };
    let oauth = read(config_dir.map(|d| d.join(".credentials.json")));
    let global = read(global);
    login_from(&var, oauth.as_ref(), global.as_ref())
}

/// [`login_in_use`]'s decision, from the variables and the two files' contents.
pub(crate) fn login_from(
    var: &dyn Fn(&str) -> Option<String>,
    credentials: Option<&serde_json::Value>,
    global_config: Option<&serde_json::Value>,
) -> crate::domain::AuthStatusInfo {
    use crate::domain::AuthStatusInfo;
    let status = |method: &str, provider: &str, summary: String| AuthStatusInfo {
        logged_in: method != "none",
        method: method.into(),
        provider: provider.into(),
        email: None,
        summary,
    };
    let on = |k: &str| var(k).is_some_and(|v| v != "0" && v != "false");
    if on("CLAUDE_CODE_USE_BEDROCK") {
        return status("third_party", "bedrock", "Amazon Bedrock".into());
    }
    if on("CLAUDE_CODE_USE_VERTEX") {
        return status("third_party", "vertex", "Google Vertex AI".into());
    }
    let gateway = var("ANTHROPIC_BASE_URL")
        .filter(|u| !u.starts_with("https://api.anthropic.com"))
        .map(|u| format!(" through {}", redact_url(&u)))
        .unwrap_or_default();
    if var("ANTHROPIC_AUTH_TOKEN").is_some() || var("CLAUDE_CODE_OAUTH_TOKEN").is_some() {
        return status(
            "oauth_token",
            "firstParty",
            format!("token from the environment{gateway}"),
        );
    }
    if var("ANTHROPIC_API_KEY").is_some() {
        return status(
            "api_key",
            "firstParty",
            format!("API key (ANTHROPIC_API_KEY){gateway}"),
        );
    }
    let email = global_config
        .and_then(|g| g.pointer("/oauthAccount/emailAddress"))
        .and_then(serde_json::Value::as_str)
        .map(super::redact::redact_secrets);
    if let Some(oauth) = credentials.and_then(|c| c.get("claudeAiOauth")) {
        let plan = oauth
            .get("subscriptionType")
            .and_then(serde_json::Value::as_str);
        let summary = match plan {
            Some(plan) => format!("Claude subscription ({plan})"),
            None => "Claude subscription".into(),
        };
        return AuthStatusInfo {
            email,
            ..status("claude.ai", "firstParty", summary)
        };
    }
    if global_config.and_then(|g| g.get("primaryApiKey")).is_some() {
        return AuthStatusInfo {
            email,
            ..status("console", "firstParty", "Anthropic Console".into())
        };
    }
    if Os::CURRENT == Os::MacOs {
        // The login is in the Keychain, out of our sight.
        return AuthStatusInfo {
            email,
            ..status(
                "keychain",
                "firstParty",
                "stored login (macOS Keychain)".into(),
            )
        };
    }
    status("none", "firstParty", "not logged in".into())
}

/// A gateway URL without what may be a secret in it (user info, query).
pub(crate) fn redact_url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host = host.rsplit('@').next().unwrap_or(host);
    if scheme.is_empty() {
        host.to_owned()
    } else {
        format!("{scheme}://{host}")
    }
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
    fn the_login_in_use_in_claude_s_order_with_the_e_mail_masked() {
        use serde_json::json;
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        let none = env(&[]);
        let subscription =
            json!({"claudeAiOauth": {"accessToken": "sk-ant-oat01-x", "subscriptionType": "max"}});
        let account = json!({"oauthAccount": {"emailAddress": "ada@example.com"}});
        let got = login_from(&none, Some(&subscription), Some(&account));
        assert_eq!(
            (
                got.method.as_str(),
                got.summary.as_str(),
                got.email.as_deref()
            ),
            ("claude.ai", "Claude subscription (max)", Some("[EMAIL]"))
        );
        let console =
            json!({"primaryApiKey": "sk-ant-api03-x", "oauthAccount": {"emailAddress": "b@c.io"}});
        assert_eq!(login_from(&none, None, Some(&console)).method, "console");
        let key = env(&[("ANTHROPIC_API_KEY", "sk-ant-api03-x")]);
        let got = login_from(&key, Some(&subscription), None);
        assert_eq!(
            (got.method.as_str(), got.email),
            ("api_key", None),
            "the key wins, as in claude"
        );
        let gateway = env(&[
            ("ANTHROPIC_AUTH_TOKEN", "t"),
            (
                "ANTHROPIC_BASE_URL",
                "https://user:pw@gw.example.com/v1?k=s",
            ),
        ]);
        assert_eq!(
            login_from(&gateway, None, None).summary,
            "token from the environment through https://gw.example.com"
        );
        let bedrock = env(&[("CLAUDE_CODE_USE_BEDROCK", "1"), ("ANTHROPIC_API_KEY", "k")]);
        assert_eq!(login_from(&bedrock, None, None).provider, "bedrock");
        if Os::CURRENT != Os::MacOs {
            let got = login_from(&none, None, None);
            assert!(!got.logged_in);
            assert_eq!(got.summary, "not logged in");
        }
    }

    #[test]
    fn only_a_version_below_the_range_is_too_old() {
        assert_eq!(version_fit("2.1.149 (Claude Code)"), VersionFit::TooOld);
        assert_eq!(version_fit("1.0.0"), VersionFit::TooOld);
        assert_eq!(version_fit("2.1.150"), VersionFit::Tested);
        assert_eq!(version_fit("2.1.337"), VersionFit::Tested);
        assert_eq!(version_fit("2.1.338"), VersionFit::Untested);
        assert_eq!(version_fit("garbage"), VersionFit::Untested);
    }
}
