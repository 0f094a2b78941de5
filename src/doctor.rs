//! `claude-acp doctor` and `claude-acp login`: check and fix the claude installation.

use std::path::Path;
use std::process::Stdio;

use crate::claude::locate;
use crate::history::default_config_dir;

/// The claude versions CI runs the real-CLI scenarios against, oldest first. The last is the one
/// the whole test suite pins: bumping it is this one line.
pub const CI_CLAUDE_VERSIONS: [&str; 3] = ["2.1.150", "2.1.250", "2.1.332"];

/// The range the test suite has verified this adapter against: the oldest to the newest CI runs.
pub const TESTED_CLAUDE_VERSIONS: (&str, &str) = (
    CI_CLAUDE_VERSIONS[0],
    CI_CLAUDE_VERSIONS[CI_CLAUDE_VERSIONS.len() - 1],
);

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
fn has_key() -> bool {
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

pub async fn run(claude_path: Option<&Path>) -> i32 {
    let mut problems = 0;
    println!("claude-acp {}", env!("CARGO_PKG_VERSION"));
    match locate::locate(claude_path) {
        Err(e) => {
            println!("✗ claude: {e}");
            problems += 1;
        }
        Ok(cmd) => {
            println!("✓ claude: {}", cmd.program.display());
            let out = tokio::process::Command::new(&cmd.program)
                .args(&cmd.prefix_args)
                .arg("--version")
                .stdin(Stdio::null())
                .output()
                .await;
            match out {
                Ok(o) if o.status.success() => {
                    let v = String::from_utf8_lossy(&o.stdout).trim().to_owned();
                    if version_is_tested(&v) {
                        println!(
                            "✓ version: {v} (tested: {} to {})",
                            TESTED_CLAUDE_VERSIONS.0, TESTED_CLAUDE_VERSIONS.1
                        );
                    } else {
                        println!(
                            "! version: {v} is outside the tested range {} to {}; it may work, report problems",
                            TESTED_CLAUDE_VERSIONS.0, TESTED_CLAUDE_VERSIONS.1
                        );
                    }
                }
                Ok(o) => {
                    println!("✗ `claude --version` failed ({})", o.status);
                    problems += 1;
                }
                Err(e) => {
                    println!("✗ cannot run claude: {e}");
                    problems += 1;
                }
            }
        }
    }
    if has_key() {
        println!("✓ auth: an API key or token is set in the environment");
    } else if has_credentials() {
        println!(
            "✓ auth: logged in (credentials in {})",
            default_config_dir().unwrap_or_default().display()
        );
    } else {
        println!(
            "! auth: no API key and no stored login found; run `claude-acp login` (or set ANTHROPIC_API_KEY)"
        );
    }
    println!(
        "  editor configs: see editors/ in the claude-acp repository (Zed, Neovim, Emacs, JetBrains, Toad, acpx)"
    );
    if problems > 0 { 1 } else { 0 }
}

pub async fn login(claude_path: Option<&Path>) -> i32 {
    let cmd = match locate::locate(claude_path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let status = tokio::process::Command::new(&cmd.program)
        .args(&cmd.prefix_args)
        .arg("/login")
        .status()
        .await;
    match status {
        Ok(s) => s.code().unwrap_or(1),
        Err(e) => {
            eprintln!("cannot run claude: {e}");
            1
        }
    }
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
