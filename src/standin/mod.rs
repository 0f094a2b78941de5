//! A replay stand-in for the `claude` CLI: it plays a scripted conversation on stdin/stdout,
//! checking each line claude-acp sends and answering with what the pinned real CLI emits.
//!
//! Run as `claude-acp standin --script <file.jsonl> [claude's own args...]` (or `--demo` for the
//! embedded [`DEMO_SCRIPT`]; main.rs calls [`run_cli`] then `std::process::exit`). The demo and the
//! tests point `--claude-path` at claude-acp itself with the script in `CLAUDE_STANDIN_SCRIPT`
//! ([`SCRIPT_VAR`]): claude-acp starts its own executable as `claude-acp standin [claude args]`
//! (`claude::locate`), so no wrapper script or shell is needed and it runs alike on every platform.
//! claude's flags are accepted and ignored, except those that feed built-in variables (below).
//!
//! # Script format
//! One JSON object per line; blank lines and lines starting with `//` or `#` are comments.
//! Each step has exactly one of these keys:
//!
//! - `{"expect": P, "bind": {"var": "/json/pointer"}, "optional": false}` reads the next stdin
//!   line, which must be JSON matching pattern `P`, then binds variables from it. Patterns:
//!   objects match as a subset, arrays need the same length, `"$any"` matches any present value,
//!   `"$absent"` requires the key to be missing, strings with `${var}` compare after substitution
//!   (a whole-string `"${var}"` compares the bound JSON value), `$$` is a literal `$`.
//!   With `"optional": true`, a line that does not match is kept for the next step (note that
//!   the step still waits for a line). A `user` line (a prompt) that comes while a step waits
//!   for a `control_response` is held for the first later step that wants it, as claude queues
//!   the prompts it reads while it waits for an answer (the editor's prompt may cross the MCP
//!   handshake); one no step wants is a mismatch at the end of input. A mismatch prints
//!   `standin: step N: expected <pattern> got <line> (at file:line)` on stderr and exits 3.
//! - `{"expect_any_order": [P | {"expect": P, "bind": {...}}, ...]}` reads as many lines as
//!   there are patterns, each matching a different pattern, in any order (for races such as an
//!   interrupt crossing a permission answer).
//! - `{"emit": J}` writes `J` as one line after `${var}` substitution inside strings; a
//!   whole-string `"${var}"` becomes the bound value with its JSON type.
//! - `{"emit_raw": "text"}` writes the text as is (garbage lines).
//! - `{"emit_big_line": {"bytes": N, "template": J, "fill": "x"}}` writes `J` with the one
//!   `${filler}` inside it grown so that the line is exactly `N` bytes (newline excluded).
//! - `{"sleep_ms": N}`, `{"stderr": "text"}` (substituted), `{"exit": code}` (a crash).
//! - `{"wait_eof": true}` ignores further lines (still logged) until stdin closes, then exits 0.
//! - `{"hang": true}` ignores everything until killed.
//! - `{"close_stdout": true}` closes stdout (really: the reader sees end-of-file) and goes on;
//!   follow it with `hang` (a claude whose output ended while it lives).
//! - `{"ignore_eof": true}`: from then on, stdin closing does not end the run; it waits to be
//!   killed instead (a claude busy in a long tool call), so only a real kill takes it down.
//! - `{"write_file": {"path": "hello.txt", "content": "..."}}` really writes the file, relative to
//!   the stand-in's cwd (both substituted), as the Write tool would.
//! - `{"spawn_detached": "command"}` starts `/bin/sh -c command` (substituted, in the cwd) in a
//!   session and process group of its own and leaves it running, as claude starts its Bash
//!   tool's shells (`detached: true`): killing the stand-in's group does not reach it.
//! - `{"set": {"var": J}}` sets variables (values substituted).
//! - `{"on": P, "bind": {...}, "reply": [J, ...]}` registers a handler: from then on, a received
//!   line that the current step does not want (and that is not read by an `optional` step) but
//!   that matches `P` is bound, answered with the replies, and skipped. `control_defaults.jsonl`
//!   answers `set_permission_mode` (ack + `system/status`, rebinding `permission_mode`),
//!   `set_model` (ack, rebinding `model`), `interrupt` (`{"still_queued":[]}`) and
//!   `apply_flag_settings` the way the idle CLI does; only scripts where such requests may come at
//!   any point (the demo) include it. Elsewhere they are expected exactly where they
//!   are the behaviour, and anything else is a mismatch.
//! - `{"label": "name"}` marks a place; `{"goto": "name"}` jumps there (a demo that loops).
//! - `{"branch": [{"expect": P, "bind": {...}, "goto": "label"}, ...]}` reads one line and jumps
//!   to the label of the first alternative that matches (e.g. allow vs deny); none is a mismatch.
//! - `{"include": "name.jsonl"}` splices another script in: built-in snippets first
//!   (`initialize.jsonl`: expects the adapter's `initialize` and answers it like the pinned CLI;
//!   `control_defaults.jsonl`: the handlers above;
//!   `system_init.jsonl`: the `system/init` line of a turn), then files next to the script.
//!
//! Any step may carry `"when": "--flag"` or `"unless": "--flag"` to run only if claude was (was
//! not) given that flag; fixtures mark `stream_event` lines `"when": "--include-partial-messages"`.
//!
//! `--version` (or `-v`) among claude's args prints `<PINNED_CLAUDE_VERSION> (Claude Code)` and exits 0, like the CLI.
//! `auth logout` logs the stand-in out: later stand-ins with the same claude config dir play
//! `not_logged_in.jsonl` instead of their script (see [`login`]).
//!
//! A `get_settings` control request that no step wants is answered as the pinned claude answers it for an
//! API-key login (`applied`: the model, `ultracodeAvailable: true`), as claude answers it at any
//! point; a `list_permission_rules` one with the rules of the user's, the project's and the local
//! settings files (a project's allow rules only once the user trusted it, as claude lists them).
//!
//! When stdin closes while a line is expected, the stand-in exits 0 quietly, as claude does.
//! After the last step it waits for stdin to close; a line arriving then is a mismatch.
//! A broken script (unbound variable, unwritable file) exits 2.
//!
//! Built-in variables: `session_id` (from `--session-id`, else `--resume` unless
//! `--fork-session`, else a fresh uuid), `resume_id` (or null), `cwd`, `pid` (a number),
//! `model` (`--model`, default `claude-opus-5-5`), `permission_mode` (`--permission-mode`,
//! default `default`; scripts rebind it from `set_permission_mode`), and `new_uuid`, a fresh uuid
//! at each use (`{"set": {"tool_id": "toolu_${new_uuid}"}}` gives a looping script fresh ids).
//!
//! If env `CLAUDE_STANDIN_LOG` names a file, one JSON line per event is appended to it:
//! `{"event":"start","argv":[..],"cwd":..}`, `{"event":"recv","line":<JSON or string>}`,
//! `{"event":"error","message":..,"code":N}` (a mismatch or a broken script),
//! `{"event":"scripted_exit","code":N}` (an `exit` step), `{"event":"eof_ignored"}`,
//! `{"event":"exit","code":N}`, each with `pid`. Tests read the verdict from it: a clean run
//! has no `error` and exits 0 unless its script said otherwise.
//!
//! Fixtures live in `fixtures/standin/*.jsonl`, derived from the transcripts of the real CLI in
//! `fixtures/transcripts/` by `fixtures/standin/tools/derive.py` (paths `/run/work` became
//! `${cwd}`, session ids `${session_id}`; `stream_event` lines only with
//! `--include-partial-messages`). Each starts with `initialize`; what each then wants:
//!
//! | fixture | the adapter sends | claude does |
//! |---|---|---|
//! | `text` | 2 prompts | plain answers; the 2nd thinks first |
//! | `partial_messages` | 1 prompt | thinking, text, a Read (no ask), deltas |
//! | `write_allow` | prompt, allow | Write ask; writes `updatedInput.content` to `hello.txt` |
//! | `write_deny` | prompt, deny (an `apply_flag_settings` rule may come first) | Write ask; the error tool_result echoes the message; an allow really writes `hello.txt` |
//! | `bash_edit` | prompt, allow x3 | Read, Edit, 3 Bash (asks: Edit, 2 Bash); writes `src/main.rs`, `build.log` |
//! | `ask_user_question` | prompt, allow | AskUserQuestion as can_use_tool |
//! | `todowrite`, `task_tools` | 1 prompt | TodoWrite plan / Task tools, no asks |
//! | `permission_mode` | set_permission_mode, prompt, allow, set_permission_mode, prompt, allow | acks + system/status |
//! | `exit_plan_mode` | (set_permission_mode), prompt, allow or deny | ExitPlanMode ask; approval -> status default |
//! | `set_model` | set_model, prompt | ack; the turn reports the new model |
//! | `set_permission_mode` | set_permission_mode | ack + system/status; nothing else |
//! | `resume` | 1 prompt (spawn with `--resume <id>`) | answers in session `<id>` |
//! | `slow_turn` | 1 prompt | like `resume`, after a 6 s pause (a turn outliving the idle timeout) |
//! | `interrupt` | prompt, interrupt after deltas, prompt | aborted partial, error_during_execution |
//! | `interrupt_permission` | prompt, deny + interrupt (any order), prompt | control_cancel_request, aborted_tools |
//! | `crash` | 1 prompt | some text, stderr, exit 1 |
//! | `garbage` | prompt, error reply to `no_such_subtype` | non-JSON line, unknown types, then an answer |
//! | `big_tool_result` | 1 prompt | a 20 MiB tool_result line |
//! | `big_write_permission` | prompt, allow | a Write of 2 MiB: its tool_use line, its can_use_tool line, then its tool result line (the file again) |
//! | `error_result`, `max_tokens` | 1 prompt | `is_error` result / `stop_reason: max_tokens` |
//! | `hang` | 1 prompt | nothing, ever |
//! | `text_ignoring_eof` | as `text` | as `text`, but stdin closing does not end it: only a kill does |
//! | `compact` | prompt, `/compact` | an answer; then compaction status lines, `compact_boundary`, a zero-usage result |
//! | `rewind` | rewind_files dry run; dry run, real; with `--resume-session-at`: 1 prompt | the pinned claude's answers; the real one writes `a.txt` |
//! | `demo` | prompts, each: allow, deny or interrupt | loops: a line, a Write of `hello.txt`, an answer |

