//! Runs a script against a stdin/stdout/stderr triple, the way the real CLI would talk.

use super::pattern::{PatternError, Vars, matches};
use super::runtime::{EventLog, Runtime, builtin_vars, fields};
use super::script::{Expectation, Handler, LocatedStep, Script, Step};
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};

/// Exit code when the script itself is broken (unbound variable, unwritable file...).
pub const EXIT_SCRIPT_ERROR: i32 = 2;
/// Exit code when a received line does not match what the script expects.
pub const EXIT_MISMATCH: i32 = 3;

/// Received lines are cut to this length in error messages.
const MAX_SHOWN: usize = 2000;

/// Why a run stopped before the end of the script.
enum Stop {
    /// stdin closed while a line was expected: the real CLI exits 0 quietly.
    Eof,
    Exit(i32),
    /// Print this on stderr and exit with the code.
    Fail(i32, String),
}

struct Engine<R, W, E> {
    stdin: R,
    stdout: W,
    stderr: E,
    pending: Option<String>,
    /// `on` handlers registered so far, tried in order.
    handlers: Vec<Handler>,
    claude_args: Vec<String>,
    vars: Vars,
    runtime: Runtime,
    log: EventLog,
}

/// Runs `script` with `claude_args` over the given streams and returns the exit code.
pub async fn run_with_runtime<R, W, E>(
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
    let vars = builtin_vars(&claude_args, &runtime);
    let mut engine = Engine {
        stdin,
        stdout,
        stderr,
        pending: None,
        handlers: Vec::new(),
        claude_args,
        vars,
        runtime,
        log,
    };
    let code = match engine.run_steps(&script).await {
        Ok(()) | Err(Stop::Eof) => 0,
        Err(Stop::Exit(code)) => code,
        Err(Stop::Fail(code, message)) => {
            let _ = engine
                .stderr
                .write_all(format!("standin: {message}\n").as_bytes())
                .await;
            let _ = engine.stderr.flush().await;
            engine
                .log
                .record("error", fields(vec![("message", json!(message))]));
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
                    self.write_stdout(&line).await?;
                }
                Step::EmitRaw(text) => self.write_stdout(text).await?,
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
                Step::Hang => {
                    // Keep reading so the adapter never blocks on a full pipe, then wait to be killed.
                    while self.next_line().await.is_some() {}
                    std::future::pending::<()>().await;
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

    async fn expect_one(
        &mut self,
        n: usize,
        located: &LocatedStep,
        expectation: &Expectation,
    ) -> Result<(), Stop> {
        // An optional step leaves an unmatched line to the next step, handlers included.
        let line = if expectation.optional {
            self.next_line().await
        } else {
            self.next_for(n, located, &[&expectation.pattern]).await?
        };
        let Some(line) = line else {
            return Err(Stop::Eof);
        };
        let received = serde_json::from_str::<Value>(&line).ok();
        let matched = match &received {
            Some(value) => self.check(n, located, &expectation.pattern, value)?,
            None => false,
        };
        match (matched, received) {
            (true, Some(value)) => self.bind(n, located, expectation, &value),
            _ if expectation.optional => {
                self.pending = Some(line);
                Ok(())
            }
            _ => Err(mismatch(n, located, &expectation.pattern, &line)),
        }
    }

    /// Reads one line and returns the label of the first alternative it matches.
    async fn branch<'s>(
        &mut self,
        n: usize,
        located: &LocatedStep,
        alternatives: &'s [(Expectation, String)],
    ) -> Result<&'s str, Stop> {
        let patterns: Vec<&Value> = alternatives.iter().map(|(e, _)| &e.pattern).collect();
        let Some(line) = self.next_for(n, located, &patterns).await? else {
            return Err(Stop::Eof);
        };
        let all = Value::Array(
            alternatives
                .iter()
                .map(|(e, _)| e.pattern.clone())
                .collect(),
        );
        let Ok(value) = serde_json::from_str::<Value>(&line) else {
            return Err(mismatch(n, located, &all, &line));
        };
        for (expectation, label) in alternatives {
            if self.check(n, located, &expectation.pattern, &value)? {
                self.bind(n, located, expectation, &value)?;
                return Ok(label);
            }
        }
        Err(mismatch(n, located, &all, &line))
    }

    async fn expect_any_order(
        &mut self,
        n: usize,
        located: &LocatedStep,
        items: &[Expectation],
    ) -> Result<(), Stop> {
        let mut remaining: Vec<&Expectation> = items.iter().collect();
        while !remaining.is_empty() {
            let patterns: Vec<&Value> = remaining.iter().map(|e| &e.pattern).collect();
            let Some(line) = self.next_for(n, located, &patterns).await? else {
                return Err(Stop::Eof);
            };
            let all = Value::Array(remaining.iter().map(|e| e.pattern.clone()).collect());
            let Ok(value) = serde_json::from_str::<Value>(&line) else {
                return Err(mismatch(n, located, &all, &line));
            };
            let mut hit = None;
            for (i, e) in remaining.iter().enumerate() {
                if self.check(n, located, &e.pattern, &value)? {
                    hit = Some(i);
                    break;
                }
            }
            let Some(i) = hit else {
                return Err(mismatch(n, located, &all, &line));
            };
            let expectation = remaining.remove(i);
            self.bind(n, located, expectation, &value)?;
        }
        Ok(())
    }

    fn check(
        &self,
        n: usize,
        located: &LocatedStep,
        pattern: &Value,
        value: &Value,
    ) -> Result<bool, Stop> {
        matches(pattern, value, &self.vars).map_err(|e| {
            Stop::Fail(
                EXIT_SCRIPT_ERROR,
                format!("step {n}: {e} (at {})", located.origin),
            )
        })
    }

    fn bind(
        &mut self,
        n: usize,
        located: &LocatedStep,
        e: &Expectation,
        value: &Value,
    ) -> Result<(), Stop> {
        self.vars.bind(&e.bind, value).map_err(|err| {
            Stop::Fail(
                EXIT_MISMATCH,
                format!(
                    "step {n}: {err} in {} (at {})",
                    shown(&value.to_string()),
                    located.origin
                ),
            )
        })
    }

    /// The next line that none of the `on` handlers takes: a line that matches one of `patterns`
    /// (what the step wants) goes to the step, else the first handler that matches answers it.
    async fn next_for(
        &mut self,
        n: usize,
        located: &LocatedStep,
        patterns: &[&Value],
    ) -> Result<Option<String>, Stop> {
        loop {
            let Some(line) = self.next_line().await else {
                return Ok(None);
            };
            let Ok(value) = serde_json::from_str::<Value>(&line) else {
                return Ok(Some(line));
            };
            for pattern in patterns {
                if self.check(n, located, pattern, &value)? {
                    return Ok(Some(line));
                }
            }
            let mut taken = None;
            for (i, handler) in self.handlers.iter().enumerate() {
                if self.check(n, located, &handler.expectation.pattern, &value)? {
                    taken = Some(i);
                    break;
                }
            }
            let Some(i) = taken else {
                return Ok(Some(line));
            };
            let handler = self.handlers[i].clone();
            self.bind(n, located, &handler.expectation, &value)?;
            for reply in &handler.replies {
                let line = self.vars.substitute(reply).map_err(|e| {
                    Stop::Fail(
                        EXIT_SCRIPT_ERROR,
                        format!("step {n}: {e} (in a handler from {})", handler.origin),
                    )
                })?;
                self.write_stdout(&line.to_string()).await?;
            }
        }
    }

    /// The next stdin line (without its newline), logged; `None` at end of input.
    async fn next_line(&mut self) -> Option<String> {
        if let Some(line) = self.pending.take() {
            return Some(line);
        }
        let mut buf = String::new();
        loop {
            buf.clear();
            match self.stdin.read_line(&mut buf).await {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            let line = buf.trim_end_matches(['\n', '\r']);
            // The CLI skips blank lines; so does the stand-in.
            if line.trim().is_empty() {
                continue;
            }
            let logged = serde_json::from_str::<Value>(line).unwrap_or_else(|_| json!(line));
            self.log.record("recv", fields(vec![("line", logged)]));
            return Some(line.to_owned());
        }
    }

    async fn write_stdout(&mut self, line: &str) -> Result<(), Stop> {
        let mut out = Vec::with_capacity(line.len() + 1);
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
        let written = async {
            self.stdout.write_all(&out).await?;
            self.stdout.flush().await
        };
        written
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

fn shown(line: &str) -> String {
    if line.len() <= MAX_SHOWN {
        return line.to_owned();
    }
    let mut cut = MAX_SHOWN;
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}... ({} bytes)", &line[..cut], line.len())
}

fn mismatch(n: usize, located: &LocatedStep, pattern: &Value, line: &str) -> Stop {
    Stop::Fail(
        EXIT_MISMATCH,
        format!(
            "step {n}: expected {pattern} got {} (at {})",
            shown(line),
            located.origin
        ),
    )
}
