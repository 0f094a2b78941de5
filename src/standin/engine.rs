//! Runs a script against a stdin/stdout/stderr triple, the way the real CLI would talk.

use super::pattern::{PatternError, Vars};
use super::runtime::{EventLog, Runtime, builtin_vars, fields};
use super::script::{Handler, LocatedStep, Script, Step};
use crate::claude::install::PINNED_CLAUDE_VERSION;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncWrite, AsyncWriteExt};

/// Exit code when the script itself is broken (unbound variable, unwritable file...).
pub(crate) const EXIT_SCRIPT_ERROR: i32 = 2;
/// Exit code when a received line does not match what the script expects.
pub(crate) const EXIT_MISMATCH: i32 = 3;
/// What `claude --version` prints for the CLI the fixtures were captured from, the pinned one.
fn version_line() -> String {
    format!("{PINNED_CLAUDE_VERSION} (Claude Code)\n")
}

/// Why a run stopped before the end of the script.
pub(super) enum Stop {
    /// stdin closed while a line was expected: the real CLI exits 0 quietly.
    Eof,
    Exit(i32),
    /// Print this on stderr and exit with the code.
    Fail(i32, String),
}

pub(super) struct Engine<R, W, E> {
    pub(super) stdin: R,
    pub(super) stdout: W,
    pub(super) stderr: E,
    pub(super) pending: Option<String>,
    /// `user` lines that came while a step waited for something else, oldest first: claude
    /// queues a prompt and answers control messages meanwhile, so a later step may want them.
    pub(super) held_prompts: std::collections::VecDeque<String>,
    /// `on` handlers registered so far, tried in order.
    pub(super) handlers: Vec<Handler>,
    pub(super) claude_args: Vec<String>,
    pub(super) vars: Vars,
    pub(super) runtime: Runtime,
    pub(super) log: EventLog,
    /// Set by `ignore_eof`: stdin closing leaves the run waiting to be killed.
    pub(super) ignore_eof: bool,
}

/// Runs `script` with `claude_args` over the given streams and returns the exit code.
pub(crate) async fn run_with_runtime<R, W, E>(
    script: Script,
    claude_args: Vec<String>,
    runtime: Runtime,
    stdin: R,
    stdout: W,
    stderr: E,
) -> i32
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
    E: AsyncWrite + Unpin,
{
    let log = EventLog {
        path: runtime.log_path.clone(),
        pid: runtime.pid,
    };
    log.record(
        "start",
        fields(vec![
            ("argv", json!(claude_args)),
            ("cwd", json!(runtime.cwd.to_string_lossy())),
        ]),
    );
    if claude_args.iter().any(|a| a == "--version" || a == "-v") {
        // `claude --version` prints this and exits, whatever the script says.
        let mut stdout = stdout;
        let _ = stdout.write_all(version_line().as_bytes()).await;
        let _ = stdout.flush().await;
        log.record("exit", fields(vec![("code", json!(0))]));
        return 0;
    }
    let vars = builtin_vars(&claude_args, &runtime);
    let mut engine = Engine {
        stdin,
        stdout,
        stderr,
        pending: None,
        held_prompts: std::collections::VecDeque::new(),
        handlers: Vec::new(),
        claude_args,
        vars,
        runtime,
        log,
        ignore_eof: false,
    };
    let code = match engine.run_steps(&script).await {
        Ok(()) | Err(Stop::Eof) if engine.ignore_eof => {
            engine.log.record("eof_ignored", fields(vec![]));
            std::future::pending::<i32>().await
        }
        Ok(()) | Err(Stop::Eof) => 0,
        Err(Stop::Exit(code)) => {
            // A scripted crash, not a verdict: tests tell the two apart by this flag.
            engine
                .log
                .record("scripted_exit", fields(vec![("code", json!(code))]));
            code
        }
        Err(Stop::Fail(code, message)) => {
            let _ = engine
                .stderr
                .write_all(format!("standin: {message}\n").as_bytes())
                .await;
            let _ = engine.stderr.flush().await;
            engine.log.record(
                "error",
                fields(vec![("message", json!(message)), ("code", json!(code))]),
            );
            code
        }
    };
    let _ = engine.stdout.flush().await;
    engine
        .log
        .record("exit", fields(vec![("code", json!(code))]));
    code
}

