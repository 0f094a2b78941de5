//! The stand-in's login state, so tests can play `logout` then a prompt: `claude auth logout` leaves
//! a marker in claude's config dir, and a stand-in started while it is there plays
//! `not_logged_in.jsonl` (next to its script) instead of its script, as claude without a login does.

use std::path::{Path, PathBuf};

/// The marker file `auth logout` writes.
const LOGGED_OUT_MARKER: &str = ".standin-logged-out";

fn marker() -> Option<PathBuf> {
    crate::claude::config_dir::default_config_dir().map(|dir| dir.join(LOGGED_OUT_MARKER))
}

/// Handles `auth logout` among claude's args: returns the exit code when it did.
pub(crate) fn handle_auth(claude_args: &[String]) -> Option<i32> {
    if claude_args.first().map(String::as_str) != Some("auth") {
        return None;
    }
    if claude_args.get(1).map(String::as_str) != Some("logout") {
        eprintln!("standin: only `auth logout` is played");
        return Some(1);
    }
    let Some(marker) = marker() else {
        eprintln!("standin: neither CLAUDE_CONFIG_DIR nor HOME is set");
        return Some(1);
    };
    if let Some(dir) = marker.parent() {
        let _ = std::fs::create_dir_all(dir);
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
