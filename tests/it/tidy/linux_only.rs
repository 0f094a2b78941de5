//! The integration tests that are Linux-only say so: /proc is read only by the support modules
//! declared for Linux alone, so the compiler finds every test that needs them when the tests are
//! checked for macOS (`.ci/cross-check`), and each such test is `cfg(target_os = "linux")`.

use super::rust_files;

/// The support modules that read /proc (the process table; the network namespace's own handle).
const PROC_READERS: &[&str] = &["procs", "netns"];

#[test]
fn only_linux_only_support_modules_read_proc() {
    let readers: Vec<String> = PROC_READERS
        .iter()
        .map(|module| format!("tests/it/support/{module}.rs"))
        .collect();
    let offenders: Vec<String> = rust_files("tests/it")
        .into_iter()
        .filter(|(name, _)| name != "tests/it/tidy/linux_only.rs" && !readers.contains(name))
        .filter(|(_, text)| {
            text.lines()
                .filter(|line| !line.trim_start().starts_with("//"))
                .any(|line| line.contains("\"/proc"))
        })
        .map(|(name, _)| name)
        .collect();
    assert!(
        offenders.is_empty(),
        "read /proc through tests/it/support/procs.rs, which is Linux-only: {offenders:?}"
    );
}

#[test]
fn the_proc_readers_are_declared_for_linux_alone() {
    let support = std::fs::read_to_string(super::repo().join("tests/it/support/mod.rs")).unwrap();
    let lines: Vec<&str> = support.lines().map(str::trim).collect();
    let ungated: Vec<&str> = PROC_READERS
        .iter()
        .copied()
        .filter(|module| {
            let declared = format!("pub mod {module};");
            // Each declaration of the module (netns has a stand-in elsewhere) is Linux's.
            !lines
                .iter()
                .enumerate()
                .filter(|(_, line)| **line == declared)
                .any(|(at, _)| at > 0 && lines[at - 1] == "#[cfg(target_os = \"linux\")]")
        })
        .collect();
    assert!(
        ungated.is_empty(),
        "declare these with #[cfg(target_os = \"linux\")] in tests/it/support/mod.rs: {ungated:?}"
    );
}
