//! `ClaudeHandle`: writing lines to claude's stdin and asking it control requests.
//!
//! All writes go through one writer task, so lines never interleave and a caller that gives up
//! half-way (a cancelled future) can never leave half a line behind: claude dies on a non-JSON line.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot, watch};

use super::error::ClaudeError;
use super::events::ExitInfo;
use super::pending::PendingRequests;
use super::wire::{ClaudeInput, InputLine, OutboundControl};

/// How long a failed write waits for claude's exit to be known, to report "claude exited (...)"
/// with its stderr rather than a bare "broken pipe".
const EXIT_REPORT_WAIT: Duration = Duration::from_secs(1);

/// How long claude may take to start, that is to answer its first control request, before the
/// time of a request sent meanwhile begins to count: as long as the agent SDK waits for claude's
/// `initialize` answer (`initializeTimeoutMs`, 60000 by default). A cold start on a slow or busy
/// machine (a first run, a virus scan of the executable, emulation) can take longer than a
/// request's own time, and a mode chosen as the session opens must not fail for it.
const STARTUP_LIMIT: Duration = Duration::from_secs(60);

enum WriterCommand {
    Line {
        line: InputLine,
        written: oneshot::Sender<io::Result<()>>,
    },
    CloseStdin,
}

/// Talks to one claude process. Cheap to clone; all clones write through the same writer.
#[derive(Clone)]
pub(crate) struct ClaudeHandle {
    writer: mpsc::UnboundedSender<WriterCommand>,
    pending: Arc<PendingRequests>,
    exit: watch::Receiver<Option<ExitInfo>>,
}

impl ClaudeHandle {
    /// Starts the writer task on `stdin`.
    pub(crate) fn start<W>(
        stdin: W,
        pending: Arc<PendingRequests>,
        exit: watch::Receiver<Option<ExitInfo>>,
    ) -> Self
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (writer, commands) = mpsc::unbounded_channel();
        tokio::spawn(write_lines(stdin, commands));
        ClaudeHandle {
            writer,
            pending,
            exit,
        }
    }

    /// Writes one line to claude's stdin; the returned future resolves once it is written.
    ///
    /// The line is queued when this is called, not when the future is first polled, so lines
    /// reach claude in the order of the calls even when the futures run in separate tasks.
    pub(crate) fn send(
        &self,
        input: ClaudeInput,
    ) -> impl Future<Output = Result<(), ClaudeError>> + Send + 'static {
        let (written, result) = oneshot::channel();
        let command = WriterCommand::Line {
            line: input.into_line(),
            written,
        };
        let queued = self.writer.send(command).is_ok();
        let this = self.clone();
        async move {
            if !queued {
                return Err(this.write_failed(closed_stdin()).await);
            }
            match result.await {
                Ok(Ok(())) => Ok(()),
                Ok(Err(error)) => Err(this.write_failed(error).await),
                Err(_) => Err(this.write_failed(closed_stdin()).await),
            }
        }
    }

    /// Sends a control request and waits up to `timeout` for claude's answer: the `response` object
    /// of a success, `ControlError` for an error, `Exited` if claude dies first. Queued at the call,
    /// like [`ClaudeHandle::send`]. Sent while claude is starting (before it has answered anything),
    /// its `timeout` counts from claude's first answer, or from [`STARTUP_LIMIT`] if none comes.
    pub(crate) fn request(
        &self,
        request: OutboundControl,
        timeout: Duration,
    ) -> impl Future<Output = Result<Value, ClaudeError>> + Send + 'static {
        let request_id = uuid::Uuid::new_v4().to_string();
        let name = subtype_of(&request).to_owned();
        // Registered before the line is written: claude may answer before `send` returns.
        let answer = self.pending.register(&request_id);
        let sent = answer.is_ok().then(|| {
            self.send(ClaudeInput::ControlRequest {
                request_id: request_id.clone(),
                request,
            })
        });
        let mut answering = self.pending.answering();
        async move {
            let mut answer = answer?;
            let exchange = async {
                if let Some(sent) = sent {
                    sent.await?;
                }
                answer.answer().await
            };
            let deadline = async {
                let asked = tokio::time::Instant::now();
                let _ = tokio::time::timeout(STARTUP_LIMIT, answering.wait_for(|yes| *yes)).await;
                let waited = Duration::from_secs(asked.elapsed().as_secs());
                tokio::time::sleep(timeout).await;
                waited + timeout
            };
            // Dropping `answer` at the deadline unregisters the request; a late answer is then
            // ignored.
            tokio::select! {
                answered = exchange => answered,
                after = deadline => Err(ClaudeError::Timeout { request: name, after }),
            }
        }
    }

    /// Answers one of claude's control requests with success.
    pub(crate) fn respond_success(
        &self,
        request_id: &str,
        response: Value,
    ) -> impl Future<Output = Result<(), ClaudeError>> + Send + 'static {
        self.send(ClaudeInput::success(request_id, response))
    }

    /// Answers claude's `can_use_tool` with the editor's (or the adapter's) decision, and who
    /// made it when that is known.
    pub(crate) fn answer_permission(
        &self,
        request_id: &str,
        decision: crate::claude::wire::PermissionDecision,
        by: Option<crate::claude::wire::DecisionClassification>,
    ) -> impl Future<Output = Result<(), ClaudeError>> + Send + 'static {
        self.respond_success(request_id, decision.into_value_by(by))
    }

    /// Answers one of claude's control requests with an error.
    pub(crate) fn respond_error(
        &self,
        request_id: &str,
        error: &str,
    ) -> impl Future<Output = Result<(), ClaudeError>> + Send + 'static {
        self.send(ClaudeInput::error(request_id, error))
    }

    /// Closes claude's stdin after the lines already sent; claude then finishes its turn and exits.
    /// Later `send`s fail.
    pub(crate) fn close_stdin(&self) {
        let _ = self.writer.send(WriterCommand::CloseStdin);
    }

    /// How many of our control requests claude has not answered yet.
    pub(crate) fn requests_waiting(&self) -> usize {
        self.pending.waiting_count()
    }

    /// A failed write most likely means claude died: report its exit if it comes soon.
    async fn write_failed(&self, error: io::Error) -> ClaudeError {
        let mut exit = self.exit.clone();
        match tokio::time::timeout(EXIT_REPORT_WAIT, exit.wait_for(Option::is_some)).await {
            Ok(Ok(info)) => {
                let info = info.clone().expect("waited for Some");
                ClaudeError::Exited {
                    status: info.status,
                    stderr_tail: info.stderr_tail,
                }
            }
            _ => ClaudeError::Io(error),
        }
    }
}

