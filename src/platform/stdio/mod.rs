//! This process's stdin and stdout as async streams (the editor's side of ACP), and closing its
//! stdout, where the stand-in plays a claude that closes its stdout and lives on.
//!
//! - Unix: where they are pipes or sockets (what editors give us), non-blocking descriptors on
//!   tokio's reactor, so reading the editor and writing to it costs no hand-off to a blocking
//!   thread. A terminal or a regular file (which epoll cannot watch) keeps tokio's blocking stdio.
//! - Windows: tokio's own stdio (anonymous pipes there cannot be registered with the reactor).

use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as imp;
#[cfg(windows)]
mod imp {
    pub(super) fn stdin() -> super::Input {
        Box::pin(tokio::io::stdin())
    }

    pub(super) fn stdout() -> super::Output {
        Box::pin(tokio::io::stdout())
    }

    pub(super) fn close_stdout() -> std::io::Result<()> {
        use std::os::windows::io::AsRawHandle;
        let handle = std::io::stdout().as_raw_handle();
        // SAFETY: closing the standard output handle this process owns; later writes fail.
        if unsafe { windows_sys::Win32::Foundation::CloseHandle(handle as _) } != 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
}

/// A stream read from the editor.
pub(crate) type Input = Pin<Box<dyn AsyncRead + Send>>;
/// A stream written to the editor.
pub(crate) type Output = Pin<Box<dyn AsyncWrite + Send>>;

/// This process's stdin.
pub(crate) fn stdin() -> Input {
    imp::stdin()
}

/// This process's stdout.
pub(crate) fn stdout() -> Output {
    imp::stdout()
}

/// Closes this process's stdout (its descriptor or handle, not just a buffered writer): the pipe's
/// reader sees end-of-file. Later writes to stdout fail.
pub(crate) fn close_stdout() -> std::io::Result<()> {
    imp::close_stdout()
}
