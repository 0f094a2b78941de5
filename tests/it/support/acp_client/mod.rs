//! A scripted ACP client (the editor side) that drives the built `claude-acp` over stdio.
//!
//! Tests use it the way an editor would: send JSON-RPC lines, read the adapter's answers,
//! notifications and requests. Every line the adapter prints is recorded, so a failed wait can
//! show what the adapter did say, together with the tail of its stderr.
#![allow(dead_code)]

mod session;
mod state;

use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use session::{choose_permission, config_option};
#[allow(unused_imports)]
pub use state::{IncomingRequest, Responder, RpcError, WaitError};
use state::{Shared, Writer};

/// How long a request or a wait may take before the test fails, unless the test says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a graceful drop waits for the adapter to exit (it gives its claudes 1.5 s at most).
pub const GRACEFUL_DROP_WAIT: Duration = Duration::from_secs(5);

/// A running adapter process plus everything it has said so far.
///
/// All methods take `&self`, so a test can await a prompt while, concurrently, it answers a
/// permission request or sends `session/cancel`. Dropping the client kills the adapter process
/// (only that process: its own children are the adapter's job, which process tests check).
/// The claude-acp the tests drive: the one cargo built, or `CLAUDE_ACP_TEST_ADAPTER` (an absolute
/// path), so that a build for another target runs the same tests (`.ci/aarch64`: an aarch64 build
/// run under qemu-user).
pub fn adapter() -> &'static str {
    static ADAPTER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ADAPTER.get_or_init(|| match std::env::var("CLAUDE_ACP_TEST_ADAPTER") {
        Ok(path) if !path.is_empty() => path,
        _ => env!("CARGO_BIN_EXE_claude-acp").to_owned(),
    })
}

/// How many times longer than the tests' own limits a waiting client gives the adapter:
/// `CLAUDE_ACP_TEST_SLOWDOWN` (a whole number, default 1), for builds run under emulation
/// (`.ci/aarch64` sets 4: a debug build under qemu-user on two cores). Limits are not speed checks.
pub fn slowdown() -> u32 {
    static SLOWDOWN: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *SLOWDOWN.get_or_init(|| {
        std::env::var("CLAUDE_ACP_TEST_SLOWDOWN")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&n| n >= 1)
            .unwrap_or(1)
    })
}

pub struct AcpClient {
    shared: Arc<Shared>,
    writer: Arc<Writer>,
    child: tokio::sync::Mutex<Child>,
    pid: u32,
    stderr: Arc<Mutex<Vec<u8>>>,
    next_id: AtomicI64,
    timeout_ms: AtomicU64,
    tasks: Vec<JoinHandle<()>>,
    /// Drop closes stdin and waits for the adapter to end instead of killing it outright.
    graceful_drop: AtomicBool,
}

impl AcpClient {
    /// Spawns the built `claude-acp` with `args`, extra `env` (added to the inherited one) in
    /// `cwd`. Must be called inside a tokio runtime.
    pub fn spawn(args: &[&str], env: &[(&str, &str)], cwd: impl AsRef<Path>) -> Self {
        Self::spawn_program(adapter(), args, env, cwd)
    }

    /// Like [`AcpClient::spawn`] for any program that speaks ACP on stdio.
    pub fn spawn_program(
        program: impl AsRef<std::ffi::OsStr>,
        args: &[&str],
        env: &[(&str, &str)],
        cwd: impl AsRef<Path>,
    ) -> Self {
        let mut command = Command::new(program);
        command.args(args).current_dir(cwd);
        for (key, value) in env {
            command.env(key, value);
        }
        Self::from_command(command)
    }

    /// Spawns a command the caller configured (env cleared, say); stdio and kill-on-drop are set
    /// here.
    pub fn from_command(mut command: Command) -> Self {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command.kill_on_drop(true);
        let description = format!("{:?}", command.as_std());
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn {description}: {e}"));
        let pid = child.id().expect("a just-spawned child has a pid");
        let shared = Shared::new();
        let writer = Arc::new(tokio::sync::Mutex::new(child.stdin.take()));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
        let reader = tokio::spawn(state::read_loop(shared.clone(), writer.clone(), stdout));
        let stderr_sink = stderr.clone();
        let stderr_task = tokio::spawn(async move {
            let mut chunk = [0u8; 8192];
            while let Ok(n @ 1..) = stderr_pipe.read(&mut chunk).await {
                stderr_sink
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .extend_from_slice(&chunk[..n]);
            }
        });
        Self {
            shared,
            writer,
            child: tokio::sync::Mutex::new(child),
            pid,
            stderr,
            next_id: AtomicI64::new(1),
            timeout_ms: AtomicU64::new(DEFAULT_TIMEOUT.as_millis() as u64),
            tasks: vec![reader, stderr_task],
            graceful_drop: AtomicBool::new(false),
        }
    }

