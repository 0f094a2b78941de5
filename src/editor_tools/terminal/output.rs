//! What the model gets back from a command run in the editor's terminal, in claude's own Bash
//! format (captured from the pinned claude in `fixtures/editor_terminal/tool_results.jsonl`; its
//! PowerShell tool's is the same under its own name): the output as the terminal gave it, `Exit
//! code N` first when it failed, claude's texts for no output and a timeout, and output past 30 000
//! characters saved to a file with a 2 KB preview.

use std::path::Path;
use std::time::Duration;

/// claude's default and largest foreground timeout (its Bash description: default 120000, max
/// 600000 ms).
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_millis(120_000);
pub(crate) const MAX_TIMEOUT: Duration = Duration::from_millis(600_000);

/// How long a background command may run (`run_in_background`'s `timeout`: default 1800000,
/// max 7200000 ms).
pub(crate) const DEFAULT_BACKGROUND_TIMEOUT: Duration = Duration::from_millis(1_800_000);
pub(crate) const MAX_BACKGROUND_TIMEOUT: Duration = Duration::from_millis(7_200_000);

/// Output the model gets inline; past it claude saves the output and sends a preview (claude's
/// `BASH_MAX_OUTPUT_LENGTH` default).
pub(crate) const INLINE_LIMIT: usize = 30_000;
const PREVIEW_BYTES: usize = 2_000;

/// How a command ended, as the result tells it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ended {
    /// Its output, cleaned of terminal control sequences.
    pub(crate) output: String,
    /// 0 for success; 128 + the signal for a command a signal ended (143 after a timeout).
    pub(crate) exit_code: u32,
    /// The timeout that ended it, if one did.
    pub(crate) timed_out_after: Option<Duration>,
    /// The editor dropped the oldest output (its byte limit).
    pub(crate) truncated: bool,
}

/// The tool result: its text and whether it is an error.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BashResult {
    pub(crate) text: String,
    pub(crate) is_error: bool,
}

/// The timeout a call asks for, bounded as claude bounds it.
pub(crate) fn timeout_of(requested_ms: Option<f64>) -> Duration {
    bounded(requested_ms, DEFAULT_TIMEOUT, MAX_TIMEOUT)
}

/// The same for a background command.
pub(crate) fn background_timeout_of(requested_ms: Option<f64>) -> Duration {
    bounded(
        requested_ms,
        DEFAULT_BACKGROUND_TIMEOUT,
        MAX_BACKGROUND_TIMEOUT,
    )
}

fn bounded(requested_ms: Option<f64>, default: Duration, max: Duration) -> Duration {
    match requested_ms {
        Some(ms) if ms.is_finite() && ms > 0.0 => Duration::from_millis(ms as u64).min(max),
        _ => default,
    }
}

/// The result text of command tool `tool`. `save` keeps an output too large to send inline and
/// says where it is.
pub(crate) fn result(
    tool: &str,
    ended: &Ended,
    save: impl FnOnce(&str) -> Option<String>,
) -> BashResult {
    let output = trimmed(&ended.output);
    let mut body = if output.chars().count() > INLINE_LIMIT {
        persisted(output, save)
    } else {
        output.to_owned()
    };
    if ended.truncated {
        body = format!("[the editor's terminal kept only the end of the output]\n{body}");
    }
    if let Some(after) = ended.timed_out_after {
        let note = format!("Command timed out after {}", duration_text(after));
        body = if body.is_empty() {
            note
        } else {
            format!("{body}\n{note}")
        };
    }
    if ended.exit_code != 0 {
        let text = if body.is_empty() {
            format!("Exit code {}", ended.exit_code)
        } else {
            format!("Exit code {}\n{body}", ended.exit_code)
        };
        return BashResult {
            text,
            is_error: true,
        };
    }
    BashResult {
        text: if body.is_empty() {
            format!("({tool} completed with no output)")
        } else {
            body
        },
        is_error: false,
    }
}

/// The result of a foreground command that outlived its timeout after printing something: it
/// runs on in the background (the pinned claude's words, less its promise to re-invoke the model).
pub(crate) fn moved_to_background(output: &str, after: Duration, id: &str, file: &Path) -> String {
    let output = trimmed(output);
    format!(
        "{output}\nCommand did not complete within its {} timeout and was moved to the background (ID: {id}). Output is being written to: {}. If it is still running after {} in the background, it will be stopped. It is running now: do not start a second copy while it runs. If it is no longer needed, stop it with TaskStop. To check interim output, use Read on that file path.",
        duration_text(after),
        file.display(),
        minutes_text(DEFAULT_BACKGROUND_TIMEOUT),
    )
}

/// claude's "30m".
fn minutes_text(duration: Duration) -> String {
    format!("{}m", duration.as_secs() / 60)
}

/// claude's "1s", "2m 30s".
pub(crate) fn duration_text(duration: Duration) -> String {
    let seconds = duration.as_secs();
    if seconds == 0 {
        format!("{}ms", duration.as_millis())
    } else if seconds < 60 {
        format!("{seconds}s")
    } else {
        format!("{}m {}s", seconds / 60, seconds % 60)
    }
}

/// The `<persisted-output>` block claude sends for a large output: where the whole of it is,
/// and its first 2 KB up to a line's end.
fn persisted(output: &str, save: impl FnOnce(&str) -> Option<String>) -> String {
    let Some(path) = save(output) else {
        // Nowhere to keep it: the model gets the start of it, as much as claude would inline.
        let cut: String = output.chars().take(INLINE_LIMIT).collect();
        return format!("{cut}\n... [output truncated]");
    };
    let mut end = PREVIEW_BYTES.min(output.len());
    while !output.is_char_boundary(end) {
        end -= 1;
    }
    let head = &output[..end];
    let preview = match head.rfind('\n') {
        Some(line_end) if line_end > 0 => &head[..line_end],
        _ => head,
    };
    format!(
        "<persisted-output>\nOutput too large ({}). Full output saved to: {path}\n\nPreview (first 2KB):\n{preview}\n...\n</persisted-output>",
        size_text(output.len())
    )
}

