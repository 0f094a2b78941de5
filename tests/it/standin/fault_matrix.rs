//! Fault injection: claude failing in each way at each point of a turn. The turn is claude's Write
//! of `hello.txt` after a permission ask (`write_allow`), and the fault is spliced into it:
//! before claude's first line, mid-stream, with the permission pending, between the tool_use and
//! its tool_result, and after the result. In every case the prompt is answered exactly once (an
//! error, `cancelled` after `session/cancel` for a claude that never ends the turn, or the turn's
//! own answer when the fault is survivable), the next prompt works, the adapter does not panic,
//! and no claude is left once the editor quits. One test per kind of fault walks every point.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::liveness;
use crate::support::standin::{Standin, fixture};

/// The prompt `write_allow` expects.
const PROMPT: &str = "Please create hello.txt";
/// What the next prompt's claude answers (the first turn of `text`).
const NEXT_ANSWER: &str = "Hello from the mock model!";
/// claude's line of 64 MiB, far beyond any real one.
const HUGE_LINE_BYTES: usize = 64 * 1024 * 1024;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Point {
    BeforeFirstLine,
    MidStream,
    PermissionPending,
    BetweenToolUseAndResult,
    AfterResult,
}

const POINTS: [Point; 5] = [
    Point::BeforeFirstLine,
    Point::MidStream,
    Point::PermissionPending,
    Point::BetweenToolUseAndResult,
    Point::AfterResult,
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    /// Exits with status 1.
    Crash,
    /// Stops reading and writing, until killed.
    Hang,
    /// A line that is not JSON.
    Garbage,
    /// An assistant line cut short.
    TruncatedJson,
    /// A 64 MiB line (of a message type claude-acp does not know).
    HugeLine,
    /// Closes its stdout and lives on.
    ClosesStdout,
    /// Reads on (the interrupt too) but never answers nor ends the turn.
    IgnoresInterrupt,
}

impl Fault {
    /// The stand-in steps that play it.
    fn steps(self) -> Vec<Value> {
        match self {
            Fault::Crash => vec![json!({"stderr": "fault: crashing"}), json!({"exit": 1})],
            Fault::Hang => vec![json!({"sleep_ms": 3_600_000})],
            Fault::Garbage => vec![json!({"emit_raw": "this is not JSON {{{"})],
            Fault::TruncatedJson => vec![json!({"emit_raw":
                "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_cut\",\"role\":\"assistant\",\"content\":[{\"type\":\"te"})],
            Fault::HugeLine => vec![json!({"emit_big_line": {"bytes": HUGE_LINE_BYTES,
                "template": {"type": "x_padding", "pad": "${filler}"}}})],
            Fault::ClosesStdout => vec![json!({"close_stdout": true}), json!({"hang": true})],
            Fault::IgnoresInterrupt => vec![json!({"hang": true})],
        }
    }

    /// Whether claude goes on with the turn after it.
    fn survivable(self) -> bool {
        matches!(
            self,
            Fault::Garbage | Fault::TruncatedJson | Fault::HugeLine
        )
    }

    /// Whether only `session/cancel` ends a turn it hits.
    fn needs_cancel(self) -> bool {
        matches!(self, Fault::Hang | Fault::IgnoresInterrupt)
    }
}

/// `write_allow` with the fault (and a marker file saying it was reached) spliced in at `point`,
/// then, for a claude that survives it, one more turn (the first of `text`).
fn faulty_script(dir: &Path, fault: Fault, point: Point) -> PathBuf {
    let mut steps: Vec<String> = lines_of("write_allow");
    // Indices into write_allow's steps: 0 initialize, 1 the prompt, 2 system/init, 3 text,
    // 4 tool_use, 5 can_use_tool, 6 the permission answer, 7 the write, 8 tool_result, 9 text,
    // 10 result.
    let at = match point {
        Point::BeforeFirstLine => 2,
        Point::MidStream => 4,
        Point::PermissionPending => 6,
        Point::BetweenToolUseAndResult => 8,
        Point::AfterResult => 11,
    };
    assert!(steps[at - 1].contains(match point {
        Point::BeforeFirstLine => "\"expect\"",
        Point::MidStream => "I'll create the file.",
        Point::PermissionPending => "can_use_tool",
        Point::BetweenToolUseAndResult => "write_file",
        Point::AfterResult => "\"result\"",
    }));
    let marker = json!({"write_file": {"path": "../fault-reached", "content": "reached"}});
    let mut fault_steps = vec![marker.to_string()];
    fault_steps.extend(fault.steps().iter().map(Value::to_string));
    steps.splice(at..at, fault_steps);
    let text = lines_of("text");
    let second_prompt = text
        .iter()
        .rposition(|l| l.starts_with("{\"expect\""))
        .expect("text has two prompts");
    steps.extend(text[1..second_prompt].iter().cloned());
    let path = dir.join("faulty.jsonl");
    std::fs::write(&path, steps.join("\n") + "\n").expect("write script");
    path
}

/// A fixture's steps, comments dropped.
fn lines_of(name: &str) -> Vec<String> {
    std::fs::read_to_string(fixture(name))
        .expect("fixture")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("//"))
        .map(str::to_owned)
        .collect()
}

