//! Everything that differs between Unix (Linux, macOS) and Windows, one module per concern, each
//! with one interface: the rest of the crate never writes `cfg(unix)` / `cfg(windows)`.
//!
//! - [`process`]: starting claude so that it and everything it starts can be killed as one, even
//!   when the adapter itself is killed outright (a reaper process on Unix, a Job object on Windows).
//! - [`signals`]: the termination requests the adapter answers by stopping every claude.
//! - [`clock`]: a monotonic clock shared by every process on the machine (for the benchmark).
//! - [`files`]: files only their owner can read, and what counts as an executable.
//! - [`dirs`]: the user's cache directory.
//! - [`memory`]: the allocator's handling of big blocks (a big payload held once, given back).
//! - [`os`]: which system this is, as a value (for logic unit-tested for every system).
//! - [`real_path`]: a path as the file system reaches it (`..` and symlinks resolved).
//! - [`run`]: running a short helper command with a time limit.
//! - [`stdio`]: this process's stdin and stdout as async streams (the editor's side of ACP), and
//!   closing its stdout (the stand-in playing a claude that does).

pub mod clock;
pub(crate) mod dirs;
pub mod files;
pub mod memory;
pub(crate) mod os;
pub mod process;
pub(crate) mod real_path;
pub(crate) mod run;
pub(crate) mod signals;
pub(crate) mod stdio;
