//! The session as parts that own their state and its handling: no type's methods spread over
//! more than [`MAX_FILES_PER_TYPE`] files of `src/` (its inherent `impl` blocks), and the files of
//! `src/session/` import each other downwards only: a part's files name the parts below it and
//! what the session's parts share, never the actor that routes to them, so no two files import
//! each other, directly or round a circle.

use std::collections::{BTreeMap, BTreeSet};

use super::{is_test_file, production_code, repo, room, rust_files};

/// The most files one type's inherent `impl` blocks may be spread over.
const MAX_FILES_PER_TYPE: usize = 3;

/// The type an inherent `impl` block's first line names (`impl<'a> Parts<'a> {` -> `Parts`);
/// `None` for any other line, a trait's `impl` among them.
fn inherent_impl(line: &str) -> Option<String> {
    let rest = line.strip_prefix("impl")?;
    if !rest.starts_with([' ', '<']) || line.contains(" for ") {
        return None;
    }
    let mut rest = rest.trim_start();
    if rest.starts_with('<') {
        let mut depth = 0;
        let end = rest.find(|c| {
            depth += match c {
                '<' => 1,
                '>' => -1,
                _ => 0,
            };
            depth == 0
        })?;
        rest = rest[end + 1..].trim_start();
    }
    let path: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    let name = path.rsplit("::").next()?;
    (!name.is_empty()).then(|| name.to_owned())
}

#[test]
fn no_type_s_methods_spread_over_more_than_three_files() {
    // Keyed by the room too: two rooms may each have a type of the same name.
    let mut files: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for (name, text) in rust_files("src") {
        if is_test_file(&name) {
            continue;
        }
        for line in production_code(&text).lines() {
            if let Some(ty) = inherent_impl(line) {
                let key = (room(&name).to_owned(), ty);
                files.entry(key).or_default().insert(name.clone());
            }
        }
    }
    let spread: Vec<String> = files
        .into_iter()
        .filter(|(_, files)| files.len() > MAX_FILES_PER_TYPE)
        .map(|((_, ty), files)| format!("{ty} in {} files: {files:?}", files.len()))
        .collect();
    assert!(
        spread.is_empty(),
        "give each concern a type of its own, which owns its state and its handling, rather than \
         one type's methods in more than {MAX_FILES_PER_TYPE} files: {spread:#?}"
    );
}

#[test]
fn inherent_impls_are_told_from_trait_impls() {
    assert_eq!(inherent_impl("impl Turns {").as_deref(), Some("Turns"));
    assert_eq!(
        inherent_impl("impl<'a> Parts<'a> {").as_deref(),
        Some("Parts")
    );
    assert_eq!(
        inherent_impl("impl<R, W: Write<u8>> crate::x::Engine<R, W>").as_deref(),
        Some("Engine")
    );
    assert_eq!(inherent_impl("impl Drop for Job {"), None);
    assert_eq!(inherent_impl("impl<T> Clone for Tell<T> {"), None);
    assert_eq!(inherent_impl("    impl Turns {"), None);
    assert_eq!(inherent_impl("implied"), None);
}

/// The module a file of `src/` is: `src/session/actor/turn/mod.rs` -> `session::actor::turn`.
fn module_of(name: &str) -> Vec<String> {
    let path = name.strip_prefix("src/").unwrap_or(name);
    let path = path.strip_suffix(".rs").unwrap_or(path);
    let mut module: Vec<String> = path.split('/').map(str::to_owned).collect();
    if module.last().is_some_and(|last| last == "mod") {
        module.pop();
    }
    module
}

/// The file a module is in, if it has one of its own.
fn file_of(module: &[String]) -> Option<String> {
    if module.is_empty() {
        return None;
    }
    let path = format!("src/{}", module.join("/"));
    [format!("{path}.rs"), format!("{path}/mod.rs")]
        .into_iter()
        .find(|file| repo().join(file).is_file())
}

/// Every path the code names from `crate::`, `super::` or `self::`, as its segments, a `use`
/// group's paths each whole (`use super::{ctx::Tell, Turns}` names `super::ctx::Tell` and
/// `super::Turns`). Visibilities (`pub(in crate::session)`) name nothing.
fn paths_named(code: &str) -> Vec<Vec<String>> {
    let mut code = code.to_owned();
    while let Some(at) = code.find("pub(in ") {
        let end = code[at..].find(')').map_or(code.len(), |end| at + end + 1);
        code.replace_range(at..end, "");
    }
    let chars: Vec<char> = code.chars().collect();
    let mut paths = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts = ["crate::", "super::", "self::"]
            .iter()
            .any(|start| text_at(&chars, i, start));
        let after_word = i > 0 && (chars[i - 1].is_alphanumeric() || ":_".contains(chars[i - 1]));
        if starts && !after_word {
            i = read_path(&chars, i, Vec::new(), &mut paths);
        } else {
            i += 1;
        }
    }
    paths
}

