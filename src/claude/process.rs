//! Spawning claude in its own process group and supervising it until it exits: one `Exited` event,
//! pending requests failed, and nothing it started left running.

use std::io;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::process::{Child, Command};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::connection::ClaudeHandle;
use super::error::ClaudeError;
use super::events::{self, ClaudeEvent, EventReceiver, EventSender, ExitInfo};
use super::group;
use super::locate::ClaudeCommand;
use super::pending::PendingRequests;
use super::streams::{StderrTail, read_stderr, read_stdout};
use crate::platform::process::{self as platform, ProcessTree};

/// After claude exits, how long its stdout may take to drain before the rest is given up on (only a
/// process that escaped claude's group can hold the pipe open that long).
const STDOUT_DRAIN: Duration = Duration::from_secs(2);
const STDERR_DRAIN: Duration = Duration::from_millis(500);
/// How long a claude whose stdout closed may take to exit before it is killed.
const STDOUT_EOF_GRACE: Duration = Duration::from_secs(2);
/// After SIGKILL, how long `shutdown` waits to see the exit.
const KILL_REAP_WAIT: Duration = Duration::from_secs(2);

/// How to start claude.
#[derive(Debug, Clone)]
pub(crate) struct SpawnOptions {
    pub(crate) command: ClaudeCommand,
    pub(crate) cwd: PathBuf,
    /// claude's own arguments, after `command.prefix_args`.
    pub(crate) args: Vec<String>,
    /// Set on top of the adapter's environment, which claude inherits unchanged.
    pub(crate) extra_env: Vec<(String, String)>,
}

/// The running claude. Dropping it kills claude and everything it started.
pub(crate) struct ClaudeProcess {
    pid: u32,
    exit: watch::Receiver<Option<ExitInfo>>,
    handle: ClaudeHandle,
}

impl ClaudeProcess {
    /// Starts claude and the tasks that read its output. Must be called within a tokio runtime.
    ///
    /// Events come on a channel bounded in bytes: a session that stops taking them (its editor
    /// is slow) stops the reader, and claude's full pipe stops claude. Nothing is dropped.
    pub(crate) fn spawn(
        opts: SpawnOptions,
    ) -> Result<(ClaudeProcess, ClaudeHandle, EventReceiver), ClaudeError> {
        let mut command = Command::new(&opts.command.program);
        command
            .args(&opts.command.prefix_args)
            .args(&opts.args)
            .env(super::wire::STARTUP_FAILURE_RESULTS_ENV, "1")
            .envs(opts.extra_env.iter().map(|(k, v)| (k, v)))
            .current_dir(&opts.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        ProcessTree::prepare(&mut command);
        let spawn_error = |source| ClaudeError::Spawn {
            program: opts.command.program.clone(),
            source,
        };
        let (mut child, pid) = group::spawn_registered(|| {
            let mut child = command.spawn()?;
            let pid = child
                .id()
                .ok_or_else(|| io::Error::other("child exited before it had a pid"))?;
            match ProcessTree::adopt(&child) {
                Ok(tree) => Ok((child, pid, tree)),
                Err(error) => {
                    // Never run a claude whose children could not be killed with it.
                    let _ = child.start_kill();
                    Err(error)
                }
            }
        })
        .map_err(spawn_error)?;
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => unreachable!("all three pipes were requested"),
            };
        tracing::debug!(pid, program = %opts.command.program.display(), "claude started");

        let pending = Arc::new(PendingRequests::default());
        let (events_tx, events_rx) = events::channel();
        let (exit_tx, exit_rx) = watch::channel(None);
        let handle = ClaudeHandle::start(stdin, Arc::clone(&pending), exit_rx.clone());

        let reader = {
            let (pending, events) = (Arc::clone(&pending), events_tx.clone());
            tokio::spawn(async move { read_stdout(stdout, &pending, &events).await })
        };
        let tail = StderrTail::default();
        let stderr_reader = tokio::spawn(read_stderr(stderr, tail.clone()));
        let streams = Streams {
            reader,
            stderr_reader,
            tail,
        };
        tokio::spawn(supervise(child, pid, streams, pending, events_tx, exit_tx));

        let process = ClaudeProcess {
            pid,
            exit: exit_rx,
            handle: handle.clone(),
        };
        Ok((process, handle, events_rx))
    }

    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// Waits for claude to exit (and its output to be read).
    pub(crate) async fn wait(&mut self) -> ExitInfo {
        match self.exit.wait_for(Option::is_some).await {
            Ok(info) => info.clone().expect("waited for Some"),
            // The supervisor is gone (the runtime is shutting down): claude is being killed by Drop.
            Err(_) => ExitInfo {
                status: "unknown".into(),
                code: None,
                stderr_tail: String::new(),
            },
        }
    }

