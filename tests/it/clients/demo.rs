//! `claude-acp demo`, the README's first command: a whole editor session on the bundled stand-in,
//! printed as a transcript a person can follow, ending with the file claude wrote.

#[test]
fn the_demo_plays_a_whole_session_offline_and_shows_the_written_file() {
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(crate::support::adapter())
        .arg("demo")
        // No claude anywhere and no account: the demo needs neither.
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home.path())
        .env("TMPDIR", home.path())
        .output()
        .expect("the demo runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for expected in [
        "→ initialize",
        "← agent claude-acp",
        "→ session/new",
        "→ session/prompt",
        "tool call [edit] Write hello.txt",
        "? permission: Write hello.txt",
        "← turn ended: end_turn",
        "hello.txt now holds:",
        "Hello from claude-acp!",
    ] {
        assert!(text.contains(expected), "missing `{expected}` in:\n{text}");
    }
    // Without RUST_LOG the adapter logs warnings only: what a newcomer reads is the session, not the
    // SDK's debug lines.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("DEBUG") && !text.contains("DEBUG"),
        "debug logs at the default level:\n{stderr}"
    );
}
