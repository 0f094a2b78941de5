//! claude's `Read(...)` and `Edit(...)` rules applied to a path, as claude reads them: the rule's
//! content is a gitignore-style pattern (`**/.env`, `src/**`, `*.key`), rooted by its start —
//! `//abs` at the file system's root (on Windows `//c/x` at `C:\x`, claude's POSIX form), `~/` at the home directory, `/` at the project (the cwd),
//! anything else (`./x`, `x`) at each root of the workspace, where a pattern without a `/` matches
//! a name at any depth. A pattern that matches a directory matches everything inside it.
//!
//! Matching leans to the safe side of each behaviour: an ask or deny rule is matched against the
//! path as written and as resolved, ignoring case, and a pattern rooted at the workspace is also
//! tried from the file system's root for a path outside it; an allow rule matches the resolved
//! path only, exactly.

use std::path::{Component, Path, PathBuf};

use crate::platform::os::Os;

/// Which side a match leans to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lean {
    /// Ask and deny rules: matched wherever the path may be.
    Wide,
    /// Allow rules: matched only where the path surely is.
    Narrow,
}

/// Where a path is, for matching rules.
pub(crate) struct Place<'a> {
    /// The path as claude named it, made absolute (`..` not resolved).
    pub(crate) written: &'a Path,
    /// The path resolved (`..` and symlinks): where the file system reaches.
    pub(crate) real: &'a Path,
    pub(crate) cwd: &'a Path,
    /// The workspace's roots, resolved.
    pub(crate) roots: &'a [PathBuf],
    pub(crate) home: Option<&'a Path>,
}

/// Whether rule content `pattern` covers the place.
pub(crate) fn matches(pattern: &str, place: &Place<'_>, lean: Lean) -> bool {
    let (root, pattern) = rooted(pattern, place);
    let ignore_case = lean == Lean::Wide;
    let lexical = lexically_normal(place.written);
    let paths: Vec<&Path> = match lean {
        Lean::Wide => vec![place.real, &lexical],
        Lean::Narrow => vec![place.real],
    };
    for path in paths {
        let bases: Vec<PathBuf> = match &root {
            Some(root) => {
                let mut bases = vec![root.clone()];
                if let Some(real) = crate::platform::real_path::real_path(root)
                    && real != *root
                {
                    bases.push(real);
                }
                bases
            }
            None => {
                let mut bases = place.roots.to_vec();
                if lean == Lean::Wide {
                    bases.push(place.cwd.to_path_buf());
                    // Outside the workspace, a workspace pattern (`**/.env`) still names it.
                    if !place.roots.iter().any(|r| path.starts_with(r)) {
                        bases.extend(path.ancestors().last().map(Path::to_path_buf));
                    }
                }
                bases
            }
        };
        for base in bases {
            let Ok(rel) = path.strip_prefix(&base) else {
                continue;
            };
            let names: Vec<String> = rel
                .components()
                .filter_map(|c| match c {
                    Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
                    _ => None,
                })
                .collect();
            if gitignore_matches(&pattern, &names, lean, ignore_case) {
                return true;
            }
        }
    }
    false
}

/// The pattern's root (`None`: each root of the workspace) and the pattern left.
fn rooted(pattern: &str, place: &Place<'_>) -> (Option<PathBuf>, String) {
    if let Some(rest) = pattern.strip_prefix("//") {
        let (root, pattern) = absolute_root(rest, Os::CURRENT);
        return (Some(root), pattern);
    }
    if let Some(rest) = pattern.strip_prefix("~/") {
        let home = place.home.map(Path::to_path_buf);
        // No home known: the pattern names nothing (an allow), or anything (a deny: see `Wide`).
        return (
            Some(home.unwrap_or_else(|| PathBuf::from("/"))),
            format!("/{rest}"),
        );
    }
    if pattern == "~" {
        let home = place.home.map(Path::to_path_buf);
        return (
            Some(home.unwrap_or_else(|| PathBuf::from("/"))),
            "/**".into(),
        );
    }
    if pattern.starts_with('/') {
        return (Some(place.cwd.to_path_buf()), pattern.to_owned());
    }
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    (None, pattern.to_owned())
}

