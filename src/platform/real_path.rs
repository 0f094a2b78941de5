//! A path as the file system will reach it: absolute, `..` and symlinks resolved, the way claude
//! decides whether a path is inside the workspace. A file that does not exist yet resolves through
//! its nearest existing parent; a dangling symlink through its target, since a write would follow
//! it.
//!
//! `std::fs::canonicalize` gives a verbatim path on Windows (`\\?\C:\...`); every path compared
//! with one (the roots too) goes through here, so the spellings agree.

use std::path::{Component, Path, PathBuf};

/// How many symlinks one resolution follows before giving up (Linux's own limit).
const MAX_LINKS: usize = 40;

/// `path` resolved, or `None` when it cannot be (a symlink loop, a relative path).
pub(crate) fn real_path(path: &Path) -> Option<PathBuf> {
    let mut links = 0;
    resolve(path, &mut links)
}

fn resolve(path: &Path, links: &mut usize) -> Option<PathBuf> {
    if !path.is_absolute() {
        return None;
    }
    let mut resolved = PathBuf::new();
    // Once a part does not exist, nothing below it does: the rest is taken as written.
    let mut missing = false;
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => resolved.push(component.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                resolved.pop();
            }
            Component::Normal(name) => {
                let next = resolved.join(name);
                if missing {
                    resolved = next;
                    continue;
                }
                match std::fs::symlink_metadata(&next) {
                    Err(_) => {
                        missing = true;
                        resolved = next;
                    }
                    Ok(meta) if meta.file_type().is_symlink() => {
                        *links += 1;
                        if *links > MAX_LINKS {
                            return None;
                        }
                        let target = std::fs::read_link(&next).ok()?;
                        let target = resolved.join(target);
                        resolved = resolve(&target, links)?;
                        missing = std::fs::symlink_metadata(&resolved).is_err();
                    }
                    Ok(_) => resolved = next,
                }
            }
        }
    }
    // The same spelling `canonicalize` gives (a verbatim prefix on Windows) for what exists.
    if !missing {
        return std::fs::canonicalize(&resolved).ok().or(Some(resolved));
    }
    let mut existing = resolved.clone();
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(&existing).is_err() {
        rest.push(existing.file_name()?.to_owned());
        if !existing.pop() {
            return Some(resolved);
        }
    }
    let mut out = std::fs::canonicalize(&existing).unwrap_or(existing);
    out.extend(rest.iter().rev());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dots_symlinks_and_missing_files_resolve_as_the_file_system_reaches_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let ws = root.join("ws");
        let outside = root.join("outside");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.txt"), "s").unwrap();
        let real = |p: PathBuf| real_path(&p).unwrap();
        assert_eq!(
            real(ws.join("../outside/secret.txt")),
            outside.join("secret.txt")
        );
        assert_eq!(real(ws.join("new/../../outside/x")), outside.join("x"));
        assert_eq!(real(ws.join("a/b/c.txt")), ws.join("a/b/c.txt"));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.join("secret.txt"), ws.join("link.txt")).unwrap();
            std::os::unix::fs::symlink(&outside, ws.join("dir")).unwrap();
            std::os::unix::fs::symlink(outside.join("new.txt"), ws.join("dangling")).unwrap();
            std::os::unix::fs::symlink("loop", ws.join("loop")).unwrap();
            assert_eq!(real(ws.join("link.txt")), outside.join("secret.txt"));
            assert_eq!(
                real(ws.join("dir/made/up.txt")),
                outside.join("made/up.txt")
            );
            assert_eq!(real(ws.join("dangling")), outside.join("new.txt"));
            assert_eq!(real_path(&ws.join("loop")), None);
        }
        assert_eq!(real_path(Path::new("relative")), None);
    }
}