fn text_at(chars: &[char], at: usize, text: &str) -> bool {
    text.chars()
        .enumerate()
        .all(|(n, c)| chars.get(at + n) == Some(&c))
}

/// Reads the path at `i`, which goes on from `prefix`, into `paths`; returns where it ends.
fn read_path(
    chars: &[char],
    mut i: usize,
    mut prefix: Vec<String>,
    paths: &mut Vec<Vec<String>>,
) -> usize {
    let skip_space = |i: &mut usize| {
        while chars.get(*i).is_some_and(|c| c.is_whitespace()) {
            *i += 1;
        }
    };
    loop {
        skip_space(&mut i);
        if chars.get(i) == Some(&'{') {
            i += 1;
            loop {
                skip_space(&mut i);
                match chars.get(i) {
                    None => return i,
                    Some('}') => return i + 1,
                    Some(',') => i += 1,
                    Some(_) => {
                        let before = i;
                        i = read_path(chars, i, prefix.clone(), paths);
                        skip_space(&mut i);
                        if text_at(chars, i, "as ") {
                            i += 3;
                            skip_space(&mut i);
                            while chars
                                .get(i)
                                .is_some_and(|c| c.is_alphanumeric() || *c == '_')
                            {
                                i += 1;
                            }
                        }
                        if i == before {
                            i += 1;
                        }
                    }
                }
            }
        }
        let start = i;
        while chars
            .get(i)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_')
        {
            i += 1;
        }
        if i > start {
            prefix.push(chars[start..i].iter().collect());
        }
        if i > start && text_at(chars, i, "::") {
            i += 2;
            continue;
        }
        if !prefix.is_empty() {
            paths.push(prefix);
        }
        return i;
    }
}

/// The file of `src/` a path named in `module` leads to: the deepest module on it that has a file.
fn file_named(module: &[String], path: &[String]) -> Option<String> {
    let (mut base, mut rest) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        _ => (module.to_vec(), path),
    };
    while let Some(first) = rest.first().map(String::as_str) {
        match first {
            "super" => drop(base.pop()),
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    let mut file = file_of(&base);
    for segment in rest.iter().filter(|s| *s != "self") {
        base.push(segment.clone());
        match file_of(&base) {
            Some(deeper) => file = Some(deeper),
            None => break,
        }
    }
    file
}

/// Each file of `src/session/` and the others there its production code names.
fn session_file_arrows() -> BTreeMap<String, BTreeSet<String>> {
    let mut arrows: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, text) in rust_files("src/session") {
        if is_test_file(&name) {
            continue;
        }
        let module = module_of(&name);
        for path in paths_named(&production_code(&text)) {
            if let Some(to) = file_named(&module, &path)
                && to != name
                && to.starts_with("src/session/")
            {
                arrows.entry(name.clone()).or_default().insert(to);
            }
        }
    }
    arrows
}

/// A way from `at` back to `start`, if there is one: the files on it after `at`.
fn way_back(
    arrows: &BTreeMap<String, BTreeSet<String>>,
    start: &str,
    at: &str,
    seen: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    for next in arrows.get(at).into_iter().flatten() {
        if next == start {
            return Some(vec![start.to_owned()]);
        }
        if seen.insert(next.clone())
            && let Some(mut way) = way_back(arrows, start, next, seen)
        {
            way.insert(0, next.clone());
            return Some(way);
        }
    }
    None
}

#[test]
fn no_files_of_the_session_import_each_other_in_a_circle() {
    let arrows = session_file_arrows();
    let circles: Vec<String> = arrows
        .keys()
        .filter_map(|start| {
            let way = way_back(&arrows, start, start, &mut BTreeSet::new())?;
            Some(format!("{start} -> {}", way.join(" -> ")))
        })
        .collect();
    assert!(
        circles.is_empty(),
        "these files of src/session/ import each other: put what both need below both (a part's \
         shared vocabulary in its mod.rs, what the parts share in actor/ctx.rs): {circles:#?}"
    );
}

#[test]
fn imports_are_read_to_the_file_they_name() {
    let module = module_of("src/session/actor/turn/own.rs");
    let named: Vec<Option<String>> = paths_named(
        "use super::{Parts, local::{self, LocalCommand}};\n\
         pub(in crate::session::actor) fn f() { crate::session::actor::ctx::deliver(x); }\n\
         use super::super::settings::Settings as S;",
    )
    .iter()
    .map(|path| file_named(&module, path))
    .collect();
    let file = |name: &str| Some(format!("src/session/actor/{name}"));
    assert_eq!(
        named,
        [
            file("turn/mod.rs"),
            file("turn/local.rs"),
            file("turn/local.rs"),
            file("ctx.rs"),
            file("settings/mod.rs"),
        ]
    );
}
