//! `claude-acp doctor`: names the claude it found and its version against the tested range, says
//! whether there is a login or key, and exits non-zero when something is wrong.

use crate::support::real_cli::{
    CLAUDE_CODE_VERSION, MIDDLE_VERSION, OLDEST_VERSION, PREVIOUS_VERSION, claude_binary_of,
};
use crate::support::standin::Standin;

fn doctor(args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let mut cmd = std::process::Command::new(crate::support::adapter());
    cmd.env_clear()
        .env("PATH", "/usr/bin:/bin")
        .arg("doctor")
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("doctor runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn a_working_claude_with_a_key_is_reported_fine() {
    let s = Standin::new("text");
    let home = s.dir().to_str().unwrap();
    let (code, out) = doctor(
        &["--claude-path", s.claude.to_str().unwrap()],
        &[
            s.env().as_slice(),
            &[("HOME", home), ("ANTHROPIC_API_KEY", "sk-ant-test")],
        ]
        .concat(),
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(&s.claude.display().to_string()),
        "names the claude it found: {out}"
    );
    assert!(
        out.contains(CLAUDE_CODE_VERSION) && out.contains("tested"),
        "{out}"
    );
    assert!(out.contains("API key"), "{out}");
    assert!(!out.contains("sk-ant-test"), "never prints the key: {out}");
}

#[test]
fn no_claude_is_a_failure_that_says_how_to_install() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = doctor(&[], &[("HOME", dir.path().to_str().unwrap())]);
    assert_ne!(code, 0);
    assert!(out.contains("npm install"), "{out}");
    assert!(out.contains("no API key and no stored login"), "{out}");
}

#[test]
fn login_runs_claudes_own_login() {
    let s = Standin::new("text");
    let out = std::process::Command::new(crate::support::adapter())
        .args(["login", "--claude-path", s.claude.to_str().unwrap()])
        .envs(s.env())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("login runs");
    assert!(out.status.success());
    let argv = s.argvs();
    assert_eq!(argv.len(), 1);
    assert_eq!(
        argv[0],
        vec!["/login".to_owned()],
        "claude was started as `claude /login`"
    );
}

/// A `claude` that only answers `--version`, with `version`.
fn claude_reporting(dir: &std::path::Path, version: &str) -> std::path::PathBuf {
    let path = dir.join("claude");
    std::fs::write(
        &path,
        format!("#!/bin/sh\necho '{version} (Claude Code)'\n"),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    path
}

/// claude updates itself: a release newer than the tested range is what users run days after it
/// ships. doctor names it and passes.
#[test]
fn a_claude_newer_than_the_tested_range_is_named_and_fine() {
    let dir = tempfile::tempdir().unwrap();
    let claude = claude_reporting(dir.path(), "2.1.999");
    let (code, out) = doctor(
        &["--claude-path", claude.to_str().unwrap()],
        &[
            ("HOME", dir.path().to_str().unwrap()),
            ("ANTHROPIC_API_KEY", "k"),
        ],
    );
    assert_eq!(code, 0, "{out}");
    let expected = format!(
        "✓ version: 2.1.999 (Claude Code) (newer than the tested {OLDEST_VERSION} to {CLAUDE_CODE_VERSION})"
    );
    assert!(out.contains(&expected), "{out}");
}

#[test]
fn a_claude_older_than_the_tested_range_is_too_old_and_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let claude = claude_reporting(dir.path(), "2.1.149");
    let (code, out) = doctor(
        &["--claude-path", claude.to_str().unwrap()],
        &[
            ("HOME", dir.path().to_str().unwrap()),
            ("ANTHROPIC_API_KEY", "k"),
        ],
    );
    assert_ne!(code, 0, "{out}");
    assert!(
        out.contains("too old") && out.contains("update claude"),
        "{out}"
    );
}

#[test]
fn the_older_claudes_ci_runs_are_in_the_tested_range() {
    let dir = tempfile::tempdir().unwrap();
    for version in [OLDEST_VERSION, MIDDLE_VERSION, PREVIOUS_VERSION] {
        let claude = claude_binary_of(version);
        let (code, out) = doctor(
            &["--claude-path", claude.to_str().unwrap()],
            &[
                ("HOME", dir.path().to_str().unwrap()),
                ("ANTHROPIC_API_KEY", "k"),
            ],
        );
        assert_eq!(code, 0, "{out}");
        let expected = format!(
            "✓ version: {version} (Claude Code) (tested: {OLDEST_VERSION} to {CLAUDE_CODE_VERSION})"
        );
        assert!(out.contains(&expected), "{out}");
    }
}
