//! One call of the command tool (Bash or PowerShell) or TaskStop: the command started in an editor
//! terminal that the tool call embeds, waited for (up to its timeout, killed past it) or left
//! running in the background with its output copied to a file, and every terminal released once its
//! command is done with.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::output::{self, Ended};
use super::{EditorTerminal, Shell};
use crate::claude::sdk_mcp::{self, McpContent};
use crate::claude::wire::OutboundControl;
use crate::domain::{
    EditorError, SessionUpdate, TerminalCommand, TerminalExit, TerminalOutput, ToolCallUpdate,
    ToolContent,
};
use crate::editor_tools::answer_bound;

/// The most output an editor terminal keeps for one command.
const OUTPUT_BYTE_LIMIT: u64 = 16 * 1024 * 1024;

/// What the pinned claude sets for its own Bash commands that the editor's environment lacks: the
/// mark of a command run by claude, and no editor for git to wait on
/// (`fixtures/editor_terminal/README.md`).
const CLAUDE_SHELL_ENV: [(&str, &str); 2] = [("CLAUDECODE", "1"), ("GIT_EDITOR", "true")];

/// How often a background command's output is copied to its file.
const COPY_EVERY: Duration = Duration::from_secs(1);

fn reply(text: String, is_error: bool) -> Value {
    sdk_mcp::call_result(vec![McpContent::Text { text }], is_error)
}

fn tool_use_error(text: &str) -> Value {
    reply(format!("<tool_use_error>{text}</tool_use_error>"), true)
}

/// Kills and releases a terminal when dropped before [`Release::done`]: a call aborted by a
/// cancel or by claude's exit still frees the editor's terminal.
struct Release {
    terminal: EditorTerminal,
    terminal_id: Option<String>,
}

impl Release {
    fn done(mut self) -> String {
        self.terminal_id.take().unwrap_or_default()
    }
}

impl Drop for Release {
    fn drop(&mut self) {
        if let Some(id) = self.terminal_id.take() {
            self.terminal.release_later(id);
        }
    }
}

