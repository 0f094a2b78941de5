//! Tests of the command-line surface: `run_cli`, `--version`, and the scripts played per start.

use super::run_text;
use crate::standin::*;
use std::path::Path;

#[test]
fn several_scripts_are_played_one_per_start_then_the_last_again() {
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("starts");
    let scripts = [
        dir.path().join("crash.jsonl"),
        dir.path().join("text.jsonl"),
    ];
    let played: Vec<&Path> = (0..3)
        .map(|_| pick_script(&scripts, count_start(&counter).unwrap()))
        .collect();
    assert_eq!(
        played,
        [
            scripts[0].as_path(),
            scripts[1].as_path(),
            scripts[1].as_path()
        ]
    );
    assert_eq!(std::fs::read_to_string(&counter).unwrap(), "3\n");
}

#[tokio::test]
async fn version_is_answered_like_the_real_cli() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_text(
        r#"{"expect": {"type":"user"}}"#,
        &["--version"],
        "",
        dir.path(),
    )
    .await;
    let pinned = crate::claude::install::PINNED_CLAUDE_VERSION;
    assert_eq!(
        (out.code, out.stdout),
        (0, format!("{pinned} (Claude Code)\n"))
    );
}

#[tokio::test]
async fn run_cli_refuses_a_missing_or_unreadable_script() {
    assert_eq!(run_cli(vec![]).await, EXIT_SCRIPT_ERROR);
    let missing = vec!["--script".to_string(), "/nonexistent/x.jsonl".to_string()];
    assert_eq!(run_cli(missing).await, EXIT_SCRIPT_ERROR);
}