fn closed_stdin() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "claude's stdin is closed")
}

/// The request's `subtype` on the wire, to name it in errors.
fn subtype_of(request: &OutboundControl) -> &'static str {
    match request {
        OutboundControl::Initialize { .. } => "initialize",
        OutboundControl::Interrupt | OutboundControl::InterruptAll { .. } => "interrupt",
        OutboundControl::SetPermissionMode { .. } => "set_permission_mode",
        OutboundControl::SetModel { .. } => "set_model",
        OutboundControl::ApplyFlagSettings { .. } => "apply_flag_settings",
        OutboundControl::GetContextUsage { .. } => "get_context_usage",
        OutboundControl::RewindFiles(_) => "rewind_files",
        OutboundControl::StopTask { .. } => "stop_task",
        OutboundControl::GetSettings => "get_settings",
        OutboundControl::ListPermissionRules => "list_permission_rules",
        OutboundControl::McpStatus => "mcp_status",
        OutboundControl::McpReconnect { .. } => "mcp_reconnect",
        OutboundControl::McpMessage { .. } => "mcp_message",
        OutboundControl::McpToggle { .. } => "mcp_toggle",
        OutboundControl::RenameSession { .. } => "rename_session",
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    stdin: W,
    mut commands: mpsc::UnboundedReceiver<WriterCommand>,
) {
    let mut stdin = Some(stdin);
    while let Some(command) = commands.recv().await {
        match command {
            WriterCommand::Line { line, written } => {
                let result = match stdin.as_mut() {
                    Some(pipe) => write_line(pipe, line).await,
                    None => Err(closed_stdin()),
                };
                if let Err(error) = &result {
                    // After a failed write part of a line may be in the pipe; never write after it.
                    if stdin.take().is_some() {
                        tracing::debug!(%error, "writing to claude's stdin failed");
                    }
                }
                let _ = written.send(result);
            }
            WriterCommand::CloseStdin => {
                if let Some(mut pipe) = stdin.take() {
                    let _ = pipe.shutdown().await;
                }
            }
        }
    }
}

