//! Where there are no network namespaces (macOS): no private network can be entered, and callers
//! fall back to the host loopback (see `netns.rs` for Linux).

use std::io;

/// A network namespace; none can exist here.
#[derive(Clone, Debug)]
pub struct IsolatedNet {
    never: std::convert::Infallible,
}

impl IsolatedNet {
    pub fn enter_on_this_thread() -> io::Result<IsolatedNet> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "network namespaces are Linux-only",
        ))
    }

    pub fn run_inside<T: Send + 'static>(
        &self,
        _work: impl FnOnce() -> T + Send + 'static,
    ) -> io::Result<T> {
        match self.never {}
    }

    pub fn apply(&self, _command: &mut tokio::process::Command) {
        match self.never {}
    }
}