/// claude's "223.5KB".
fn size_text(bytes: usize) -> String {
    let kb = bytes as f64 / 1024.0;
    if kb < 1024.0 {
        format!("{kb:.1}KB")
    } else {
        format!("{:.1}MB", kb / 1024.0)
    }
}

/// Blank lines around the output go, as claude's results have none.
fn trimmed(output: &str) -> &str {
    output.trim_start_matches(['\n', '\r']).trim_end()
}

/// The terminal's output as plain text: CRLF as LF, colours and other control sequences gone (an
/// editor terminal is a pty, where commands colour their output; claude's own Bash is not).
pub(crate) fn plain(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters, then one final byte in @..~.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC: up to BEL or ESC \.
                Some(']') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\r' if chars.peek() == Some(&'\n') => {}
            c => out.push(c),
        }
    }
    out
}

/// The exit code claude reports for a command a signal ended: 128 + the signal's number.
pub(crate) fn signal_exit_code(signal: &str) -> u32 {
    let name = signal.trim_start_matches("SIG");
    let number = match name {
        "HUP" => 1,
        "INT" => 2,
        "QUIT" => 3,
        "ABRT" => 6,
        "KILL" => 9,
        "SEGV" => 11,
        "PIPE" => 13,
        "TERM" => 15,
        other => other.parse().unwrap_or(1),
    };
    128 + number
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ended(output: &str, exit_code: u32) -> Ended {
        Ended {
            output: output.into(),
            exit_code,
            timed_out_after: None,
            truncated: false,
        }
    }

    fn text(e: &Ended) -> (String, bool) {
        let r = result("Bash", e, |_| Some("/tmp/out.txt".into()));
        (r.text, r.is_error)
    }

    #[test]
    fn results_read_as_claudes_own_bash() {
        // tool_results.jsonl, lines 1, 2, 3 and 4.
        assert_eq!(
            text(&ended("hello\nerr\nbye\n", 0)),
            ("hello\nerr\nbye".into(), false)
        );
        assert_eq!(text(&ended("out\n", 3)), ("Exit code 3\nout".into(), true));
        let mut timed_out = ended("", 143);
        timed_out.timed_out_after = Some(Duration::from_millis(1000));
        assert_eq!(
            text(&timed_out),
            ("Exit code 143\nCommand timed out after 1s".into(), true)
        );
        assert_eq!(
            text(&ended("", 0)),
            ("(Bash completed with no output)".into(), false)
        );
        // claude.exe's PowerShell tool words it under its own name (`(${name} completed ...)`).
        let r = result("PowerShell", &ended("", 0), |_| None);
        assert_eq!(r.text, "(PowerShell completed with no output)");
    }

    #[test]
    fn a_large_output_is_saved_and_previewed_as_claude_does() {
        // Line 5: `seq 1 40000`.
        let output: String = (1..=40000).map(|n| format!("{n}\n")).collect();
        let mut saved = String::new();
        let r = result("Bash", &ended(&output, 0), |whole| {
            saved = whole.to_owned();
            Some("/tmp/out.txt".into())
        });
        assert!(
            r.text.starts_with(
                "<persisted-output>\nOutput too large (223.5KB). Full output saved to: /tmp/out.txt\n\nPreview (first 2KB):\n1\n2\n3\n"
            ),
            "{}",
            &r.text[..200]
        );
        assert!(r.text.ends_with("\n526\n527\n...\n</persisted-output>"));
        assert_eq!(saved, output.trim_end());
        assert_eq!(saved.len() + 1, 228_894);
    }

    #[test]
    fn a_timeout_after_some_output_reads_as_claudes_move_to_the_background() {
        // tool_results.jsonl, run cap2: `echo out; echo err >&2; sleep 3` with timeout 1000.
        let text = moved_to_background(
            "out\nerr\n",
            Duration::from_secs(1),
            "b5a98148w",
            Path::new("/run/tmp/b5a98148w.output"),
        );
        assert_eq!(
            text,
            "out\nerr\nCommand did not complete within its 1s timeout and was moved to the background (ID: b5a98148w). Output is being written to: /run/tmp/b5a98148w.output. If it is still running after 30m in the background, it will be stopped. It is running now: do not start a second copy while it runs. If it is no longer needed, stop it with TaskStop. To check interim output, use Read on that file path."
        );
    }

    #[test]
    fn timeouts_are_bounded_as_claudes() {
        assert_eq!(timeout_of(None), DEFAULT_TIMEOUT);
        assert_eq!(timeout_of(Some(1000.0)), Duration::from_secs(1));
        assert_eq!(timeout_of(Some(9e9)), MAX_TIMEOUT);
        assert_eq!(timeout_of(Some(-5.0)), DEFAULT_TIMEOUT);
        assert_eq!(background_timeout_of(None), DEFAULT_BACKGROUND_TIMEOUT);
        assert_eq!(background_timeout_of(Some(9e9)), MAX_BACKGROUND_TIMEOUT);
    }

    #[test]
    fn terminal_control_sequences_are_dropped() {
        assert_eq!(
            plain("\u{1b}[1;31mred\u{1b}[0m\r\n\u{1b}]0;title\u{7}next\r\n"),
            "red\nnext\n"
        );
        assert_eq!(signal_exit_code("SIGKILL"), 137);
        assert_eq!(signal_exit_code("SIGTERM"), 143);
    }
}
