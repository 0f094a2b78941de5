//! Tests of the command-line surface: `run_cli`, `--version`, and the test wrapper script.

use super::run_text;
use crate::standin::*;
use std::path::Path;

#[test]
fn the_claude_wrapper_execs_the_stand_in_with_the_script_and_claude_args() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("it's a script.jsonl");
    let log = dir.path().join("log.jsonl");
    // `echo` in place of claude-acp shows the exact argv the wrapper builds.
    let wrapper =
        write_claude_wrapper(dir.path(), Path::new("/bin/echo"), &script, Some(&log)).unwrap();
    let out = std::process::Command::new(&wrapper)
        .args(["--resume", "a b"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let expected = format!("standin --script {} --resume a b\n", script.display());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
    let env_dump = dir.path().join("env.sh");
    std::fs::write(&env_dump, "#!/bin/sh\necho \"$CLAUDE_STANDIN_LOG\"\n").unwrap();
    crate::platform::files::make_executable(&env_dump).unwrap();
    let wrapper = write_claude_wrapper(dir.path(), &env_dump, &script, Some(&log)).unwrap();
    let out = std::process::Command::new(&wrapper).output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{}\n", log.display())
    );
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
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "2.1.332 (Claude Code)\n")
    );
}

#[tokio::test]
async fn run_cli_refuses_a_missing_or_unreadable_script() {
    assert_eq!(run_cli(vec![]).await, EXIT_SCRIPT_ERROR);
    let missing = vec!["--script".to_string(), "/nonexistent/x.jsonl".to_string()];
    assert_eq!(run_cli(missing).await, EXIT_SCRIPT_ERROR);
}