/// The root and the pattern of an absolute rule's content, `rest` being what follows its `//`. On
/// Windows claude matches a path in its POSIX form (`C:\x` as `/c/x`, `\\server\share\x` as
/// `//server/share/x`), so `//c/Users/me/**` is rooted at `C:\` with
/// `/Users/me/**` left, and `///server/share/x` at `\\server\share\`.
fn absolute_root(rest: &str, os: Os) -> (PathBuf, String) {
    if os == Os::Windows {
        let b = rest.as_bytes();
        if b.first().is_some_and(u8::is_ascii_alphabetic) && (b.len() == 1 || b[1] == b'/') {
            let drive = format!("{}:\\", (b[0] as char).to_ascii_uppercase());
            let pattern = match rest[1..].trim_start_matches('/') {
                "" => "/**".to_owned(),
                left => format!("/{left}"),
            };
            return (PathBuf::from(drive), pattern);
        }
        if let Some(unc) = rest.strip_prefix('/') {
            let mut parts = unc.splitn(3, '/');
            if let (Some(server), Some(share)) = (parts.next(), parts.next())
                && !server.is_empty()
                && !share.is_empty()
            {
                let left = parts.next().unwrap_or("**");
                return (
                    PathBuf::from(format!("\\\\{server}\\{share}\\")),
                    format!("/{left}"),
                );
            }
        }
    }
    (PathBuf::from("/"), format!("/{rest}"))
}

/// `path` with `.` and `..` taken away as written (a `..` past the root stays at the root).
pub(crate) fn lexically_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// gitignore's reading of `pattern` against a relative path's names: anchored when it holds a
/// `/` before its end, else matched at any depth; a match of a parent directory covers the path.
fn gitignore_matches(pattern: &str, names: &[String], lean: Lean, ignore_case: bool) -> bool {
    if names.is_empty() {
        return false;
    }
    let dir_only = pattern.ends_with('/');
    let trimmed = pattern.trim_end_matches('/');
    let anchored = trimmed.contains('/');
    let mut parts: Vec<&str> = trimmed
        .trim_start_matches('/')
        .split('/')
        .filter(|p| !p.is_empty())
        .collect();
    if parts.is_empty() {
        return false;
    }
    if !anchored {
        parts.insert(0, "**");
    }
    let fold = |s: &str| {
        if ignore_case {
            s.to_lowercase()
        } else {
            s.to_owned()
        }
    };
    let parts: Vec<String> = parts.iter().map(|p| fold(p)).collect();
    let names: Vec<String> = names.iter().map(|n| fold(n)).collect();
    (1..=names.len()).any(|len| {
        let whole = len == names.len();
        // A directory-only pattern (`build/`) is sure to cover the path only through a parent.
        if dir_only && whole && lean == Lean::Narrow {
            return false;
        }
        segments_match(&parts, &names[..len])
    })
}

fn segments_match(parts: &[String], names: &[String]) -> bool {
    match parts.split_first() {
        None => names.is_empty(),
        Some((first, rest)) if first == "**" => {
            (0..=names.len()).any(|skip| segments_match(rest, &names[skip..]))
        }
        Some((first, rest)) => match names.split_first() {
            Some((name, names)) => {
                glob(first.as_bytes(), name.as_bytes()) && segments_match(rest, names)
            }
            None => false,
        },
    }
}

