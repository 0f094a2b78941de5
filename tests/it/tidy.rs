//! The layout rules, checked on the source so they hold as the code grows: only `src/acp/` imports
//! the ACP SDK, only `src/claude/` builds claude's stream-json, only `src/platform/` holds code
//! that differs per operating system, `session` does not reach into `doctor`, no source file is
//! over 600 lines, a module's unit tests are its child module `tests`, tests start no program a
//! machine with Rust and npm may lack, production comments say
//! "the pinned claude" rather than its version, and no file names a development machine's paths.
//! The rooms of `src/` (its folders and top files) import downwards only ([`BELOW`]) and never in
//! a circle, the permission wing alone serves MCP over HTTP, one pending-request map serves both
//! sides, each seam has one test double, and ACP v1 and v2 share only `src/acp/shared/`
//! ([`acp_versions`]). The integration tests read /proc only through the
//! Linux-only support modules ([`linux_only`]). The docs keep to their readers ([`docs`]): the
//! README short, no dated measurement outside BENCHMARKS.md's latest tables, no link to nothing.
//! No type's methods spread over more than three files, and the files of the session import each
//! other without a circle ([`parts`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod acp_versions;
mod docs;
mod linux_only;
mod parts;

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

/// The files of `src/` outside `allowed` whose production code names `needle`.
fn production_files_naming(needle: &str, allowed: impl Fn(&str) -> bool) -> Vec<String> {
    rust_files("src")
        .into_iter()
        .filter(|(name, _)| !allowed(name))
        .filter(|(_, text)| production_code(text).contains(needle))
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn only_src_acp_imports_the_acp_sdk() {
    let offenders =
        production_files_naming("agent_client_protocol", |name| name.starts_with("src/acp/"));
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
    let builders = production_files_naming("json!", allowed);
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

/// The README's test command needs Rust and npm only: what a test starts beside claude-acp is
/// node (which comes with npm), a shell or claude itself. A program a fresh machine may lack
/// belongs to a test that says so in its `#[ignore = "needs ..."]` (Lua, Emacs, tmux).
#[test]
fn tests_start_no_program_a_fresh_machine_lacks() {
    let starts = |text: &str, program: &str| {
        // `Command::new("python3")`, and the claude room's test helper `program("python3", ...)`.
        [
            format!("Command::new(\"{program}\")"),
            format!("program(\"{program}\""),
        ]
        .iter()
        .any(|call| text.contains(call.as_str()))
    };
    let naming: Vec<String> = ["src", "tests/it"]
        .into_iter()
        .flat_map(rust_files)
        .filter(|(name, _)| name != "tests/it/tidy.rs")
        .filter(|(_, text)| {
            ["python3", "python", "perl"]
                .iter()
                .any(|p| starts(text, p))
        })
        .map(|(name, _)| name)
        .collect();
    assert!(
        naming.is_empty(),
        "these start a program a machine with Rust and npm may lack (use node): {naming:?}"
    );
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

/// The comment part of a source line: the whole line when it is a comment, else what follows a
/// ` // ` after code.
fn comment_of(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    if trimmed.starts_with("//") {
        return Some(trimmed);
    }
    line.find(" // ").map(|at| &line[at..])
}

#[test]
fn production_comments_say_the_pinned_claude_not_its_version() {
    // The pinned claude is named once, `PINNED_CLAUDE_VERSION` (and the README's "Tested with"):
    // a comment that names it goes stale with the next bump. Test code and fixtures keep versions
    // where they are data.
    let pinned = claude_acp::claude::install::PINNED_CLAUDE_VERSION;
    let offenders: Vec<String> = rust_files("src")
        .into_iter()
        .filter(|(name, _)| !is_test_file(name))
        .flat_map(|(name, text)| {
            let end = text.find("#[cfg(test)]\nmod tests {").unwrap_or(text.len());
            text[..end]
                .lines()
                .enumerate()
                .filter(|(_, line)| comment_of(line).is_some_and(|c| c.contains(pinned)))
                .map(|(n, line)| format!("{name}:{}: {}", n + 1, line.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "production comments naming the pinned claude's version ({pinned}); say \"the pinned \
         claude\" or use PINNED_CLAUDE_VERSION: {offenders:#?}"
    );
}

/// Where `text` names an absolute path of a development machine: one that starts at the root
/// folders `work` or `root`, or at a home folder other than the placeholders examples use (`me`,
/// `YOU`, `user`). (Written without those paths, as this file is checked too.)
fn machine_paths(text: &str) -> Vec<String> {
    const PLACEHOLDER_HOMES: [&str; 3] = ["me", "YOU", "user"];
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for folder in ["work", "root", "home"] {
            let root = format!("/{folder}/");
            for (at, _) in line.match_indices(root.as_str()) {
                // Inside a longer path (`/run/work/`, `/tmp/x/work/`) it is no machine's root.
                let inside = line[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || "._~-".contains(c));
                let rest = &line[at + root.len()..];
                let home = rest
                    .split(['/', '"', '`', '\'', ' ', ')'])
                    .next()
                    .unwrap_or("");
                if inside || (folder == "home" && PLACEHOLDER_HOMES.contains(&home)) {
                    continue;
                }
                found.push(format!("{}: {}", n + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn no_file_names_a_machine_path() {
    // A path of the machine something was written on (its checkout, its shared folders, a user's
    // home) means nothing on a reader's machine, and says where it was made. The captured data
    // in `fixtures/` (transcripts, tool results) is what claude printed and stays as it was; the
    // scripts and notes there are checked.
    fn walk(path: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(path) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if name == "node_modules" || name == "target" || name.starts_with('.') {
                continue;
            }
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    for dir in [
        "src", "tests", "benches", "editors", "scripts", "fuzz", ".ci", ".github", "docs",
    ] {
        walk(&repo().join(dir), &mut paths);
    }
    let mut fixtures = Vec::new();
    walk(&repo().join("fixtures"), &mut fixtures);
    paths.extend(fixtures.into_iter().filter(|p| {
        p.extension()
            .is_some_and(|e| e == "sh" || e == "py" || e == "md")
    }));
    for entry in std::fs::read_dir(repo()).unwrap() {
        let path = entry.unwrap().path();
        // Not `.git`: a worktree's names where its repository is.
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if path.is_file() && !hidden {
            paths.push(path);
        }
    }
    let offenders: Vec<String> = paths
        .iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).ok()?;
            let name = path.strip_prefix(repo()).unwrap().display().to_string();
            let found = machine_paths(&text);
            (!found.is_empty()).then(|| format!("{name}: {found:#?}"))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "files naming a path of a development machine: {offenders:#?}"
    );
}

#[test]
fn machine_paths_are_told_from_paths_inside_others_and_placeholders() {
    // `^` stands for `/`, so that this file names no such path itself.
    let paths = |text: &str| machine_paths(&text.replace('^', "/"));
    assert_eq!(
        paths("see ^work^shared^x and `^root^a`\n\"^home^alice^b\""),
        [
            "1: see ^work^shared^x and `^root^a`",
            "1: see ^work^shared^x and `^root^a`",
            "2: \"^home^alice^b\"",
        ]
        .map(|line| line.replace('^', "/"))
    );
    assert!(paths("^run^work^a.txt ^tmp^x-1^work^b ^home^me^c ^home^YOU^d").is_empty());
    assert_eq!(paths("Edit(^^work^a)").len(), 1);
}

/// The room of `src/` a file is in: its top folder, or the top file itself
/// (`src/permissions/asker.rs` -> `permissions`, `src/serve.rs` -> `serve`).
fn room(name: &str) -> &str {
    let rest = name.strip_prefix("src/").unwrap_or(name);
    let top = rest.split('/').next().unwrap_or(rest);
    top.strip_suffix(".rs").unwrap_or(top)
}

/// Each room's arrows: the other rooms its production code names (`crate::room`), the test files
/// and the fuzzing entry points (`cfg(any(test, feature = "fuzzing"))`) left out.
fn room_arrows() -> BTreeMap<String, BTreeSet<String>> {
    let mut arrows: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, text) in rust_files("src") {
        if is_test_file(&name) || name.ends_with("fuzzing.rs") || room(&name) == "fuzzing" {
            continue;
        }
        let from = room(&name).to_owned();
        let code = production_code(&text);
        for (at, _) in code.match_indices("crate::") {
            let to: String = code[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !to.is_empty() && to != from {
                arrows.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    arrows
}

/// The rooms each room may not name: the arrows point down, from the session to its two wings
/// (the permission decisions, the editor-served tools) and the logins, to history, translation
/// and claude, with the domain's vocabulary at the bottom; only `src/serve.rs` and `src/acp/`'s
/// caller know the editor's protocol. The logins (`auth`) are adapter-wide: the sessions apply
/// them, and they see no session and no wing.
const BELOW: &[(&str, &[&str])] = &[
    (
        "domain",
        &[
            "acp",
            "auth",
            "claude",
            "translate",
            "history",
            "editor_tools",
            "permissions",
            "session",
        ],
    ),
    (
        "claude",
        &[
            "acp",
            "auth",
            "translate",
            "history",
            "editor_tools",
            "permissions",
            "session",
        ],
    ),
    (
        "translate",
        &[
            "acp",
            "auth",
            "history",
            "editor_tools",
            "permissions",
            "session",
        ],
    ),
    (
        "history",
        &["acp", "auth", "editor_tools", "permissions", "session"],
    ),
    ("editor_tools", &["acp", "auth", "permissions", "session"]),
    ("permissions", &["acp", "auth", "session"]),
    (
        "auth",
        &[
            "acp",
            "translate",
            "history",
            "editor_tools",
            "permissions",
            "session",
        ],
    ),
    ("session", &["acp"]),
];

#[test]
fn no_room_imports_a_room_above_it() {
    let arrows = room_arrows();
    let upward: Vec<String> = BELOW
        .iter()
        .flat_map(|(from, above)| {
            arrows
                .get(*from)
                .into_iter()
                .flatten()
                .filter(|to| above.contains(&to.as_str()))
                .map(move |to| format!("{from} -> {to}"))
        })
        .collect();
    assert!(
        upward.is_empty(),
        "these arrows point up (see BELOW in tests/it/tidy.rs): {upward:?}"
    );
}

#[test]
fn no_rooms_import_each_other_in_a_circle() {
    fn path_back(
        arrows: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        at: &str,
        seen: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> bool {
        for next in arrows.get(at).into_iter().flatten() {
            if next == start {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if path_back(arrows, start, next, seen, path) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let arrows = room_arrows();
    let circles: Vec<String> = arrows
        .keys()
        .filter_map(|start| {
            let mut path = vec![start.clone()];
            path_back(&arrows, start, start, &mut BTreeSet::new(), &mut path)
                .then(|| format!("{} -> {start}", path.join(" -> ")))
        })
        .collect();
    assert!(
        circles.is_empty(),
        "these rooms import each other: {circles:?}"
    );
}

#[test]
fn only_the_permission_wing_serves_mcp_over_http() {
    let offenders = production_files_naming("rmcp::", |name| name.starts_with("src/permissions/"));
    assert!(
        offenders.is_empty(),
        "the permission MCP server lives in src/permissions/fallback/: {offenders:?}"
    );
}

#[test]
fn one_pending_request_map_serves_both_sides() {
    // A map of ids to answer senders is the correlation map `src/pending.rs` is; a second one
    // would have to get its unregistering waiter and its closing right again.
    let maps: Vec<String> = rust_files("src")
        .into_iter()
        .filter(|(name, _)| name != "src/pending.rs" && !is_test_file(name))
        .filter(|(_, text)| {
            production_code(text)
                .lines()
                .any(|line| line.contains("HashMap<") && line.contains("Sender<"))
        })
        .map(|(name, _)| name)
        .collect();
    assert!(
        maps.is_empty(),
        "use crate::pending::Pending for requests waiting for answers: {maps:?}"
    );
}

#[test]
fn the_wings_do_not_use_doctor_either() {
    let offenders: Vec<String> = ["src/permissions", "src/editor_tools"]
        .into_iter()
        .flat_map(rust_files)
        .filter(|(_, text)| text.contains("doctor::"))
        .map(|(name, _)| name)
        .collect();
    assert!(
        offenders.is_empty(),
        "what the wings need about claude's installation lives in src/claude/: {offenders:?}"
    );
}

#[test]
fn each_seam_has_one_test_double() {
    // A second stand-in for the editor or the agent core drifts from the first: its answers and
    // what it records are written again, and a test against it proves less.
    let doubles: Vec<String> = ["src", "tests", "benches"]
        .into_iter()
        .flat_map(rust_files)
        .flat_map(|(name, text)| {
            ["EditorClient for ", "AgentCore for "]
                .into_iter()
                .filter(|seam| text.contains(&format!("impl {seam}")))
                .map(move |seam| format!("{name}: {seam}"))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(
        doubles,
        [
            "src/acp/shared/client.rs: EditorClient for ",
            "src/fuzzing.rs: AgentCore for ",
            "src/session/requests.rs: AgentCore for ",
            "src/testing/editor.rs: EditorClient for ",
        ],
        "the editor's test double is src/testing/editor.rs, the agent core's InstantCore"
    );
}
