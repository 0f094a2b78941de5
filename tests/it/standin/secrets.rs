//! A fake API key and e-mail seeded everywhere a user could put one (the adapter's environment,
//! `_meta` options: MCP headers, settings, agents and env; the editor's MCP servers: HTTP headers
//! and a stdio server's env; claude's initialize reply: a user's command and the account; its
//! stderr; lines of claude's it cannot read) reach no argv, no log line and no file others can
//! read; their masked forms do show up in the log, so the log still says what happened.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use crate::support::standin::Standin;
use serde_json::json;

const KEY: &str = "sk-ant-api03-TOPSECRETKEY0123456789";
const KEY_PART: &str = "TOPSECRETKEY";
const EMAIL: &str = "ada.lovelace@example.com";

/// Every file under `dir` that holds a secret, with its mode.
fn files_with_secrets(dir: &std::path::Path) -> Vec<(std::path::PathBuf, u32)> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_with_secrets(&path));
        } else if let Ok(text) = std::fs::read(&path) {
            let text = String::from_utf8_lossy(&text);
            if text.contains(KEY_PART) || text.contains(EMAIL) {
                let mode = entry.metadata().unwrap().permissions().mode();
                found.push((path, mode));
            }
        }
    }
    found
}

#[tokio::test]
async fn seeded_secrets_reach_no_argv_no_log_line_and_no_file_others_can_read() {
    let s = Standin::new("secrets_everywhere");
    let tmp = s.dir().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let log = s.dir().join("logs").join("adapter.log");
    std::fs::create_dir(log.parent().unwrap()).unwrap();
    let c = s.adapter_with_env(
        &["--log-file", log.to_str().unwrap()],
        &[
            ("RUST_LOG", "trace"),
            ("ANTHROPIC_API_KEY", KEY),
            ("TMPDIR", tmp.to_str().unwrap()),
        ],
    );
    c.initialize().await;
    let bearer = format!("Bearer {KEY}");
    let opened = c
        .request(
            "session/new",
            json!({
                "cwd": s.work,
                "mcpServers": [
                    {"type": "http", "name": "notes", "url": "http://127.0.0.1:9/mcp",
                        "headers": [{"name": "Authorization", "value": bearer}]},
                    {"name": "tickets", "command": "/bin/true", "args": [],
                        "env": [{"name": "TICKETS_TOKEN", "value": KEY},
                                {"name": "TICKETS_USER", "value": EMAIL}]},
                ],
                "_meta": {"claudeCode": {"options": {
                    "mcpServers": {"wiki": {"type": "http", "url": "http://127.0.0.1:9/wiki",
                        "headers": {"X-Key": KEY, "X-User": EMAIL}}},
                    "settings": {"env": {"ANTHROPIC_API_KEY": KEY}},
                    "agents": {"reviewer": {"description": EMAIL, "prompt": KEY}},
                    "env": {"ANTHROPIC_API_KEY": KEY, "GIT_AUTHOR_EMAIL": EMAIL},
                }}},
            }),
        )
        .await
        .expect("session/new");
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    s.wait_started(1, Duration::from_secs(10)).await;

    // No argv: claude's command line, readable by every local user, carries paths only (as the
    // stand-in received it).
    let argv = s.argvs()[0].join(" ");
    for secret in [KEY_PART, EMAIL] {
        assert!(
            !argv.contains(secret),
            "`{secret}` in claude's argv: {argv}"
        );
    }
    assert!(
        argv.contains("--settings") && argv.contains("--agents"),
        "{argv}"
    );
    // `_meta`'s env reaches claude's environment (readable by its owner alone, from /proc on
    // Linux), not its argv.
    #[cfg(target_os = "linux")]
    {
        let environ = crate::support::procs::environ(s.pids()[0]).unwrap();
        assert!(
            environ.contains(&format!("GIT_AUTHOR_EMAIL={EMAIL}")),
            "the env option reaches claude"
        );
    }
    // The files claude reads them from: its owner's alone, while it runs.
    let held = files_with_secrets(&tmp);
    assert!(
        held.len() >= 3,
        "settings, agents and MCP configs: {held:?}"
    );
    for (path, mode) in &held {
        assert_eq!(mode & 0o077, 0, "{} is readable by others", path.display());
    }

    // A result of odd shape still ends the turn, after lines the adapter could not read.
    let answer = c.prompt(&id, "say hello").await.expect("answered");
    assert_eq!(answer["stopReason"], "end_turn");
    c.close_stdin().await;
    c.wait_exit(Duration::from_secs(5)).await.expect("exited");

    // Gone with the session.
    assert_eq!(files_with_secrets(&tmp), vec![], "secret files left behind");
    // No log line holds them, though the log says what happened, masked.
    let mode = std::fs::metadata(&log).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "the log file is readable by others");
    let logged = std::fs::read_to_string(&log).unwrap();
    for secret in [KEY_PART, EMAIL] {
        let leaks: Vec<&str> = logged.lines().filter(|l| l.contains(secret)).collect();
        assert!(leaks.is_empty(), "`{secret}` logged: {leaks:#?}");
        assert!(!c.stderr_text().contains(secret), "`{secret}` on stderr");
    }
    assert!(
        logged.contains("sk-ant-[REDACTED]"),
        "the masked key is logged"
    );
    assert!(logged.contains("[EMAIL]"), "the masked e-mail is logged");
    assert!(
        logged.lines().all(|l| l.len() < 8 * 1024),
        "every log line is cut to a few KiB"
    );
}
