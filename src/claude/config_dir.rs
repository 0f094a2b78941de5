//! Where claude keeps its configuration and transcripts: `$CLAUDE_CONFIG_DIR`, else `.claude` in
//! the home directory.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::platform::os::Os;

/// claude's config dir: `$CLAUDE_CONFIG_DIR`, else `.claude` in the home directory (`$HOME`;
/// `%USERPROFILE%` on Windows). `None` without either.
pub(crate) fn default_config_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let home_var = if Os::CURRENT == Os::Windows {
        "USERPROFILE"
    } else {
        "HOME"
    };
    config_dir_from(Os::CURRENT, var("CLAUDE_CONFIG_DIR"), var(home_var))
}

/// claude's config dir from `CLAUDE_CONFIG_DIR` and the home directory, on `os`.
pub(crate) fn config_dir_from(
    os: Os,
    config_dir: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    if let Some(dir) = config_dir {
        return Some(PathBuf::from(dir));
    }
    let home = home?;
    let home = home.to_string_lossy();
    let home = home.trim_end_matches(['/', '\\']);
    Some(PathBuf::from(format!(
        "{home}{}.claude",
        os.dir_separator()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_dir_per_platform() {
        let some = |s: &str| Some(OsString::from(s));
        assert_eq!(
            config_dir_from(Os::Windows, None, some(r"C:\Users\me")),
            Some(PathBuf::from(r"C:\Users\me\.claude"))
        );
        assert_eq!(
            config_dir_from(Os::MacOs, None, some("/Users/me/")),
            Some(PathBuf::from("/Users/me/.claude"))
        );
        assert_eq!(
            config_dir_from(Os::Windows, some(r"D:\cfg"), some(r"C:\Users\me")),
            Some(PathBuf::from(r"D:\cfg"))
        );
        assert_eq!(config_dir_from(Os::Linux, None, None), None);
    }
}
