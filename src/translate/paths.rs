//! Paths as the editor writes them: on Windows `C:\dir\file`, whatever separators claude used
//! (claude for Windows writes `C:/dir/file`, `C:\dir/file` and `/dir/file` alike), and paths from
//! the editor taken with either separator. Pure string logic over an [`Os`] value, so the Windows
//! rules are unit-tested on any system.

use crate::platform::os::Os;

/// `path` with the editor's separators: on Windows every `/` becomes `\`; elsewhere unchanged.
pub(crate) fn editor_form(path: &str, os: Os) -> String {
    match os {
        Os::Windows => path.replace('/', "\\"),
        Os::Linux | Os::MacOs => path.to_owned(),
    }
}

/// Whether `path` names a place without a working directory: `/x` on Unix; on Windows a drive
/// path (`C:\x`, `C:/x`) or a UNC path (`\\server\share`, `//server/share`).
pub(crate) fn is_absolute(path: &str, os: Os) -> bool {
    match os {
        Os::Windows => {
            let b = path.as_bytes();
            let drive = b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && is_sep(b[2]);
            let unc = b.len() >= 2 && is_sep(b[0]) && is_sep(b[1]);
            drive || unc
        }
        Os::Linux | Os::MacOs => path.starts_with('/'),
    }
}

/// `path` made absolute against `cwd`, in the editor's form (so it can be opened).
pub(crate) fn absolute(path: &str, cwd: &str, os: Os) -> String {
    if is_absolute(path, os) {
        return editor_form(path, os);
    }
    let sep = os.dir_separator();
    let cwd = editor_form(cwd, os);
    if os == Os::Windows && path.starts_with(['/', '\\']) {
        // Rooted on the working directory's drive (`\x` with a cwd on `D:` is `D:\x`).
        let drive = cwd.get(..2).filter(|d| d.ends_with(':')).unwrap_or("");
        return format!("{drive}{}", editor_form(path, os));
    }
    let path = editor_form(path, os);
    let path = path.strip_prefix(&format!(".{sep}")).unwrap_or(&path);
    if cwd.ends_with(sep) {
        format!("{cwd}{path}")
    } else {
        format!("{cwd}{sep}{path}")
    }
}

/// `path` relative to `cwd` when it lies inside it (for titles), else as given; in the editor's
/// form. On Windows the comparison ignores case, as the file system does.
pub(crate) fn display(path: &str, cwd: &str, os: Os) -> String {
    let full = if is_absolute(path, os) {
        editor_form(path, os)
    } else {
        return editor_form(path, os);
    };
    let inside = components(&full, os);
    let root = components(cwd, os);
    let same = |a: &&str, b: &&str| match os {
        Os::Windows => a.eq_ignore_ascii_case(b),
        Os::Linux | Os::MacOs => a == b,
    };
    let is_inside = inside.len() > root.len() && inside.iter().zip(&root).all(|(a, b)| same(a, b));
    if is_inside {
        inside[root.len()..].join(&os.dir_separator().to_string())
    } else {
        full
    }
}

/// `path` (made absolute against `cwd`) as claude matches it against a file rule's pattern: on
/// Windows claude turns `C:\dir\file` into `/c/dir/file` (and `\\server\share` into
/// `//server/share`) before matching, so a rule names that form; elsewhere the absolute path.
/// A rule's absolute pattern is `/` followed by this.
pub(crate) fn rule_form(path: &str, cwd: &str, os: Os) -> String {
    let full = absolute(path, cwd, os);
    match os {
        Os::Windows => {
            let posix = full.replace('\\', "/");
            let b = posix.as_bytes();
            if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
                format!("/{}{}", posix[..1].to_ascii_lowercase(), &posix[2..])
            } else {
                posix
            }
        }
        Os::Linux | Os::MacOs => full,
    }
}

/// The names along `path` (empty and `.` ones dropped); on Windows either separator splits.
fn components(path: &str, os: Os) -> Vec<&str> {
    let split: &[char] = match os {
        Os::Windows => &['/', '\\'],
        Os::Linux | Os::MacOs => &['/'],
    };
    path.split(split)
        .filter(|c| !c.is_empty() && *c != ".")
        .collect()
}

