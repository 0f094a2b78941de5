//! The stand-in's login state, so tests can play `logout` then a prompt: `claude auth logout` leaves
//! a marker in claude's config dir, and a stand-in started while it is there plays
//! `not_logged_in.jsonl` (next to its script) instead of its script, as claude without a login does.
//! `claude auth login --claudeai|--console|--sso` records the login (and clears the marker), or,
//! with `CLAUDE_STANDIN_LOGIN=abandon`, exits 1 changing nothing, as when the user closes the
//! browser; `claude auth status --json` prints what the pinned claude prints for that state (exit 1
//! when not logged in). Every `auth` command is logged as a `start` event with its argv.

use std::path::{Path, PathBuf};

/// The marker file `auth logout` writes.
const LOGGED_OUT_MARKER: &str = ".standin-logged-out";

fn marker() -> Option<PathBuf> {
    crate::claude::config_dir::default_config_dir().map(|dir| dir.join(LOGGED_OUT_MARKER))
}

/// The login `auth login` recorded: its kind (`claude.ai`, `console`).
const LOGIN_FILE: &str = ".standin-login";

/// Handles `auth ...` among claude's args: returns the exit code when it did.
pub(crate) fn handle_auth(claude_args: &[String]) -> Option<i32> {
    if claude_args.first().map(String::as_str) != Some("auth") {
        return None;
    }
    let log = super::runtime::EventLog {
        path: super::runtime::Runtime::from_env().log_path,
        pid: std::process::id(),
    };
    log.record(
        "start",
        super::runtime::fields(vec![("argv", serde_json::json!(claude_args))]),
    );
    match claude_args.get(1).map(String::as_str) {
        Some("logout") => {}
        Some("login") => return Some(log_in(claude_args)),
        Some("status") => return Some(status()),
        _ => {
            eprintln!("standin: only `auth login`, `auth logout` and `auth status` are played");
            return Some(1);
        }
    }
    let Some(marker) = marker() else {
        eprintln!("standin: neither CLAUDE_CONFIG_DIR nor HOME is set");
        return Some(1);
    };
    if let Some(dir) = marker.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Some(dir) = crate::claude::config_dir::default_config_dir() {
        let _ = std::fs::remove_file(dir.join(LOGIN_FILE));
    }
    match std::fs::write(&marker, "") {
        Ok(()) => {
            println!("Successfully logged out from your Anthropic account.");
            Some(0)
        }
        Err(e) => {
            eprintln!("standin: cannot write {}: {e}", marker.display());
            Some(1)
        }
    }
}

/// The script to play: `script`, or `not_logged_in.jsonl` beside it after a logout.
pub(crate) fn script_to_play(script: &str) -> PathBuf {
    let logged_out = marker().is_some_and(|m| m.exists());
    match Path::new(script).parent() {
        Some(dir) if logged_out => dir.join("not_logged_in.jsonl"),
        _ => PathBuf::from(script),
    }
}

fn log_in(claude_args: &[String]) -> i32 {
    let kind = if claude_args.iter().any(|a| a == "--console") {
        "console"
    } else {
        "claude.ai"
    };
    if std::env::var("CLAUDE_STANDIN_LOGIN").as_deref() == Ok("abandon") {
        eprintln!("Login cancelled.");
        return 1;
    }
    let Some(dir) = crate::claude::config_dir::default_config_dir() else {
        eprintln!("standin: neither CLAUDE_CONFIG_DIR nor HOME is set");
        return 1;
    };
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::remove_file(dir.join(LOGGED_OUT_MARKER));
    match std::fs::write(dir.join(LOGIN_FILE), kind) {
        Ok(()) => {
            println!("Login successful.");
            0
        }
        Err(e) => {
            eprintln!("standin: cannot write the login: {e}");
            1
        }
    }
}

fn status() -> i32 {
    let login = crate::claude::config_dir::default_config_dir()
        .and_then(|dir| std::fs::read_to_string(dir.join(LOGIN_FILE)).ok());
    let status = match &login {
        Some(kind) => serde_json::json!({"loggedIn": true, "authMethod": kind.trim(),
            "apiProvider": "firstParty", "email": "ada@example.com", "subscriptionType": "max"}),
        None => {
            serde_json::json!({"loggedIn": false, "authMethod": "none", "apiProvider": "firstParty"})
        }
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&status).unwrap_or_default()
    );
    if login.is_some() { 0 } else { 1 }
}