mod engine;
mod input;
#[cfg(test)]
mod launch;
mod login;
mod pattern;
mod runtime;
mod script;
mod step_parse;

pub(crate) use engine::{EXIT_SCRIPT_ERROR, run_with_runtime};
pub(crate) use runtime::Runtime;
pub(crate) use script::Script;
#[cfg(test)]
pub(crate) use {engine::EXIT_MISMATCH, launch::StandinLauncher, script::Step};

use std::path::{Path, PathBuf};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};

/// Runs `script` on the process's own stdin/stdout/stderr and returns the exit code.
///
/// The caller must end the process with `std::process::exit(code)` right away: tokio's stdin
/// reader sits on a blocking thread that would otherwise keep the runtime from shutting down.
pub(crate) async fn run(script: Script, claude_args: Vec<String>) -> i32 {
    run_with_io(
        script,
        claude_args,
        tokio::io::stdin(),
        // Buffered: back-to-back lines leave in one write (see `Engine::run_steps`); its shutdown
        // flushes, then closes the descriptor.
        tokio::io::BufWriter::with_capacity(64 * 1024, ClosableStdout(tokio::io::stdout())),
        tokio::io::stderr(),
    )
    .await
}

/// The subcommand that runs the stand-in: `claude-acp standin ...` (named where claude is found,
/// which gives it to a claude that is claude-acp itself).
pub use crate::claude::STANDIN_SUBCOMMAND as SUBCOMMAND;