    /// When dropped (end of a test that did not fail), close stdin as an editor quitting does and
    /// wait up to [`GRACEFUL_DROP_WAIT`] for the adapter to end its claudes and exit, so that
    /// every line already sent to claude gets read by it. Killed outright after that.
    pub fn end_gracefully_on_drop(&self) {
        self.graceful_drop.store(true, Ordering::Relaxed);
    }

    /// The adapter's process id, for process-table checks.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The timeout used by `request`, `next_request` and the convenience calls.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.load(Ordering::Relaxed))
    }

    pub fn set_timeout(&self, timeout: Duration) {
        self.timeout_ms
            .store(timeout.as_millis() as u64, Ordering::Relaxed);
    }

    /// Writes `line` (a newline is added when missing) to the adapter's stdin as is.
    pub async fn send_raw(&self, line: &str) -> std::io::Result<()> {
        state::write_line(&self.shared, &self.writer, line).await
    }

    /// Sends a notification; panics (with diagnostics) when the adapter's stdin is gone.
    pub async fn notify(&self, method: &str, params: Value) {
        let line = json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string();
        if let Err(e) = self.send_raw(&line).await {
            panic!(
                "cannot send {method} notification: {e}\n{}",
                self.diagnostics()
            );
        }
    }

    /// Sends a request and waits for its response; panics on timeout or when the adapter closes
    /// its stdout first, showing what the adapter printed.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        self.request_with_timeout(method, params, self.timeout())
            .await
    }

    pub async fn request_with_timeout(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, RpcError> {
        match self.try_request(method, params, timeout).await {
            Ok(outcome) => outcome,
            Err(why) => panic!("{method} request: {why}\n{}", self.diagnostics()),
        }
    }

    /// Like `request`, but reports a timeout or a closed adapter instead of panicking.
    pub async fn try_request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Result<Value, RpcError>, WaitError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (answer, answered) = oneshot::channel();
        {
            let mut record = self.shared.lock();
            if record.closed {
                return Err(WaitError::Closed);
            }
            record.pending.insert(id, answer);
        }
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if self.send_raw(&line.to_string()).await.is_err() {
            self.shared.lock().pending.remove(&id);
            return Err(WaitError::Closed);
        }
        match tokio::time::timeout(timeout * slowdown(), answered).await {
            Ok(Ok(outcome)) => Ok(outcome),
            Ok(Err(_)) => Err(WaitError::Closed),
            Err(_) => {
                self.shared.lock().pending.remove(&id);
                Err(WaitError::Timeout)
            }
        }
    }

    /// Answers every later request for `method` with `respond` (its params in, result out).
    pub fn on_request(
        &self,
        method: &str,
        respond: impl Fn(&Value) -> Result<Value, (i64, String)> + Send + Sync + 'static,
    ) {
        let mut record = self.shared.lock();
        record.held_methods.remove(method);
        record
            .responders
            .insert(method.to_owned(), Arc::new(respond));
    }

    /// Keeps later requests for `method` unanswered until the test takes them with
    /// `next_request` and answers with `respond` / `respond_error`.
    pub fn hold_requests(&self, method: &str) {
        let mut record = self.shared.lock();
        record.responders.remove(method);
        record.held_methods.insert(method.to_owned());
    }

    /// Takes the oldest held request for `method`, waiting for one; panics on timeout.
    pub async fn next_request(&self, method: &str) -> IncomingRequest {
        let taken = self
            .shared
            .wait_for(self.timeout(), |record| {
                let index = record.held.iter().position(|r| r.method == method)?;
                record.held.remove(index)
            })
            .await;
        taken.unwrap_or_else(|why| {
            let hint = if self.shared.lock().held_methods.contains(method) {
                ""
            } else {
                " (call hold_requests first, or it is answered automatically)"
            };
            panic!(
                "waiting for a {method} request{hint}: {why}\n{}",
                self.diagnostics()
            )
        })
    }

    /// Answers a held request with a result.
    pub async fn respond(&self, id: &Value, result: Value) {
        self.send_response(id, Ok(result)).await;
    }

    /// Answers a held request with a JSON-RPC error.
    pub async fn respond_error(&self, id: &Value, code: i64, message: &str) {
        self.send_response(id, Err((code, message.to_owned())))
            .await;
    }

    async fn send_response(&self, id: &Value, outcome: Result<Value, (i64, String)>) {
        let line = state::response(id, outcome).to_string();
        if let Err(e) = self.send_raw(&line).await {
            panic!("cannot answer request {id}: {e}\n{}", self.diagnostics());
        }
    }

    /// Every well-formed JSON line the adapter printed on stdout, in order.
    pub fn transcript(&self) -> Vec<Value> {
        self.shared.lock().transcript.clone()
    }

    /// Lines on the adapter's stdout that were not JSON (stdout must carry only the protocol).
    pub fn invalid_lines(&self) -> Vec<String> {
        self.shared.lock().invalid_lines.clone()
    }

    /// Every line the client wrote to the adapter, in order.
    pub fn sent(&self) -> Vec<String> {
        self.shared.lock().sent.clone()
    }

    /// Every request the adapter sent, answered or not, in order.
    pub fn requests(&self) -> Vec<IncomingRequest> {
        self.shared.lock().requests.clone()
    }

    /// Notifications other than `session/update` (whole messages), in order.
    pub fn notifications(&self) -> Vec<Value> {
        self.shared.lock().notifications.clone()
    }

    /// Everything the adapter wrote to stderr so far (lossy UTF-8).
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
    }

    /// Closes the adapter's stdin, as an editor does when it shuts the agent down.
    pub async fn close_stdin(&self) {
        if let Some(mut stdin) = self.writer.lock().await.take() {
            use tokio::io::AsyncWriteExt;
            let _ = stdin.shutdown().await;
        }
    }

    /// Waits for a line on the adapter's stdout (any message) that satisfies `pred`, looking at
    /// everything received since the start; panics with diagnostics on timeout or end of output.
    pub async fn wait_for_message(
        &self,
        pred: impl Fn(&Value) -> bool,
        timeout: Duration,
    ) -> Value {
        let found = self
            .shared
            .wait_for(timeout, |record| {
                record.transcript.iter().find(|m| pred(m)).cloned()
            })
            .await;
        found.unwrap_or_else(|why| {
            panic!(
                "waiting for a matching message: {why}\n{}",
                self.diagnostics()
            )
        })
    }

    /// Ends the session as an editor quits: closes stdin, waits for the adapter to exit and for
    /// its stdout to end, so that every line it ever printed is recorded. For checks that
    /// something did NOT happen: after this, nothing more can. Panics after `timeout`.
    pub async fn quit(&self, timeout: Duration) -> ExitStatus {
        self.close_stdin().await;
        let status = self.wait_exit(timeout).await.unwrap_or_else(|| {
            panic!(
                "the adapter did not exit within {timeout:?} of stdin closing\n{}",
                self.diagnostics()
            )
        });
        let ended = self
            .shared
            .wait_for(timeout, |record| record.closed.then_some(()))
            .await;
        if let Err(why) = ended {
            panic!(
                "the adapter's stdout did not end: {why}\n{}",
                self.diagnostics()
            );
        }
        status
    }

    /// Waits for the adapter to exit; `None` if it is still running after `timeout`.
    pub async fn wait_exit(&self, timeout: Duration) -> Option<ExitStatus> {
        let mut child = self.child.lock().await;
        tokio::time::timeout(timeout, child.wait())
            .await
            .ok()
            .and_then(Result::ok)
    }

    /// Sends a Unix signal (e.g. `libc::SIGTERM`) to the adapter process.
    #[cfg(unix)]
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) has no memory-safety preconditions; a stale pid only yields ESRCH.
        unsafe { libc::kill(self.pid as libc::pid_t, signal) };
    }

    /// The tail of the adapter's stderr and stdout, for failure messages.
    pub fn diagnostics(&self) -> String {
        let stderr = self.stderr_text();
        let stderr_tail: Vec<&str> = stderr.lines().rev().take(60).collect();
        let record = self.shared.lock();
        let stdout_tail: Vec<String> = record
            .transcript
            .iter()
            .rev()
            .take(20)
            .map(Value::to_string)
            .collect();
        format!(
            "--- adapter pid {} stderr (last {} lines) ---\n{}\n--- adapter stdout (last {} of {} JSON lines; {} non-JSON) ---\n{}",
            self.pid,
            stderr_tail.len(),
            stderr_tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
            stdout_tail.len(),
            record.transcript.len(),
            record.invalid_lines.len(),
            stdout_tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        )
    }
}

impl Drop for AcpClient {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        if !self.graceful_drop.load(Ordering::Relaxed) || std::thread::panicking() {
            return; // kill_on_drop ends the adapter now
        }
        // Blocking is fine here: the adapter is another process, and its output pipes hold
        // far more than it prints while shutting down.
        if let Ok(mut stdin) = self.writer.try_lock() {
            stdin.take();
        }
        let child = self.child.get_mut();
        let deadline = std::time::Instant::now() + GRACEFUL_DROP_WAIT;
        while std::time::Instant::now() < deadline {
            match child.try_wait() {
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                _ => break,
            }
        }
    }
}
