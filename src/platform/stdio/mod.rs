//! This process's stdin and stdout as async streams (the editor's side of ACP).
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
}

/// A stream read from the editor.
pub type Input = Pin<Box<dyn AsyncRead + Send>>;
/// A stream written to the editor.
pub type Output = Pin<Box<dyn AsyncWrite + Send>>;

/// This process's stdin.
pub fn stdin() -> Input {
    imp::stdin()
}

/// This process's stdout.
pub fn stdout() -> Output {
    imp::stdout()
}