/// The environment variable naming the script a stand-in started as `claude-acp standin
/// [claude args...]` plays (how `--claude-path` at claude-acp itself starts it). Several scripts,
/// joined like `PATH`, are played one per start: the n-th stand-in plays the n-th, every later
/// one the last (a claude that fails, then the one a restart finds), counted in the file that
/// [`STARTS_VAR`] names.
pub const SCRIPT_VAR: &str = "CLAUDE_STANDIN_SCRIPT";

/// The file counting the stand-ins started, for a [`SCRIPT_VAR`] of several scripts.
pub const STARTS_VAR: &str = "CLAUDE_STANDIN_STARTS";

/// The whole `claude-acp standin ...` command: `args` are what follows `standin`, i.e.
/// `--script <file.jsonl> [claude args...]`, `--demo [claude args...]` (the embedded demo), or
/// claude's args alone with the script in [`SCRIPT_VAR`].
/// Returns the exit code; a script that cannot be loaded prints why on stderr and gives 2.
/// As with [`run`], the caller must `std::process::exit` with the code.
pub async fn run_cli(args: Vec<String>) -> i32 {
    let (script, claude_args) = match args.first().map(String::as_str) {
        Some("--script") if args.len() >= 2 => (args[1].clone(), args[2..].to_vec()),
        Some("--demo") => {
            return match Script::parse(DEMO_SCRIPT) {
                Ok(script) => run(script, args[1..].to_vec()).await,
                Err(e) => {
                    eprintln!("standin: {e}");
                    EXIT_SCRIPT_ERROR
                }
            };
        }
        _ => match script_from_env() {
            Ok(script) => (script, args),
            Err(e) => {
                eprintln!(
                    "usage: claude-acp standin (--script <file.jsonl> | --demo) [claude args...], \
                     or claude's args with ${SCRIPT_VAR} naming the script: {e}"
                );
                return EXIT_SCRIPT_ERROR;
            }
        },
    };
    if let Some(code) = login::handle_auth(&claude_args) {
        return code;
    }
    match Script::load(login::script_to_play(&script)) {
        Ok(script) => run(script, claude_args).await,
        Err(e) => {
            eprintln!("standin: {e}");
            EXIT_SCRIPT_ERROR
        }
    }
}

