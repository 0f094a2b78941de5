//! Files only their owner can read, and what counts as a program one can start.
//!
//! Unix: a new file gets mode 0600. Windows has no mode bits: a new file inherits the ACL of its
//! directory, and the directory we use, the user's own temp folder (`GetTempPath2`, under the
//! profile: `C:\Users\<me>\AppData\Local\Temp`), grants access to that user, SYSTEM and
//! Administrators only, like mode 0600 (root can read those on Unix too).

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// The directory for private files that live as long as the adapter: the user's temp directory.
pub(crate) fn private_dir() -> PathBuf {
    std::env::temp_dir()
}

/// Creates `path` for writing, readable and writable by its owner only. Fails if it exists, so a
/// planted file or symlink is never followed or reused.
pub(crate) fn create_private(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    imp::owner_only(&mut options);
    options.open(path)
}

/// Replaces `path` with `bytes` at once: written to a new owner-only file beside it, then renamed
/// over it, so a reader sees the old content or the new, never half of it.
pub(crate) fn replace_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write as _;
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temp = dir.join(format!(".{name}.{}.tmp", uuid::Uuid::new_v4().simple()));
    let written = create_private(&temp).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    let result = written.and_then(|()| std::fs::rename(&temp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// Opens `path` for appending, creating it readable and writable by its owner only (a log file:
/// what it quotes is the user's alone). An existing file keeps its mode.
pub(crate) fn append_private(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    imp::owner_only(&mut options);
    options.open(path)
}

/// Whether a file with this metadata can be started as a program: an executable mode bit on Unix;
/// on Windows a `.exe` or `.com` (a `.cmd` or `.bat` needs cmd.exe, see `claude::locate`).
pub(crate) fn is_program(path: &Path, metadata: &Metadata) -> bool {
    metadata.is_file() && imp::is_program(path, metadata)
}

/// Marks a file we wrote (a script) as executable where that is a permission (Unix).
pub fn make_executable(path: &Path) -> io::Result<()> {
    imp::make_executable(path)
}

/// Whether only the owner may read `metadata`'s file (mode 0600 or stricter on Unix); on Windows,
/// where this is the directory's ACL, always true.
#[cfg(test)]
pub(crate) fn is_owner_only(metadata: &Metadata) -> bool {
    imp::is_owner_only(metadata)
}

#[cfg(unix)]
mod imp {
    use std::fs::{Metadata, OpenOptions, Permissions};
    use std::io;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    use std::path::Path;

    pub(crate) fn owner_only(options: &mut OpenOptions) {
        options.mode(0o600);
    }

    pub(crate) fn is_program(_path: &Path, metadata: &Metadata) -> bool {
        metadata.permissions().mode() & 0o111 != 0
    }

    pub(crate) fn make_executable(path: &Path) -> io::Result<()> {
        std::fs::set_permissions(path, Permissions::from_mode(0o755))
    }

    #[cfg(test)]
    pub(crate) fn is_owner_only(metadata: &Metadata) -> bool {
        metadata.permissions().mode() & 0o077 == 0
    }
}

#[cfg(windows)]
mod imp {
    use std::fs::{Metadata, OpenOptions};
    use std::io;
    use std::path::Path;

    pub(crate) fn owner_only(_options: &mut OpenOptions) {
        // The ACL comes from the per-user directory the file is created in (see the module doc).
    }

    pub(crate) fn is_program(path: &Path, _metadata: &Metadata) -> bool {
        path.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("exe") || e.eq_ignore_ascii_case("com"))
    }

    pub(crate) fn make_executable(_path: &Path) -> io::Result<()> {
        // Windows decides by extension, not by a permission bit.
        Ok(())
    }

    #[cfg(test)]
    pub(crate) fn is_owner_only(_metadata: &Metadata) -> bool {
        true
    }
}