async fn write_line<W: AsyncWrite + Unpin>(pipe: &mut W, line: InputLine) -> io::Result<()> {
    match line {
        InputLine::Whole(line) => pipe.write_all(line.as_bytes()).await?,
        InputLine::Streamed(serialise) => {
            crate::json_stream::write_in_chunks(pipe, serialise).await?;
            pipe.write_all(b"\n").await?;
        }
    }
    pipe.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claude::wire::ControlResponse;
    use serde_json::json;
    use tokio::io::{AsyncBufReadExt, BufReader};

    #[test]
    fn a_request_is_named_by_its_subtype_on_the_wire() {
        for request in [
            OutboundControl::Initialize {
                hooks: None,
                sdk_mcp_servers: vec![],
                system_prompt: None,
                append_system_prompt: None,
                forward_subagent_text: false,
                prompt_suggestions: false,
            },
            OutboundControl::Interrupt,
            OutboundControl::InterruptAll {
                cancel_queued: true,
            },
            OutboundControl::SetPermissionMode {
                mode: "plan".into(),
            },
            OutboundControl::SetModel { model: None },
            OutboundControl::ApplyFlagSettings {
                settings: json!({}),
            },
            OutboundControl::GetSettings,
            OutboundControl::ListPermissionRules,
            OutboundControl::StopTask {
                task_id: "b1".into(),
            },
        ] {
            let wire = serde_json::to_value(&request).unwrap();
            assert_eq!(wire["subtype"], subtype_of(&request), "{request:?}");
        }
    }

    fn handle_on_duplex() -> (
        ClaudeHandle,
        Arc<PendingRequests>,
        BufReader<tokio::io::DuplexStream>,
    ) {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let pending = Arc::new(PendingRequests::default());
        // No process behind this pipe: its exit is never known.
        let (_, exit_rx) = watch::channel(None);
        (
            ClaudeHandle::start(ours, Arc::clone(&pending), exit_rx),
            pending,
            BufReader::new(theirs),
        )
    }

    #[tokio::test]
    async fn concurrent_sends_write_whole_lines() {
        let (handle, _pending, mut claude_stdin) = handle_on_duplex();
        let mut tasks = Vec::new();
        for i in 0..20 {
            let h = handle.clone();
            tasks.push(tokio::spawn(async move {
                h.respond_success(&format!("r{i}"), json!({"pad": "x".repeat(5000)}))
                    .await
            }));
        }
        let mut seen = Vec::new();
        for _ in 0..20 {
            let mut line = String::new();
            claude_stdin.read_line(&mut line).await.unwrap();
            let v: Value = serde_json::from_str(&line).expect("every line is whole JSON");
            seen.push(v["response"]["request_id"].as_str().unwrap().to_owned());
        }
        for t in tasks {
            t.await.unwrap().unwrap();
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 20);
    }

    /// An allow carrying a whole file is streamed to claude, not built beside the input: it
    /// arrives as the same line `to_line` builds, and the lines around it stay whole and in order.
    #[tokio::test]
    async fn a_big_answer_is_streamed_whole_between_the_lines_around_it() {
        let file = "line \"quoted\" é\n".repeat(200_000);
        let allow = ClaudeInput::success(
            "big",
            json!({"behavior": "allow", "updatedInput": {"content": file}}),
        );
        let expected = allow.to_line();
        assert!(
            matches!(allow.clone().into_line(), InputLine::Streamed(_)),
            "a {} byte answer is built whole",
            expected.len()
        );
        let (handle, _pending, mut claude_stdin) = handle_on_duplex();
        let before = handle.respond_success("before", json!({}));
        let big = handle.send(allow);
        let after = handle.respond_success("after", json!({}));
        let writes = tokio::spawn(async move { (before.await, big.await, after.await) });
        let mut lines = Vec::new();
        for _ in 0..3 {
            let mut line = String::new();
            claude_stdin.read_line(&mut line).await.unwrap();
            lines.push(line);
        }
        let (before, big, after) = writes.await.unwrap();
        before.unwrap();
        big.unwrap();
        after.unwrap();
        assert!(lines[0].contains("\"before\""), "{}", lines[0]);
        assert!(
            lines[1] == expected,
            "the streamed line differs from the built one"
        );
        assert!(lines[2].contains("\"after\""), "{}", lines[2]);
    }

    /// The id of the next control request claude reads.
    async fn next_request_id(claude_stdin: &mut BufReader<tokio::io::DuplexStream>) -> String {
        let mut line = String::new();
        claude_stdin.read_line(&mut line).await.unwrap();
        serde_json::from_str::<Value>(&line).unwrap()["request_id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    fn success(request_id: String) -> ControlResponse {
        ControlResponse::Success {
            request_id,
            response: json!({}),
        }
    }

    /// claude has started: it answered a first request.
    fn started(pending: &PendingRequests) {
        pending.resolve(success("first".into()));
    }

    /// claude takes 25 s to start on a busy machine: the `initialize` and the mode change the editor
    /// chose as the session opened, both sent at once with 10 s each, are answered, not timed out.
    #[tokio::test(start_paused = true)]
    async fn requests_sent_while_claude_starts_count_their_time_from_its_first_answer() {
        let (handle, pending, mut claude_stdin) = handle_on_duplex();
        let mode = OutboundControl::SetPermissionMode {
            mode: "acceptEdits".into(),
        };
        let requests = tokio::spawn(futures::future::join(
            handle.request(OutboundControl::Interrupt, Duration::from_secs(10)),
            handle.request(mode, Duration::from_secs(10)),
        ));
        let (first, second) = (
            next_request_id(&mut claude_stdin).await,
            next_request_id(&mut claude_stdin).await,
        );
        tokio::time::sleep(Duration::from_secs(25)).await;
        pending.resolve(success(first));
        // A request's own time then counts: 9 s later the second is still waited for.
        tokio::time::sleep(Duration::from_secs(9)).await;
        pending.resolve(success(second));
        let (first, second) = requests.await.unwrap();
        assert_eq!(first.unwrap(), json!({}));
        assert_eq!(second.unwrap(), json!({}));
    }

    /// A claude that never starts: the request fails after the start's limit and its own time, and
    /// says how long it waited.
    #[tokio::test(start_paused = true)]
    async fn a_claude_that_never_answers_fails_the_request_after_the_start_s_limit_and_its_time() {
        let (handle, _pending, _claude_stdin) = handle_on_duplex();
        let asked = tokio::time::Instant::now();
        let err = handle
            .request(OutboundControl::Interrupt, Duration::from_secs(10))
            .await
            .unwrap_err();
        assert_eq!(asked.elapsed(), STARTUP_LIMIT + Duration::from_secs(10));
        assert_eq!(
            err.to_string(),
            "claude did not answer `interrupt` within 70s"
        );
    }

    #[tokio::test]
    async fn request_times_out_and_forgets_its_id() {
        let (handle, pending, mut claude_stdin) = handle_on_duplex();
        started(&pending);
        let err = handle
            .request(OutboundControl::Interrupt, Duration::from_millis(50))
            .await
            .unwrap_err();
        assert!(
            matches!(err, ClaudeError::Timeout { ref request, .. } if request == "interrupt"),
            "{err}"
        );
        assert_eq!(pending.waiting_count(), 0);
        let id = next_request_id(&mut claude_stdin).await;
        // The late answer goes nowhere and breaks nothing.
        pending.resolve(success(id));
    }

    #[tokio::test]
    async fn send_after_close_stdin_fails_and_the_pipe_sees_eof() {
        let (handle, _pending, mut claude_stdin) = handle_on_duplex();
        handle.close_stdin();
        let mut rest = String::new();
        assert_eq!(claude_stdin.read_line(&mut rest).await.unwrap(), 0, "EOF");
        // The exit is never known here, so the error is the plain I/O one.
        let err = handle.respond_error("r", "x").await.unwrap_err();
        assert!(
            matches!(err, ClaudeError::Io(ref e) if e.kind() == io::ErrorKind::BrokenPipe),
            "{err}"
        );
    }
}