/// How many answers each `session/prompt` got.
fn answers_per_prompt(c: &AcpClient) -> Vec<usize> {
    let transcript = c.transcript();
    c.sent()
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["method"] == "session/prompt")
        .map(|m| {
            transcript
                .iter()
                .filter(|r| r.get("method").is_none() && r["id"] == m["id"])
                .count()
        })
        .collect()
}

/// Sends a prompt and, once the fault has been reached, cancels it (again until it is answered:
/// a cancel that overtakes its prompt inside the adapter finds no turn to cancel).
async fn prompt_and_cancel(c: &AcpClient, s: &Standin, id: &str, text: &str) -> Value {
    let marker = s.dir().join("fault-reached");
    let prompt = c.prompt(id, text);
    tokio::pin!(prompt);
    loop {
        tokio::select! {
            stop = &mut prompt => {
                return stop.unwrap_or_else(|e| {
                    panic!("a cancelled prompt is answered `cancelled`, not {e:?}")
                });
            }
            () = tokio::time::sleep(Duration::from_millis(250)) => {
                if marker.exists() {
                    c.cancel(id).await;
                }
            }
        }
    }
}

/// Waits until the session has seen its claude end (the adapter logs it).
async fn claude_gone(c: &AcpClient) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !without_colours(&c.stderr_text()).contains("claude exited session=") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the session never saw its claude end\n{}",
            c.diagnostics()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The log's text without its terminal colour codes.
fn without_colours(log: &str) -> String {
    let mut text = String::with_capacity(log.len());
    let mut chars = log.chars();
    while let Some(ch) = chars.next() {
        if ch == '\u{1b}' {
            // `ESC [ ... m`
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            text.push(ch);
        }
    }
    text
}

/// One case: the fault at the point, then the checks every case shares.
async fn run_case(fault: Fault, point: Point) {
    let case = format!("{fault:?} {point:?}");
    let s = Standin::with_scripts(|dir| vec![faulty_script(dir, fault, point), fixture("text")]);
    let c = s.adapter(&[]);
    c.set_timeout(Duration::from_secs(40));
    c.allow_permissions();
    c.initialize().await;
    let id = c.new_session(&s.work).await;

    if point == Point::AfterResult {
        let stop = c.prompt(&id, PROMPT).await.expect(&case);
        assert_eq!(stop["stopReason"], "end_turn", "{case}");
        // The fault hits between turns: the next prompt meets it.
        match fault {
            Fault::Crash | Fault::ClosesStdout => claude_gone(&c).await,
            Fault::Hang | Fault::IgnoresInterrupt => {
                let stop = prompt_and_cancel(&c, &s, &id, "anyone there?").await;
                assert_eq!(stop["stopReason"], "cancelled", "{case}");
            }
            _ => {}
        }
    } else if fault.needs_cancel() {
        let stop = prompt_and_cancel(&c, &s, &id, PROMPT).await;
        assert_eq!(stop["stopReason"], "cancelled", "{case}");
    } else {
        let outcome = c.prompt(&id, PROMPT).await;
        match fault {
            Fault::Crash => {
                let err = outcome.expect_err(&case);
                assert!(
                    err.message.contains("claude exited during the turn")
                        && err.message.contains("fault: crashing"),
                    "{case}: {err:?}"
                );
            }
            Fault::ClosesStdout => {
                let err = outcome.expect_err(&case);
                assert!(err.message.contains("closed its stdout"), "{case}: {err:?}");
            }
            _ => {
                assert!(fault.survivable());
                assert_eq!(outcome.expect(&case)["stopReason"], "end_turn", "{case}");
            }
        }
    }

    let next = c.prompt(&id, "next").await;
    assert_eq!(
        next.unwrap_or_else(|e| panic!("{case}: the next prompt failed: {e:?}"))["stopReason"],
        "end_turn",
        "{case}"
    );
    assert!(
        c.agent_text(&id).ends_with(NEXT_ANSWER),
        "{case}: {}",
        c.agent_text(&id)
    );

    let pids = s.pids();
    c.quit(Duration::from_secs(10)).await;
    let answers = answers_per_prompt(&c);
    assert!(
        answers.iter().all(|&n| n == 1),
        "{case}: answers per prompt {answers:?}"
    );
    assert!(
        !c.stderr_text().contains("panicked"),
        "{case}: the adapter panicked\n{}",
        c.diagnostics()
    );
    assert!(
        liveness::wait_until_gone(&pids, Duration::from_secs(5)).await,
        "{case}: a claude was left running: {:?}",
        pids.iter()
            .filter(|&&p| liveness::is_alive(p))
            .collect::<Vec<_>>()
    );
}

/// Every point of a turn for one fault.
macro_rules! at_every_point {
    ($($name:ident: $fault:expr;)*) => {$(
        #[tokio::test]
        async fn $name() {
            for point in POINTS {
                run_case($fault, point).await;
            }
        }
    )*};
}

at_every_point! {
    a_crash_at_every_point_of_a_turn: Fault::Crash;
    a_hang_at_every_point_of_a_turn: Fault::Hang;
    a_garbage_line_at_every_point_of_a_turn: Fault::Garbage;
    truncated_json_at_every_point_of_a_turn: Fault::TruncatedJson;
    a_64_mib_line_at_every_point_of_a_turn: Fault::HugeLine;
    stdout_closed_at_every_point_of_a_turn: Fault::ClosesStdout;
    an_ignored_interrupt_at_every_point_of_a_turn: Fault::IgnoresInterrupt;
}