impl<R, W, E> Engine<R, W, E>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
    E: AsyncWrite + Unpin,
{
    async fn run_steps(&mut self, script: &Script) -> Result<(), Stop> {
        let steps = &script.steps;
        let mut next = 0;
        while let Some(located) = steps.get(next) {
            let n = next + 1;
            next += 1;
            // Lines emitted back to back go out in one write, as from a claude streaming at full
            // speed; anything that waits (or may) sends what is buffered first.
            if !matches!(located.step, Step::Emit(_) | Step::EmitRaw(_)) {
                self.flush_stdout().await?;
            }
            if located
                .condition
                .as_ref()
                .is_some_and(|c| !c.holds(&self.claude_args))
            {
                continue;
            }
            let at = |e: PatternError| {
                Stop::Fail(
                    EXIT_SCRIPT_ERROR,
                    format!("step {n}: {e} (at {})", located.origin),
                )
            };
            match &located.step {
                Step::Expect(expectation) => self.expect_one(n, located, expectation).await?,
                Step::ExpectAnyOrder(items) => self.expect_any_order(n, located, items).await?,
                Step::Emit(template) => {
                    let line = self.vars.substitute(template).map_err(at)?.to_string();
                    self.emit_stdout(&line).await?;
                }
                Step::EmitRaw(text) => self.emit_stdout(text).await?,
                Step::EmitBigLine {
                    bytes,
                    fill,
                    template,
                } => {
                    let line = self.big_line(*bytes, *fill, template).map_err(at)?;
                    self.write_stdout(&line).await?;
                }
                Step::SleepMs(ms) => {
                    tokio::time::sleep(std::time::Duration::from_millis(*ms)).await
                }
                Step::Stderr(text) => {
                    let mut text = self.vars.substitute_str(text).map_err(at)?;
                    if !text.ends_with('\n') {
                        text.push('\n');
                    }
                    let _ = self.stderr.write_all(text.as_bytes()).await;
                    let _ = self.stderr.flush().await;
                }
                Step::Exit(code) => return Err(Stop::Exit(*code)),
                Step::WaitEof => {
                    while self.next_for(n, located, &[]).await?.is_some() {}
                    return Err(Stop::Eof);
                }
                Step::On(handler) => self.handlers.push(handler.clone()),
                Step::IgnoreEof => self.ignore_eof = true,
                Step::CloseStdout => {
                    let _ = self.stdout.flush().await;
                    self.stdout.shutdown().await.map_err(|e| {
                        Stop::Fail(
                            EXIT_SCRIPT_ERROR,
                            format!("step {n}: cannot close stdout: {e} (at {})", located.origin),
                        )
                    })?;
                }
                Step::Hang => {
                    // Keep reading so the adapter never blocks on a full pipe, then wait to be killed.
                    while self.next_line().await.is_some() {}
                    std::future::pending::<()>().await;
                }
                Step::SpawnDetached(command) => {
                    let command = self.vars.substitute_str(command).map_err(at)?;
                    let mut shell = std::process::Command::new("/bin/sh");
                    shell
                        .args(["-c", &command])
                        .current_dir(&self.runtime.cwd)
                        .stdin(std::process::Stdio::null())
                        .stdout(std::process::Stdio::null())
                        .stderr(std::process::Stdio::null());
                    crate::platform::process::detach(&mut shell);
                    // Never waited for, as claude's shells are not by the time they outlive it.
                    let spawned = shell.spawn().map_err(|e| {
                        Stop::Fail(
                            EXIT_SCRIPT_ERROR,
                            format!(
                                "step {n}: cannot start {command:?}: {e} (at {})",
                                located.origin
                            ),
                        )
                    })?;
                    drop(spawned);
                }
                Step::WriteFile { path, content } => {
                    let path = self
                        .runtime
                        .cwd
                        .join(self.vars.substitute_str(path).map_err(at)?);
                    let content = self.vars.substitute_str(content).map_err(at)?;
                    let written = match path.parent() {
                        Some(parent) => std::fs::create_dir_all(parent)
                            .and_then(|()| std::fs::write(&path, content)),
                        None => std::fs::write(&path, content),
                    };
                    written.map_err(|e| {
                        Stop::Fail(
                            EXIT_SCRIPT_ERROR,
                            format!(
                                "step {n}: cannot write {}: {e} (at {})",
                                path.display(),
                                located.origin
                            ),
                        )
                    })?;
                }
                Step::Label(_) => {}
                Step::Goto(label) => next = script.label_index(label).unwrap_or(steps.len()),
                Step::Branch(alternatives) => {
                    let label = self.branch(n, located, alternatives).await?;
                    next = script.label_index(label).unwrap_or(steps.len());
                }
                Step::Set(pairs) => {
                    for (name, value) in pairs {
                        let value = self.vars.substitute(value).map_err(at)?;
                        self.vars.set(name.clone(), value);
                    }
                }
            }
        }
        // The script is over; like the idle CLI, wait for stdin to close. Anything more is a surprise.
        let end = LocatedStep {
            step: Step::WaitEof,
            origin: "end of script".into(),
            condition: None,
        };
        match self.next_for(steps.len() + 1, &end, &[]).await? {
            None => Ok(()),
            Some(line) => Err(Stop::Fail(
                EXIT_MISMATCH,
                format!(
                    "step {}: expected end of input got {}",
                    steps.len() + 1,
                    shown(&line)
                ),
            )),
        }
    }

    /// Writes one line and sends it at once.
    pub(super) async fn write_stdout(&mut self, line: &str) -> Result<(), Stop> {
        self.emit_stdout(line).await?;
        self.flush_stdout().await
    }

    /// Writes one line into stdout's buffer; it goes out with the next flush (or when full).
    async fn emit_stdout(&mut self, line: &str) -> Result<(), Stop> {
        let written = async {
            self.stdout.write_all(line.as_bytes()).await?;
            self.stdout.write_all(b"\n").await
        };
        written
            .await
            .map_err(|e| Stop::Fail(1, format!("stdout closed: {e}")))
    }

    pub(super) async fn flush_stdout(&mut self) -> Result<(), Stop> {
        self.stdout
            .flush()
            .await
            .map_err(|e| Stop::Fail(1, format!("stdout closed: {e}")))
    }

    /// `template` serialized with `${filler}` grown so that the line is exactly `bytes` long.
    fn big_line(
        &mut self,
        bytes: usize,
        fill: char,
        template: &Value,
    ) -> Result<String, PatternError> {
        self.vars.set("filler", json!(""));
        let base = self.vars.substitute(template)?.to_string().len();
        self.vars.set(
            "filler",
            json!(fill.to_string().repeat(bytes.saturating_sub(base))),
        );
        let line = self.vars.substitute(template)?.to_string();
        self.vars.set("filler", json!(""));
        Ok(line)
    }
}

/// Received lines are cut to this length in error messages.
const MAX_SHOWN: usize = 2000;

/// `line` as an error message shows it: cut to [`MAX_SHOWN`] bytes.
pub(super) fn shown(line: &str) -> String {
    if line.len() <= MAX_SHOWN {
        return line.to_owned();
    }
    let mut cut = MAX_SHOWN;
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}... ({} bytes)", &line[..cut], line.len())
}
