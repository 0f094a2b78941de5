//! The search on the real file system of this machine (Unix rules).

use super::*;
use std::fs;

fn make_executable(path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, "#!/bin/sh\n").unwrap();
    crate::platform::files::make_executable(path).unwrap();
}

fn env(dir: &Path) -> LocateEnv {
    LocateEnv {
        os: Os::Linux,
        path: Some(std::env::join_paths([dir.join("bin1"), dir.join("bin2")]).unwrap()),
        home: Some(dir.join("home")),
        // A login shell that answers nothing.
        shell: Some(PathBuf::from("/bin/false")),
        ..LocateEnv::default()
    }
}

#[test]
fn explicit_path_wins_over_everything_else() {
    let dir = tempfile::tempdir().unwrap();
    let explicit = dir.path().join("custom/claude");
    make_executable(&explicit);
    make_executable(&dir.path().join("bin1/claude"));
    let mut e = env(dir.path());
    e.claude_code_executable = Some(dir.path().join("bin1/claude").into());
    assert_eq!(locate_in(Some(&explicit), &e).unwrap().program, explicit);
}

#[test]
fn env_var_beats_path_and_a_bare_name_is_searched_on_path() {
    let dir = tempfile::tempdir().unwrap();
    make_executable(&dir.path().join("bin1/claude"));
    make_executable(&dir.path().join("bin2/claude-beta"));
    let mut e = env(dir.path());
    e.claude_code_executable = Some("claude-beta".into());
    assert_eq!(
        locate_in(None, &e).unwrap().program,
        dir.path().join("bin2/claude-beta")
    );
}

#[test]
fn path_is_searched_in_order_then_home_installs() {
    let dir = tempfile::tempdir().unwrap();
    let e = env(dir.path());
    make_executable(&dir.path().join("home/.claude/local/claude"));
    assert_eq!(
        locate_in(None, &e).unwrap().program,
        dir.path().join("home/.claude/local/claude")
    );
    make_executable(&dir.path().join("home/.local/bin/claude"));
    assert_eq!(
        locate_in(None, &e).unwrap().program,
        dir.path().join("home/.local/bin/claude")
    );
    make_executable(&dir.path().join("bin2/claude"));
    assert_eq!(
        locate_in(None, &e).unwrap().program,
        dir.path().join("bin2/claude")
    );
    make_executable(&dir.path().join("bin1/claude"));
    assert_eq!(
        locate_in(None, &e).unwrap().program,
        dir.path().join("bin1/claude")
    );
}

#[test]
fn a_relative_explicit_path_is_made_absolute() {
    let dir = tempfile::tempdir().unwrap();
    make_executable(&dir.path().join("bin1/claude"));
    let cwd = std::env::current_dir().unwrap();
    let relative = pathdiff(dir.path(), &cwd).join("bin1/claude");
    let found = locate_in(Some(&relative), &env(dir.path()))
        .unwrap()
        .program;
    assert!(found.is_absolute(), "{}", found.display());
    assert_eq!(
        found.canonicalize().unwrap(),
        dir.path().join("bin1/claude").canonicalize().unwrap()
    );
}

/// `target` relative to `base`, through `..` up to the root.
fn pathdiff(target: &Path, base: &Path) -> PathBuf {
    let mut up = PathBuf::new();
    for _ in base.components().skip(1) {
        up.push("..");
    }
    up.join(target.strip_prefix("/").unwrap())
}

#[test]
fn a_non_executable_file_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let e = env(dir.path());
    fs::create_dir_all(dir.path().join("bin1")).unwrap();
    fs::write(dir.path().join("bin1/claude"), "not a program").unwrap();
    make_executable(&dir.path().join("bin2/claude"));
    assert_eq!(
        locate_in(None, &e).unwrap().program,
        dir.path().join("bin2/claude")
    );
}

#[test]
fn not_found_names_every_place_and_how_to_install() {
    let dir = tempfile::tempdir().unwrap();
    let err = locate_in(None, &env(dir.path())).unwrap_err();
    let text = err.to_string();
    assert_eq!(err.looked.len(), 6, "{text}");
    for place in [
        "--claude-path",
        "$CLAUDE_CODE_EXECUTABLE",
        "bin1",
        "bin2",
        ".local/bin/claude",
        ".claude/local/claude",
        "/bin/false -lc 'command -v claude'",
    ] {
        assert!(text.contains(place), "{place} missing from: {text}");
    }
    assert!(
        text.contains("npm install -g @anthropic-ai/claude-code"),
        "{text}"
    );
    assert!(text.contains("--claude-path /path/to/claude"), "{text}");
}

#[test]
fn a_wrong_explicit_path_is_an_error_even_when_claude_is_on_path() {
    let dir = tempfile::tempdir().unwrap();
    make_executable(&dir.path().join("bin1/claude"));
    let missing = dir.path().join("nope/claude");
    let err = locate_in(Some(&missing), &env(dir.path())).unwrap_err();
    assert_eq!(
        err.looked,
        vec![format!("--claude-path {}: not found", missing.display())]
    );
    let mut e = env(dir.path());
    e.claude_code_executable = Some(dir.path().join("bin1").into());
    let err = locate_in(None, &e).unwrap_err();
    assert!(err.looked[0].ends_with(": not a file"), "{err}");
}