impl EditorTerminal {
    /// One editor request, waited for as long as the turn lasts unless a bound was set.
    async fn bounded<T>(
        &self,
        method: &str,
        request: impl Future<Output = Result<T, EditorError>>,
    ) -> Result<T, String> {
        match answer_bound::answer(self.bound, request).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(format!("The editor could not run {method}: {e}")),
            Err(bound) => Err(format!(
                "The editor did not answer {method} within {} ({})",
                answer_bound::describe(bound),
                answer_bound::ENV
            )),
        }
    }

    /// Kills (if still running) and releases a terminal from a task of its own.
    pub(super) fn release_later(&self, terminal_id: String) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let terminal = self.clone();
        runtime.spawn(async move {
            let s = &terminal.session_id;
            let _ = terminal
                .bounded(
                    "terminal/kill",
                    terminal.editor.kill_terminal(s, &terminal_id),
                )
                .await;
            let _ = terminal
                .bounded(
                    "terminal/release",
                    terminal.editor.release_terminal(s, &terminal_id),
                )
                .await;
        });
    }

    async fn release(&self, terminal_id: &str) {
        let s = &self.session_id;
        if let Err(e) = self
            .bounded(
                "terminal/release",
                self.editor.release_terminal(s, terminal_id),
            )
            .await
        {
            tracing::debug!(session = %s, "terminal not released: {e}");
        }
    }

    /// Starts `command` in a new terminal and shows the terminal in the tool call.
    async fn start(
        &self,
        command: &str,
        tool_use_id: Option<&str>,
        extra_env: Vec<(String, String)>,
    ) -> Result<Release, String> {
        let mut env: Vec<(String, String)> = CLAUDE_SHELL_ENV
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        env.extend(extra_env);
        let (program, args) = self.shell.command_line(command);
        let request = TerminalCommand {
            command: program,
            args,
            env,
            cwd: self.shell_cwd.current(),
            output_byte_limit: OUTPUT_BYTE_LIMIT,
        };
        let terminal_id = self
            .bounded(
                "terminal/create",
                self.editor.create_terminal(&self.session_id, request),
            )
            .await?;
        if let Some(id) = tool_use_id {
            self.embedded
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(id.to_owned());
            let update = ToolCallUpdate {
                id: id.to_owned(),
                content: Some(vec![ToolContent::Terminal {
                    terminal_id: terminal_id.clone(),
                }]),
                ..ToolCallUpdate::default()
            };
            self.editor
                .session_update(&self.session_id, SessionUpdate::ToolCallUpdate(update));
        }
        Ok(Release {
            terminal: self.clone(),
            terminal_id: Some(terminal_id),
        })
    }

    async fn output_of(&self, terminal_id: &str) -> Result<TerminalOutput, String> {
        self.bounded(
            "terminal/output",
            self.editor.terminal_output(&self.session_id, terminal_id),
        )
        .await
    }

    pub(super) async fn command(&self, input: &Value, tool_use_id: Option<&str>) -> Value {
        let tool = self.shell.tool_name();
        let Some(command) = input.get("command").and_then(Value::as_str) else {
            return tool_use_error(&format!(
                "InputValidationError: {tool} failed due to the following issue:\nThe required parameter `command` is missing"
            ));
        };
        let timeout = output::timeout_of(input.get("timeout").and_then(Value::as_f64));
        let in_background = input.get("run_in_background").and_then(Value::as_bool) == Some(true);
        // A foreground command's `cd` carries over to the next one.
        let tracked = self
            .shell_cwd
            .tracking(self.shell)
            .filter(|_| !in_background);
        let (extra_env, report) = match tracked {
            Some((env, report)) => (env, Some(report)),
            None => (Vec::new(), None),
        };
        let release = match self.start(command, tool_use_id, extra_env).await {
            Ok(release) => release,
            Err(text) => return reply(text, true),
        };
        if in_background {
            let limit = output::background_timeout_of(input.get("timeout").and_then(Value::as_f64));
            return self.background(command, tool_use_id, release.done(), limit);
        }
        let terminal_id = release.terminal_id.clone().unwrap_or_default();
        let waited = tokio::time::timeout(
            timeout,
            self.editor
                .wait_for_terminal_exit(&self.session_id, &terminal_id),
        )
        .await;
        let (exit, timed_out_after) = match waited {
            Ok(Ok(exit)) => (Some(exit), None),
            Ok(Err(e)) => {
                return reply(
                    format!("The editor could not run terminal/wait_for_exit: {e}"),
                    true,
                );
            }
            Err(_) => {
                // The pinned claude moves a command that has printed something to the background
                // rather than kill it (tool_results.jsonl, run cap2).
                if let Ok(shown) = self.output_of(&terminal_id).await
                    && shown.exit.is_none()
                    && !output::plain(&shown.output).trim().is_empty()
                {
                    let limit = output::DEFAULT_BACKGROUND_TIMEOUT;
                    let started =
                        self.start_background(command, tool_use_id, release.done(), limit);
                    return match started {
                        Ok((id, file)) => reply(
                            output::moved_to_background(
                                &output::plain(&shown.output),
                                timeout,
                                &id,
                                &file,
                            ),
                            false,
                        ),
                        Err(text) => reply(text, true),
                    };
                }
                let killed = self
                    .bounded(
                        "terminal/kill",
                        self.editor.kill_terminal(&self.session_id, &terminal_id),
                    )
                    .await;
                if let Err(text) = killed {
                    return reply(text, true);
                }
                (None, Some(timeout))
            }
        };
        let shown = match self.output_of(&terminal_id).await {
            Ok(shown) => shown,
            Err(text) => return reply(text, true),
        };
        let terminal_id = release.done();
        self.release(&terminal_id).await;
        let exit_code = match (timed_out_after, exit.or(shown.exit)) {
            (Some(_), _) => 143,
            (None, Some(exit)) => exit_code(&exit),
            (None, None) => 1,
        };
        let ended = Ended {
            output: output::plain(&shown.output),
            exit_code,
            timed_out_after,
            truncated: shown.truncated,
        };
        let mut result = output::result(tool, &ended, save_large_output);
        if let Some(note) = report.and_then(|r| self.shell_cwd.after(&r, exit_code == 0)) {
            result.text = format!("{}\n{note}", result.text);
        }
        reply(result.text, result.is_error)
    }

    /// Leaves the command running; a task copies its output to a file the model can Read, as
    /// claude's own background commands do, and releases the terminal when it ends.
    fn background(
        &self,
        command: &str,
        tool_use_id: Option<&str>,
        terminal_id: String,
        limit: Duration,
    ) -> Value {
        match self.start_background(command, tool_use_id, terminal_id, limit) {
            // claude's words, less its promise to re-invoke the model when the command ends: the
            // model reads the file to learn that.
            Ok((id, file)) => reply(
                format!(
                    "Command running in background with ID: {id}. Output is being written to: {}. To check interim output, use Read on that file path; it ends with the exit code once the command has ended.",
                    file.display()
                ),
                false,
            ),
            Err(text) => reply(text, true),
        }
    }

    /// Registers a running command as a background shell: its id and output file.
    fn start_background(
        &self,
        command: &str,
        tool_use_id: Option<&str>,
        terminal_id: String,
        limit: Duration,
    ) -> Result<(String, PathBuf), String> {
        let id = shell_id();
        let output_file = crate::platform::files::private_dir()
            .join(format!("claude-acp-{}-{id}.output", self.session_id));
        if let Err(e) = crate::platform::files::replace_private(&output_file, b"") {
            self.release_later(terminal_id);
            return Err(format!("Could not create the output file: {e}"));
        }
        let terminal = self.clone();
        let (file, tid, shell) = (output_file.clone(), terminal_id.clone(), id.clone());
        if let Some(call) = tool_use_id {
            self.cards.lock().unwrap_or_else(|p| p.into_inner()).insert(
                call.to_owned(),
                super::Card {
                    status: super::CardStatus::Running {
                        shell_id: id.clone(),
                    },
                    result_seen: false,
                },
            );
        }
        let copier = tokio::spawn(async move {
            terminal.copy_until_exit(&shell, &tid, &file, limit).await;
        });
        self.shells
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(
                id.clone(),
                Shell {
                    terminal_id,
                    command: command.to_owned(),
                    tool_use_id: tool_use_id.map(str::to_owned),
                    output_file: output_file.clone(),
                    copier: copier.abort_handle(),
                },
            );
        Ok((id, output_file))
    }

    /// Copies the output until the command ends, or kills it at its time limit.
    async fn copy_until_exit(&self, shell: &str, terminal_id: &str, file: &Path, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            tokio::time::sleep(COPY_EVERY.min(limit)).await;
            let over = tokio::time::Instant::now() >= deadline;
            if over {
                let s = &self.session_id;
                let _ = self
                    .bounded("terminal/kill", self.editor.kill_terminal(s, terminal_id))
                    .await;
            }
            let Ok(shown) = self.output_of(terminal_id).await else {
                continue;
            };
            let mut text = output::plain(&shown.output);
            let failed = over || shown.exit.as_ref().is_some_and(|e| exit_code(e) != 0);
            if over {
                let after = output::duration_text(limit);
                text.push_str(&format!(
                    "\n[killed: still running after its {after} timeout]\n"
                ));
            } else if let Some(exit) = &shown.exit {
                text.push_str(&format!("\n[exited with code {}]\n", exit_code(exit)));
            }
            let _ = crate::platform::files::replace_private(file, text.as_bytes());
            if over || shown.exit.is_some() {
                let ended = self
                    .shells
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(shell);
                if let Some(ended) = ended {
                    self.card_ends(&ended, shell, failed);
                }
                self.release(terminal_id).await;
                return;
            }
        }
    }

    /// TaskStop: a background command of ours is killed, its last output kept in its file and
    /// its terminal released; any other id is claude's own task, stopped by claude.
    pub(super) async fn task_stop(&self, input: &Value) -> Value {
        let s = |key: &str| input.get(key).and_then(Value::as_str);
        let Some(id) = s("task_id").or(s("shell_id")) else {
            return tool_use_error("Missing required parameter: task_id");
        };
        self.stop_by_id(id).await
    }

    /// TaskStop of task `id`: ours killed, any other passed to claude.
    pub(super) async fn stop_by_id(&self, id: &str) -> Value {
        let shell = self
            .shells
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
        let Some(shell) = shell else {
            return self.stop_claudes_task(id).await;
        };
        shell.copier.abort();
        self.card_ends(&shell, id, true);
        let _ = self
            .bounded(
                "terminal/kill",
                self.editor
                    .kill_terminal(&self.session_id, &shell.terminal_id),
            )
            .await;
        if let Ok(shown) = self.output_of(&shell.terminal_id).await {
            let text = format!("{}\n[killed]\n", output::plain(&shown.output));
            let _ = crate::platform::files::replace_private(&shell.output_file, text.as_bytes());
        }
        self.release(&shell.terminal_id).await;
        reply(sdk_mcp::task_stopped_text(id, &shell.command), false)
    }

    async fn stop_claudes_task(&self, id: &str) -> Value {
        let handle = self
            .claude
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let Some(handle) = handle else {
            return tool_use_error(&format!("No task found with ID: {id}"));
        };
        let request = OutboundControl::StopTask {
            task_id: id.to_owned(),
        };
        match handle.request(request, super::STOP_TASK_TIMEOUT).await {
            // The pinned claude answers `stop_task` with `{}` whether or not it knew the id, so the
            // model is told no more than that.
            Ok(_) => reply(
                format!("Asked Claude Code to stop task {id}; it is stopped if it was running."),
                false,
            ),
            Err(e) => tool_use_error(&format!("No task found with ID: {id} ({e})")),
        }
    }
}

fn exit_code(exit: &TerminalExit) -> u32 {
    match (&exit.code, &exit.signal) {
        (Some(code), _) => *code,
        (None, Some(signal)) => output::signal_exit_code(signal),
        (None, None) => 1,
    }
}

/// An id like claude's (`b` and 8 characters of base 36).
fn shell_id() -> String {
    let n = uuid::Uuid::new_v4().as_u128();
    let digits: String = (0..8)
        .map(|i| {
            let d = ((n >> (i * 6)) % 36) as u32;
            char::from_digit(d, 36).unwrap_or('0')
        })
        .collect();
    format!("b{digits}")
}

/// Keeps an output too large to send inline in an owner-only file, as claude does.
fn save_large_output(output: &str) -> Option<String> {
    let path = crate::platform::files::private_dir()
        .join(format!("claude-acp-bash-{}.txt", uuid::Uuid::new_v4()));
    crate::platform::files::replace_private(&path, output.as_bytes()).ok()?;
    Some(path.display().to_string())
}