/// One name against one glob: `*` any run, `?` one character, `[a-z]`/`[!x]` a class, `\x` `x`.
fn glob(pattern: &[u8], name: &[u8]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some((b'*', rest)) => (0..=name.len()).any(|skip| glob(rest, &name[skip..])),
        Some((b'?', rest)) => !name.is_empty() && glob(rest, &name[1..]),
        Some((b'[', rest)) => {
            let Some(close) = rest.iter().skip(1).position(|&b| b == b']').map(|i| i + 1) else {
                return name.first() == Some(&b'[') && glob(rest, &name[1..]);
            };
            let Some((&c, name_rest)) = name.split_first() else {
                return false;
            };
            let class = &rest[..close];
            let (negated, class) = match class.first() {
                Some(b'!' | b'^') => (true, &class[1..]),
                _ => (false, class),
            };
            let mut found = false;
            let mut i = 0;
            while i < class.len() {
                if i + 2 < class.len() && class[i + 1] == b'-' {
                    found |= class[i] <= c && c <= class[i + 2];
                    i += 3;
                } else {
                    found |= class[i] == c;
                    i += 1;
                }
            }
            found != negated && glob(&rest[close + 1..], name_rest)
        }
        Some((b'\\', rest)) if !rest.is_empty() => {
            name.first() == Some(&rest[0]) && glob(&rest[1..], &name[1..])
        }
        Some((&c, rest)) => name.first() == Some(&c) && glob(rest, &name[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(path: &str) -> bool {
        at_with("**/.env", path, Lean::Wide)
    }

    fn at_with(pattern: &str, path: &str, lean: Lean) -> bool {
        let cwd = Path::new("/w/proj");
        let roots = [PathBuf::from("/w/proj"), PathBuf::from("/w/extra")];
        let place = Place {
            written: Path::new(path),
            real: Path::new(path),
            cwd,
            roots: &roots,
            home: Some(Path::new("/users/me")),
        };
        matches(pattern, &place, lean)
    }

    #[test]
    fn patterns_are_rooted_as_claude_roots_them() {
        assert!(at("/w/proj/.env"));
        assert!(at("/w/proj/a/b/.env"));
        assert!(at("/w/extra/.env"), "every root of the workspace");
        assert!(at("/elsewhere/.env"), "a deny still names a file outside");
        assert!(at("/w/proj/.ENV"), "a deny ignores case");
        assert!(!at("/w/proj/.env.example"));
        let narrow = |p: &str, path: &str| at_with(p, path, Lean::Narrow);
        assert!(
            !narrow("**/.env", "/elsewhere/.env"),
            "an allow only inside"
        );
        assert!(narrow("//etc/hosts", "/etc/hosts"));
        assert!(!narrow("//etc/hosts", "/w/proj/etc/hosts"));
        assert!(narrow("~/notes/**", "/users/me/notes/a.md"));
        assert!(narrow("/src/**", "/w/proj/src/main.rs"));
        assert!(
            !narrow("/src/**", "/w/proj/lib/src/main.rs"),
            "/ anchors at the project"
        );
        assert!(narrow("src/**", "/w/proj/src/a/b.rs"));
        assert!(narrow("./docs/*.md", "/w/proj/docs/a.md"));
        assert!(!narrow("./docs/*.md", "/w/proj/docs/sub/a.md"));
        assert!(
            narrow("*.md", "/w/proj/docs/sub/a.md"),
            "a name at any depth"
        );
        assert!(
            narrow("secret", "/w/proj/secret/key.pem"),
            "a directory covers its files"
        );
        assert!(narrow("[ab].txt", "/w/proj/a.txt"));
        assert!(!narrow("[!ab].txt", "/w/proj/a.txt"));
        assert!(!narrow("build/", "/w/proj/build"));
        assert!(narrow("build/", "/w/proj/build/out.o"));
    }

    #[test]
    fn a_windows_rule_names_a_drive_as_claude_spells_it() {
        let w = Os::Windows;
        let root = |rest: &str| {
            let (root, pattern) = absolute_root(rest, w);
            (root.to_string_lossy().into_owned(), pattern)
        };
        let expect = |root: &str, pattern: &str| (root.to_owned(), pattern.to_owned());
        assert_eq!(
            root("c/Users/me/**"),
            expect(r"C:\", "/Users/me/**"),
            "claude writes C:\\Users\\me as /c/Users/me"
        );
        assert_eq!(root("C/Users/me/a.txt"), expect(r"C:\", "/Users/me/a.txt"));
        assert_eq!(root("d/**"), expect(r"D:\", "/**"));
        assert_eq!(root("d"), expect(r"D:\", "/**"), "the whole drive");
        assert_eq!(
            root("/server/share/docs/**"),
            expect(r"\\server\share\", "/docs/**"),
            "a UNC path, //server/share in claude's form"
        );
        assert_eq!(
            root("cache/x"),
            expect("/", "/cache/x"),
            "a longer first name is no drive"
        );
        assert_eq!(
            absolute_root("c/Users/me/**", Os::Linux),
            (PathBuf::from("/"), "/c/Users/me/**".to_owned()),
            "elsewhere /c is a folder"
        );
    }

    #[test]
    fn a_deny_sees_the_path_as_written_and_as_resolved() {
        let roots = [PathBuf::from("/w/proj")];
        let place = Place {
            written: Path::new("/w/proj/link.txt"),
            real: Path::new("/outside/secret.txt"),
            cwd: Path::new("/w/proj"),
            roots: &roots,
            home: None,
        };
        assert!(matches("link.txt", &place, Lean::Wide));
        assert!(matches("//outside/**", &place, Lean::Wide));
        assert!(!matches("link.txt", &place, Lean::Narrow));
        let dotted = Place {
            written: Path::new("/w/proj/../outside/secret.txt"),
            ..place
        };
        assert!(matches("//outside/secret.txt", &dotted, Lean::Wide));
    }
}
