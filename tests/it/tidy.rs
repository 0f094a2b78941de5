//! The layout rules, checked on the source so they hold as the code grows: only `src/acp/` imports
//! the ACP SDK, only `src/claude/` builds claude's stream-json, only `src/platform/` holds code
//! that differs per operating system, `session` does not reach into `doctor`, no source file is
//! over 600 lines, and a module's unit tests are its child module `tests`.

use std::path::{Path, PathBuf};

const MAX_LINES: usize = 600;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir` (relative to the repo), with its path relative to the repo.
fn rust_files(dir: &str) -> Vec<(String, String)> {
    fn walk(path: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(path).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(&repo().join(dir), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = p
                .strip_prefix(repo())
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// The file's code outside comments and outside its inline test module (`#[cfg(test)] mod tests
/// {`, by the unit-test convention the end of the file). A `#[cfg(test)] mod tests;` line, whose
/// tests live in a file of their own, ends nothing.
fn production_code(text: &str) -> String {
    let end = text.find("#[cfg(test)]\nmod tests {").unwrap_or(text.len());
    text[..end]
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_test_file(name: &str) -> bool {
    name.contains("/tests/") || name.ends_with("/tests.rs")
}

#[test]
fn only_src_acp_imports_the_acp_sdk() {
    let offenders: Vec<String> = rust_files("src")
        .into_iter()
        .filter(|(name, _)| !name.starts_with("src/acp/"))
        .filter(|(_, text)| production_code(text).contains("agent_client_protocol"))
        .map(|(name, _)| name)
        .collect();
    assert!(
        offenders.is_empty(),
        "import the ACP SDK only in src/acp/: {offenders:?}"
    );
}

#[test]
fn only_src_platform_differs_per_operating_system() {
    // Gating a unit-test module (`cfg(all(test, unix))`) is allowed; logic that branches on the
    // system is not.
    const PLATFORM_MARKS: &[&str] = &[
        "cfg(unix)",
        "cfg(windows)",
        "cfg!(unix)",
        "cfg!(windows)",
        "target_os",
        "target_family",
        "libc::",
        "std::os::",
        "windows_sys",
    ];
    let offenders: Vec<String> = rust_files("src")
        .into_iter()
        .filter(|(name, _)| !name.starts_with("src/platform/") && !is_test_file(name))
        .filter_map(|(name, text)| {
            let code = production_code(&text);
            let marks: Vec<&str> = PLATFORM_MARKS
                .iter()
                .copied()
                .filter(|mark| code.contains(mark))
                .collect();
            (!marks.is_empty()).then(|| format!("{name} {marks:?}"))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "put what differs per system behind src/platform/ (one module per concern): {offenders:?}"
    );
}

#[test]
fn session_does_not_use_doctor() {
    let offenders: Vec<String> = rust_files("src/session")
        .into_iter()
        .filter(|(_, text)| text.contains("doctor::") || text.contains("doctor::{"))
        .map(|(name, _)| name)
        .collect();
    assert!(
        offenders.is_empty(),
        "what the session needs about claude's installation lives in src/claude/: {offenders:?}"
    );
}

#[test]
fn only_src_claude_builds_claudes_stream_json() {
    // `src/acp/` and the demo speak ACP (to and as the editor), the stand-in plays claude itself.
    let allowed = |name: &str| {
        name.starts_with("src/claude/")
            || name.starts_with("src/acp/")
            || name.starts_with("src/standin/")
            || name == "src/demo.rs"
            || is_test_file(name)
    };
    let builders: Vec<String> = rust_files("src")
        .into_iter()
        .filter(|(name, _)| !allowed(name))
        .filter(|(_, text)| production_code(text).contains("json!"))
        .map(|(name, _)| name)
        .collect();
    assert!(
        builders.is_empty(),
        "build claude's messages with the types in src/claude/wire.rs, not json!: {builders:?}"
    );
}

/// One convention for unit tests in `src/`: a module's tests are its child module `tests`, inline
/// when short, else `tests.rs` (or a `tests/` folder) in the module's own folder. No `#[path]`
/// and no `*_tests.rs` beside the module, so a reader finds them in one place.
#[test]
fn unit_tests_are_each_modules_child_module_tests() {
    let stray: Vec<String> = rust_files("src")
        .into_iter()
        .filter(|(name, text)| name.ends_with("_tests.rs") || text.contains("#[path"))
        .map(|(name, _)| name)
        .collect();
    assert!(
        stray.is_empty(),
        "move these tests into the module's `tests` child: {stray:?}"
    );
}

#[test]
fn no_source_file_is_over_600_lines() {
    let long: Vec<String> = ["src", "tests", "benches"]
        .into_iter()
        .flat_map(rust_files)
        .filter(|(_, text)| text.lines().count() > MAX_LINES)
        .map(|(name, text)| format!("{name} ({} lines)", text.lines().count()))
        .collect();
    assert!(long.is_empty(), "split these by subject: {long:?}");
}

#[test]
fn panics_unwind_so_that_a_session_catches_its_own() {
    // With `panic = "abort"` one session's bug would end every session (the actor catches it).
    let manifest = std::fs::read_to_string(repo().join("Cargo.toml")).expect("Cargo.toml");
    let aborting: Vec<&str> = manifest
        .lines()
        .filter(|l| l.replace([' ', '\t'], "").starts_with("panic=\"abort\""))
        .collect();
    assert!(
        aborting.is_empty(),
        "Cargo.toml aborts on panic: {aborting:?}"
    );
}