fn is_sep(b: u8) -> bool {
    b == b'/' || b == b'\\'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_names_a_windows_path_in_the_posix_form_claude_matches() {
        let w = Os::Windows;
        assert_eq!(
            rule_form(r"Z:\tmp\work/hello.txt", r"Z:\tmp\work", w),
            "/z/tmp/work/hello.txt"
        );
        assert_eq!(
            rule_form("src/main.rs", r"C:\Users\ada\app", w),
            "/c/Users/ada/app/src/main.rs"
        );
        assert_eq!(
            rule_form(r"\\server\share\a.txt", r"C:\x", w),
            "//server/share/a.txt"
        );
        assert_eq!(
            rule_form("hello.txt", "/tmp/work", Os::Linux),
            "/tmp/work/hello.txt"
        );
        assert_eq!(
            rule_form("/etc/hosts", "/tmp/work", Os::MacOs),
            "/etc/hosts"
        );
    }

    #[test]
    fn windows_paths_reach_the_editor_in_its_own_form() {
        let cwd = r"C:\Users\me\proj";
        // (claude's path, absolute for locations and diffs, shown in titles)
        let table = [
            (
                r"C:\Users\me\proj\src\main.rs",
                r"C:\Users\me\proj\src\main.rs",
                r"src\main.rs",
            ),
            (
                "C:/Users/me/proj/src/main.rs",
                r"C:\Users\me\proj\src\main.rs",
                r"src\main.rs",
            ),
            (
                r"C:\Users\me\proj/hello.txt",
                r"C:\Users\me\proj\hello.txt",
                "hello.txt",
            ),
            (
                r"c:\users\ME\Proj\a.txt",
                r"c:\users\ME\Proj\a.txt",
                "a.txt",
            ),
            ("src/lib.rs", r"C:\Users\me\proj\src\lib.rs", r"src\lib.rs"),
            ("./x.txt", r"C:\Users\me\proj\x.txt", r".\x.txt"),
            ("/tmp/x.txt", r"C:\tmp\x.txt", r"\tmp\x.txt"),
            (r"D:\other\y.txt", r"D:\other\y.txt", r"D:\other\y.txt"),
            (
                r"C:\Users\me\project2\z",
                r"C:\Users\me\project2\z",
                r"C:\Users\me\project2\z",
            ),
            (
                r"\\server\share\f.txt",
                r"\\server\share\f.txt",
                r"\\server\share\f.txt",
            ),
            (
                "//server/share/f.txt",
                r"\\server\share\f.txt",
                r"\\server\share\f.txt",
            ),
        ];
        for (claude, whole, shown) in table {
            assert_eq!(
                absolute(claude, cwd, Os::Windows),
                whole,
                "absolute {claude}"
            );
            assert_eq!(display(claude, cwd, Os::Windows), shown, "display {claude}");
        }
    }

    #[test]
    fn a_windows_cwd_from_the_editor_is_taken_with_either_separator() {
        for cwd in [
            r"C:\Users\me\proj",
            "C:/Users/me/proj",
            r"C:\Users\me\proj\",
            "C:/Users/me/proj/",
        ] {
            assert_eq!(
                absolute("src/main.rs", cwd, Os::Windows),
                r"C:\Users\me\proj\src\main.rs",
                "cwd {cwd}"
            );
            assert_eq!(
                display("C:/Users/me/proj/src/main.rs", cwd, Os::Windows),
                r"src\main.rs",
                "cwd {cwd}"
            );
        }
    }

    #[test]
    fn unix_paths_are_left_as_claude_wrote_them() {
        let cwd = "/home/me/proj";
        let table = [
            (
                "/home/me/proj/src/main.rs",
                "/home/me/proj/src/main.rs",
                "src/main.rs",
            ),
            ("src/lib.rs", "/home/me/proj/src/lib.rs", "src/lib.rs"),
            (
                "/home/me/project2/z",
                "/home/me/project2/z",
                "/home/me/project2/z",
            ),
            ("/home/me/proj", "/home/me/proj", "/home/me/proj"),
            (r"/home/me/proj/a\b", r"/home/me/proj/a\b", r"a\b"),
            ("/HOME/me/proj/x", "/HOME/me/proj/x", "/HOME/me/proj/x"),
        ];
        for os in [Os::Linux, Os::MacOs] {
            for (claude, whole, shown) in table {
                assert_eq!(absolute(claude, cwd, os), whole, "absolute {claude}");
                assert_eq!(display(claude, cwd, os), shown, "display {claude}");
            }
        }
    }
}
