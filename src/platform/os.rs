//! Which operating system this build runs on, as a value, so logic that differs per system (where
//! claude is installed, how paths are written) can be written once and unit-tested for every
//! system on any of them.

/// The systems claude-acp runs on, as far as their conventions differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// `MacOs` is the system's name, not a repetition of the enum's.
#[allow(clippy::enum_variant_names)]
pub(crate) enum Os {
    Linux,
    MacOs,
    Windows,
}

impl Os {
    /// The system this binary was built for (other Unixes follow Linux's conventions).
    pub(crate) const CURRENT: Os = if cfg!(windows) {
        Os::Windows
    } else if cfg!(target_os = "macos") {
        Os::MacOs
    } else {
        Os::Linux
    };

    /// The separator between directories in `PATH`.
    pub(crate) fn path_list_separator(self) -> char {
        match self {
            Os::Windows => ';',
            Os::Linux | Os::MacOs => ':',
        }
    }

    /// The separator between a path's components.
    pub(crate) fn dir_separator(self) -> char {
        match self {
            Os::Windows => '\\',
            Os::Linux | Os::MacOs => '/',
        }
    }
}
