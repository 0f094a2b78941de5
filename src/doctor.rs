//! `claude-acp doctor` and `claude-acp login`: check and fix the claude installation.

use std::path::Path;
use std::process::Stdio;

use crate::claude::auth::LoginKind;
use crate::claude::config_dir::default_config_dir;
use crate::claude::install::{
    TESTED_CLAUDE_VERSIONS, VersionFit, login_in_use, too_old_message, version_fit,
};
use crate::claude::locate;

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
                    match version_fit(&v) {
                        VersionFit::Tested => println!(
                            "✓ version: {v} (tested: {} to {})",
                            TESTED_CLAUDE_VERSIONS.0, TESTED_CLAUDE_VERSIONS.1
                        ),
                        VersionFit::TooOld => {
                            println!("✗ version: {}", too_old_message(&v));
                            problems += 1;
                        }
                        VersionFit::Untested => println!(
                            "✓ version: {v} (newer than the tested {} to {})",
                            TESTED_CLAUDE_VERSIONS.0, TESTED_CLAUDE_VERSIONS.1
                        ),
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
    // The same report `initialize` gives editors in `_meta.claudeCode.auth`.
    let login = login_in_use();
    let email = login
        .email
        .as_deref()
        .map(|e| format!(", {e}"))
        .unwrap_or_default();
    if login.logged_in {
        println!("✓ auth: {}{email}", login.summary);
    } else {
        println!(
            "! auth: {} (no API key and no stored login in {}); run `claude-acp login` \
             (`--claudeai`, `--console` or `--sso` to pick), or set ANTHROPIC_API_KEY",
            login.summary,
            default_config_dir().unwrap_or_default().display()
        );
    }
    println!(
        "  editor configs: see editors/ in the claude-acp repository (Zed, Neovim, Emacs, JetBrains, Toad, acpx)"
    );
    if problems > 0 { 1 } else { 0 }
}

/// `claude-acp login [--claudeai | --console | --sso]`: claude's own login in this terminal.
pub async fn login(claude_path: Option<&Path>, claudeai: bool, console: bool, sso: bool) -> i32 {
    let kind = if claudeai {
        LoginKind::Subscription
    } else if console {
        LoginKind::Console
    } else if sso {
        LoginKind::Sso
    } else {
        LoginKind::Screen
    };
    let cmd = match locate::locate(claude_path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let status = tokio::process::Command::new(&cmd.program)
        .args(&cmd.prefix_args)
        .args(kind.claude_args())
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
