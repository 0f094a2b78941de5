//! The docs keep to their readers: the README is a user's, read in ten minutes, so it stays short
//! (the protocol reference is `docs/`, the contributor's map `ARCHITECTURE.md`) and keeps exactly
//! the two set-up commands; a measurement is in BENCHMARKS.md's latest tables, never a dated diary
//! in a doc (history is git's); and a relative link in a doc leads to a file that exists, so text
//! moved between docs leaves no link to nothing behind.

use std::path::{Path, PathBuf};

use super::repo;

/// The README's length: what a user reads before the first command.
const README_MAX_LINES: usize = 250;

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The project's own Markdown: the top-level docs, `docs/`, `tests/`, `editors/`, `fixtures/`.
fn markdown_files() -> Vec<PathBuf> {
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
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(repo()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() && path.extension().is_some_and(|e| e == "md") {
            paths.push(path);
        }
    }
    for dir in [
        "docs", "tests", "editors", "fixtures", "benches", "scripts", "fuzz",
    ] {
        walk(&repo().join(dir), &mut paths);
    }
    paths.sort();
    paths
}

fn relative(path: &Path) -> String {
    path.strip_prefix(repo()).unwrap().display().to_string()
}

#[test]
fn the_readme_is_at_most_250_lines() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, over {README_MAX_LINES}: it is a user's page (what it is, the \
         two commands, install, editor setup, options, where to read more); the protocol reference \
         goes in docs/, the code map in ARCHITECTURE.md, figures in BENCHMARKS.md"
    );
}

#[test]
fn the_readme_keeps_exactly_the_two_set_up_commands() {
    // The demo (offline) and every test: both pass on a fresh machine with Rust and npm only.
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme
        .split("## The two commands")
        .nth(1)
        .expect("README.md has a \"## The two commands\" section");
    let block = section.split("```").nth(1).unwrap_or_default();
    let commands: Vec<&str> = block
        .lines()
        .skip(1)
        .map(|line| line.split(" #").next().unwrap_or_default().trim())
        .filter(|line| !line.is_empty())
        .collect();
    assert_eq!(commands, ["cargo run -- demo", "cargo test"]);
}

/// The dates written as a month and a day (`Dec 6`, `December 6`) in `text`, by line.
fn dates(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for month in MONTHS {
            for (at, _) in line.match_indices(&month[..3]) {
                let starts_word = !line[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphanumeric());
                // `Dec` or `December`, not `Decimal`.
                let after = &line[at + 3..];
                let word = after
                    .find(|c: char| !c.is_ascii_lowercase())
                    .unwrap_or(after.len());
                if !(word == 0 || month[3..] == after[..word]) {
                    continue;
                }
                let rest = &after[word..];
                let day = rest
                    .strip_prefix(' ')
                    .map(|r| r.chars().take_while(char::is_ascii_digit).count())
                    .unwrap_or(0);
                let day_ends = rest
                    .get(1 + day..)
                    .is_some_and(|r| !r.starts_with(|c: char| c.is_ascii_alphanumeric()));
                if starts_word && (1..=2).contains(&day) && day_ends {
                    let shown: String = line.trim().chars().take(100).collect();
                    found.push(format!("{}: {shown}", n + 1));
                }
            }
        }
    }
    found.dedup();
    found
}

#[test]
fn no_doc_keeps_a_dated_diary() {
    let offenders: Vec<String> = markdown_files()
        .iter()
        .filter_map(|path| {
            let found = dates(&std::fs::read_to_string(path).unwrap());
            (!found.is_empty()).then(|| format!("{}: {found:#?}", relative(path)))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "docs say what is, not when it was seen: a figure goes in BENCHMARKS.md's latest table \
         (naming its build), history is git's: {offenders:#?}"
    );
}

#[test]
fn dates_are_told_from_words_and_figures() {
    assert_eq!(
        dates("on Dec 6, 07:26\nDecember 12 was"),
        ["1: on Dec 6, 07:26", "2: December 12 was"]
    );
    assert!(dates("Decimal 3, Mayday 4, the Nov 2026 run, Dec 123, Oct 5b").is_empty());
}

/// The targets of the relative links (`[text](path)`, `[text](path#anchor)`) in `text`.
fn relative_links(text: &str) -> Vec<String> {
    let mut links = Vec::new();
    for (at, _) in text.match_indices("](") {
        let rest = &text[at + 2..];
        let Some(end) = rest.find(')') else { continue };
        let target = rest[..end].split('#').next().unwrap_or_default();
        if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        links.push(target.to_owned());
    }
    links
}

#[test]
fn every_relative_link_in_a_doc_leads_to_a_file() {
    let broken: Vec<String> = markdown_files()
        .iter()
        .flat_map(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            let dir = path.parent().unwrap().to_path_buf();
            relative_links(&text)
                .into_iter()
                .filter(move |target| !dir.join(target).exists())
                .map(move |target| format!("{}: {target}", relative(path)))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(broken.is_empty(), "links to nothing: {broken:#?}");
}

/// The repository paths a doc names in code spans (`src/acp/`, `tests/it/tidy.rs`), without
/// placeholders (`<version>`) or globs, outside fenced blocks; a `:line` after a path is dropped.
fn named_paths(text: &str) -> Vec<String> {
    const ROOTS: [&str; 8] = [
        "src/",
        "tests/",
        "benches/",
        "scripts/",
        "fixtures/",
        "editors/",
        ".ci/",
        "docs/",
    ];
    let mut fenced = false;
    let mut paths = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for span in line.split('`').skip(1).step_by(2) {
            if ROOTS.iter().any(|root| span.starts_with(root))
                && !span.contains(['<', '*', ' ', '{', '$'])
            {
                let path = span.split(':').next().unwrap_or(span);
                paths.push(path.trim_end_matches([',', '.']).to_owned());
            }
        }
    }
    paths
}

#[test]
fn every_repository_path_a_doc_names_exists() {
    // The code map and the "where to make a change" table go stale when code moves; a path that
    // is gone fails here, naming the doc. An editor's own README names its client's files.
    let gone: Vec<String> = markdown_files()
        .iter()
        .filter(|path| {
            relative(path).matches('/').count() < 2 || !relative(path).starts_with("editors/")
        })
        .flat_map(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            named_paths(&text)
                .into_iter()
                .filter(|named| !repo().join(named).exists())
                .map(move |named| format!("{}: {named}", relative(path)))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        gone.is_empty(),
        "paths named in docs that are gone: {gone:#?}"
    );
}

#[test]
fn named_paths_skip_placeholders_and_other_spans() {
    let text = "`src/acp/` and `target/x` and `tests/it/<name>.rs` and `src/a.rs:12` `cargo test`\n\
                ```sh\nsrc/fenced.rs `src/in_fence.rs`\n```\n`docs/x.md`";
    assert_eq!(named_paths(text), ["src/acp/", "src/a.rs", "docs/x.md"]);
}

#[test]
fn relative_links_are_told_from_web_links_and_anchors() {
    let text = "[a](docs/x.md#top) [b](https://x.org/y) [c](#here) [d](../ARCHITECTURE.md)";
    assert_eq!(relative_links(text), ["docs/x.md", "../ARCHITECTURE.md"]);
}
