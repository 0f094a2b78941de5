//! A claude that runs as a task of this process, speaking stream-json over in-memory pipes: read,
//! written and reported exactly as a child process is (one `Exited` after the last message,
//! pending requests failed), so the session cannot tell the difference. Tests use it to run the
//! stand-in without starting a process.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::DuplexStream;
use tokio::sync::watch;
use tokio::task::{AbortHandle, JoinHandle};

use super::connection::ClaudeHandle;
use super::events::{ClaudeEvent, EventReceiver, ExitInfo};
use super::pending::PendingRequests;
use super::streams::{StderrTail, read_stderr, read_stdout};

/// Pipe capacity: small enough that a reader which stops reading is noticed, as with an OS pipe.
const PIPE_BYTES: usize = 64 * 1024;

/// The claude's three streams, as it sees them.
pub(crate) struct Pipes {
    pub(crate) stdin: DuplexStream,
    pub(crate) stdout: DuplexStream,
    pub(crate) stderr: DuplexStream,
}

/// Runs `claude` (given its stdin, stdout and stderr; it returns its exit code) as a task: what
/// ends it, what talks to it, and what it says.
pub(crate) fn start<F>(
    claude: impl FnOnce(Pipes) -> F,
) -> (InProcessClaude, ClaudeHandle, EventReceiver)
where
    F: Future<Output = i32> + Send + 'static,
{
    let (stdin_ours, stdin_theirs) = tokio::io::duplex(PIPE_BYTES);
    let (stdout_theirs, stdout_ours) = tokio::io::duplex(PIPE_BYTES);
    let (stderr_theirs, stderr_ours) = tokio::io::duplex(PIPE_BYTES);
    let task = tokio::spawn(claude(Pipes {
        stdin: stdin_theirs,
        stdout: stdout_theirs,
        stderr: stderr_theirs,
    }));
    let abort = task.abort_handle();

    let pending = Arc::new(PendingRequests::default());
    let (events_tx, events) = super::events::channel();
    let (exit_tx, exit) = watch::channel(None);
    let handle = ClaudeHandle::start(stdin_ours, Arc::clone(&pending), exit.clone());
    let reader = {
        let (pending, events) = (Arc::clone(&pending), events_tx.clone());
        tokio::spawn(async move { read_stdout(stdout_ours, &pending, &events).await })
    };
    let tail = StderrTail::default();
    let stderr_reader = tokio::spawn(read_stderr(stderr_ours, tail.clone()));
    tokio::spawn(async move {
        let info = exit_info(task.await, stderr_reader, tail).await;
        // The task is over, so its stdout is closed: every message is read before `Exited`.
        let _ = reader.await;
        pending.fail_all(&info.status, &info.stderr_tail);
        exit_tx.send_replace(Some(info.clone()));
        events_tx.send_now(ClaudeEvent::Exited(info));
    });
    let claude = InProcessClaude {
        abort,
        exit,
        handle: handle.clone(),
    };
    (claude, handle, events)
}

async fn exit_info(
    ended: Result<i32, tokio::task::JoinError>,
    stderr_reader: JoinHandle<()>,
    tail: StderrTail,
) -> ExitInfo {
    let _ = stderr_reader.await;
    let (status, code) = match ended {
        Ok(code) => (format!("exit code {code}"), Some(code)),
        Err(e) if e.is_cancelled() => ("killed".to_owned(), None),
        Err(e) => (format!("panicked ({e})"), None),
    };
    ExitInfo {
        status,
        code,
        stderr_tail: tail.text(),
    }
}

/// A claude running as a task. Dropping it aborts the task.
pub(crate) struct InProcessClaude {
    abort: AbortHandle,
    exit: watch::Receiver<Option<ExitInfo>>,
    handle: ClaudeHandle,
}

impl InProcessClaude {
    pub(crate) fn kill(&self) {
        self.abort.abort();
    }

    pub(crate) async fn shutdown(&mut self, grace: Duration) {
        self.handle.close_stdin();
        let exited = tokio::time::timeout(grace, self.exit.wait_for(Option::is_some))
            .await
            .is_ok_and(|waited| waited.is_ok());
        if !exited {
            self.kill();
        }
    }
}

impl Drop for InProcessClaude {
    fn drop(&mut self) {
        self.kill();
    }
}