/// The script this start plays, from [`SCRIPT_VAR`] (and [`STARTS_VAR`] for several).
fn script_from_env() -> Result<String, String> {
    let list = std::env::var_os(SCRIPT_VAR)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| format!("${SCRIPT_VAR} is not set"))?;
    let scripts: Vec<PathBuf> = std::env::split_paths(&list).collect();
    let start = match std::env::var_os(STARTS_VAR) {
        Some(counter) if scripts.len() > 1 => count_start(Path::new(&counter))
            .map_err(|e| format!("${STARTS_VAR} {}: {e}", Path::new(&counter).display()))?,
        _ if scripts.len() > 1 => {
            return Err(format!(
                "several scripts need ${STARTS_VAR} to count starts"
            ));
        }
        _ => 0,
    };
    Ok(pick_script(&scripts, start).to_string_lossy().into_owned())
}

/// Adds this start to the counter file; returns how many started before it.
pub(crate) fn count_start(counter: &Path) -> std::io::Result<usize> {
    let before = match std::fs::read_to_string(counter) {
        Ok(text) => text.trim().parse().unwrap_or(0),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
        Err(e) => return Err(e),
    };
    std::fs::write(counter, format!("{}\n", before + 1))?;
    Ok(before)
}

/// The `start`-th script (from 0), or the last for every later start.
pub(crate) fn pick_script(scripts: &[PathBuf], start: usize) -> &Path {
    &scripts[start.min(scripts.len() - 1)]
}

/// Like [`run`] over any streams, with the log file, cwd and pid taken from the process.
pub(crate) async fn run_with_io<R, W, E>(
    script: Script,
    claude_args: Vec<String>,
    stdin: R,
    stdout: W,
    stderr: E,
) -> i32
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
    E: AsyncWrite + Unpin,
{
    run_with_runtime(
        script,
        claude_args,
        Runtime::from_env(),
        BufReader::new(stdin),
        stdout,
        stderr,
    )
    .await
}

/// The process's stdout, whose shutdown closes the descriptor itself (tokio's only flushes), so
/// that `close_stdout` gives claude-acp end-of-file as a real claude closing its stdout would.
struct ClosableStdout(tokio::io::Stdout);

impl tokio::io::AsyncWrite for ClosableStdout {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::ready!(std::pin::Pin::new(&mut self.0).poll_flush(cx))?;
        std::task::Poll::Ready(crate::platform::stdio::close_stdout())
    }
}

/// The demo's script, embedded: claude greets, writes `hello.txt` after a permission prompt,
/// and answers.
pub(crate) const DEMO_SCRIPT: &str = include_str!("../../fixtures/standin/demo.jsonl");

#[cfg(test)]
mod tests;