    /// Ends claude politely: notes what it runs (what is left of it is killed once it exits),
    /// closes its stdin, waits up to `grace` for it to exit, then kills its tree.
    pub(crate) async fn shutdown(&mut self, grace: Duration) -> ExitInfo {
        group::remember_group(self.pid);
        group::release_stdin(self.pid);
        self.handle.close_stdin();
        if let Ok(info) = tokio::time::timeout(grace, self.wait()).await {
            return info;
        }
        tracing::debug!(
            pid = self.pid,
            "claude did not exit after stdin closed; killing it"
        );
        self.kill();
        tokio::time::timeout(KILL_REAP_WAIT, self.wait())
            .await
            .unwrap_or_else(|_| ExitInfo {
                status: "still running after SIGKILL".into(),
                code: None,
                stderr_tail: String::new(),
            })
    }

    /// Kills claude's whole process tree now. Idempotent; does nothing once claude is reaped.
    pub(crate) fn kill(&self) {
        group::kill_group(self.pid);
    }
}

impl Drop for ClaudeProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

struct Streams {
    reader: JoinHandle<()>,
    stderr_reader: JoinHandle<()>,
    tail: StderrTail,
}

/// Waits for claude to exit, then cleans up and reports, in this order: leftovers in its group
/// killed, leader reaped, stdout drained (so every message comes before `Exited`), pending requests
/// failed, exit published, `Exited` sent.
async fn supervise(
    mut child: Child,
    pid: u32,
    mut streams: Streams,
    pending: Arc<PendingRequests>,
    events: EventSender,
    exit: watch::Sender<Option<ExitInfo>>,
) {
    // A claude that closes its stdout yet lives on can never answer again: it gets
    // `STDOUT_EOF_GRACE` to exit on its own, then its group is killed. `Some(killed)` once the
    // reader is done before the exit.
    let mut stdout_closed_first = None;
    let exited = platform::wait_exited_keeping_id(pid);
    tokio::pin!(exited);
    let watched = tokio::select! {
        watched = &mut exited => watched,
        _ = &mut streams.reader => match tokio::time::timeout(STDOUT_EOF_GRACE, &mut exited).await {
            Ok(watched) => {
                stdout_closed_first = Some(false);
                watched
            }
            Err(_) => {
                tracing::info!(pid, "claude closed its stdout but kept running; stopping it");
                stdout_closed_first = Some(true);
                group::kill_group(pid);
                exited.await
            }
        },
    };
    let status = if watched {
        group::retire_group(pid);
        child.wait().await
    } else {
        // Reap, then clean up the tree (on Unix a tiny pid-reuse window; none on Windows, where the
        // job handle names the tree).
        let status = child.wait().await;
        group::retire_group(pid);
        status
    };
    // A reader held back by a slow session is still draining: only a pipe held open by an escaped
    // process is given up on.
    while stdout_closed_first.is_none()
        && tokio::time::timeout(STDOUT_DRAIN, &mut streams.reader)
            .await
            .is_err()
    {
        if events.is_held_back() {
            continue;
        }
        tracing::info!(
            pid,
            "claude's stdout stayed open after it exited; dropping the rest"
        );
        streams.reader.abort();
        break;
    }
    if tokio::time::timeout(STDERR_DRAIN, &mut streams.stderr_reader)
        .await
        .is_err()
    {
        streams.stderr_reader.abort();
    }
    let mut info = ExitInfo::new(status, streams.tail.text());
    if stdout_closed_first == Some(true) {
        info.status = format!(
            "claude closed its stdout but kept running, so it was stopped: {}",
            info.status
        );
    }
    tracing::debug!(pid, status = %info.status, "claude exited");
    pending.fail_all(&info.status, &info.stderr_tail);
    exit.send_replace(Some(info.clone()));
    events.send_now(ClaudeEvent::Exited(info));
}
