//! The termination requests that make the adapter stop every claude and exit: SIGTERM, SIGINT,
//! SIGHUP and SIGQUIT on Unix; Ctrl-C, Ctrl-Break, console close, logoff and shutdown on Windows.

/// A termination request that arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Termination {
    /// "SIGTERM", "Ctrl-C", ...
    pub(crate) name: &'static str,
    /// The exit status the adapter ends with.
    pub(crate) exit_code: i32,
}

/// Waits for the first termination request. Never returns if none can be listened for.
pub(crate) async fn termination() -> Termination {
    imp::termination().await
}

#[cfg(unix)]
mod imp {
    use super::Termination;
    use tokio::signal::unix::{Signal, SignalKind, signal};

    pub(crate) async fn termination() -> Termination {
        let listen = |kind: SignalKind| {
            signal(kind)
                .inspect_err(|error| tracing::info!(%error, "cannot listen for a signal"))
                .ok()
        };
        let (mut term, mut int, mut hup, mut quit) = (
            listen(SignalKind::terminate()),
            listen(SignalKind::interrupt()),
            listen(SignalKind::hangup()),
            listen(SignalKind::quit()),
        );
        let (name, number) = tokio::select! {
            _ = arrival(&mut term) => ("SIGTERM", libc::SIGTERM),
            _ = arrival(&mut int) => ("SIGINT", libc::SIGINT),
            _ = arrival(&mut hup) => ("SIGHUP", libc::SIGHUP),
            _ = arrival(&mut quit) => ("SIGQUIT", libc::SIGQUIT),
        };
        Termination {
            name,
            // The conventional exit status for death by signal.
            exit_code: 128 + number,
        }
    }

    /// The next arrival of the signal; never, for one that could not be listened for.
    async fn arrival(signal: &mut Option<Signal>) {
        match signal {
            Some(signal) => {
                signal.recv().await;
            }
            None => std::future::pending().await,
        }
    }
}

#[cfg(windows)]
mod imp {
    use super::Termination;
    use tokio::signal::windows;

    /// STATUS_CONTROL_C_EXIT, what a console program killed by Ctrl-C exits with.
    const CONTROL_C_EXIT: i32 = 0xC000_013Au32 as i32;

    pub(crate) async fn termination() -> Termination {
        let (Ok(mut c), Ok(mut brk), Ok(mut close), Ok(mut logoff), Ok(mut shutdown)) = (
            windows::ctrl_c(),
            windows::ctrl_break(),
            windows::ctrl_close(),
            windows::ctrl_logoff(),
            windows::ctrl_shutdown(),
        ) else {
            tracing::info!("cannot listen for console control events");
            return std::future::pending().await;
        };
        let name = tokio::select! {
            _ = c.recv() => "Ctrl-C",
            _ = brk.recv() => "Ctrl-Break",
            _ = close.recv() => "console close",
            _ = logoff.recv() => "logoff",
            _ = shutdown.recv() => "shutdown",
        };
        Termination {
            name,
            exit_code: CONTROL_C_EXIT,
        }
    }
}
