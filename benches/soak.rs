//! Soak: the release adapter over 1,000 turns of one session and with 50 sessions open, on the
//! stand-in (`fixtures/standin/soak_turn.jsonl`: each turn streams text, asks to Write a file, the
//! bench allows it, claude writes it and answers). Printed, never asserted: the adapter's own
//! resident memory (VmRSS), open file descriptors and threads at checkpoints, which should stay
//! flat as turns go by, grow by a fixed amount per open session, and return to the one-session
//! figures once sessions are closed.
//!
//! Run: `cargo bench --bench soak`; `SOAK_TURNS` and `SOAK_SESSIONS` change the counts
//! (defaults 1000 and 50).

#[path = "shared/editor.rs"]
mod editor;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::json;

use editor::{AcpClient, wait_until};

/// What the bench prompts (the stand-in's script answers any prompt the same way).
const PROMPT: &str = "make a file";

#[tokio::main]
async fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("soak: run with `cargo bench --bench soak`");
        return;
    }
    let turns = count("SOAK_TURNS", 1000);
    let sessions = count("SOAK_SESSIONS", 50);
    let claude = StandIn::new();
    println!("claude-acp soak on the stand-in (soak_turn.jsonl), adapter process only\n");
    println!(
        "{:<34} {:>9} {:>9} {:>5} {:>7} {:>8}",
        "checkpoint", "RSS KiB", "peak KiB", "fds", "threads", "claudes"
    );
    soak_turns(&claude, turns).await;
    println!();
    soak_sessions(&claude, sessions).await;
}

fn count(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One session prompted `turns` times.
async fn soak_turns(claude: &StandIn, turns: usize) {
    let editor = claude.adapter().await;
    sample(&editor, "started, initialized");
    let id = editor.new_session(&claude.work).await;
    let started = Instant::now();
    let mut failed = 0;
    for turn in 1..=turns {
        if stop_reason(&editor, &id).await != "end_turn" {
            failed += 1;
        }
        if [1, 10, 100, 500].contains(&turn) || turn % 1000 == 0 || turn == turns {
            sample(&editor, &format!("turn {turn}"));
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "  {turns} turns in {seconds:.1} s ({:.1} ms a turn, each with a permission round trip); \
         turns not ending end_turn: {failed}",
        seconds * 1000.0 / turns as f64
    );
    finish(editor).await;
}

/// Sessions opened one by one (each prompted once) up to `sessions`, closed, then opened and
/// closed again one at a time.
async fn soak_sessions(claude: &StandIn, sessions: usize) {
    let editor = claude.adapter().await;
    let mut open = Vec::new();
    for n in 1..=sessions {
        let id = editor.new_session(&claude.work).await;
        assert_eq!(stop_reason(&editor, &id).await, "end_turn");
        open.push(id);
        if [1, 10, 50, sessions].contains(&n) {
            wait_for_claudes(&editor, n).await;
            sample(&editor, &format!("{n} sessions open"));
        }
    }
    for id in open.drain(..) {
        close(&editor, &id).await;
    }
    wait_for_claudes(&editor, 0).await;
    sample(&editor, &format!("all {sessions} closed"));
    for _ in 0..sessions {
        let id = editor.new_session(&claude.work).await;
        assert_eq!(stop_reason(&editor, &id).await, "end_turn");
        close(&editor, &id).await;
    }
    wait_for_claudes(&editor, 0).await;
    sample(&editor, &format!("{sessions} more opened, closed"));
    finish(editor).await;
}

/// One turn; its stop reason.
async fn stop_reason(editor: &AcpClient, session: &str) -> String {
    editor::stop_reason(editor, session, PROMPT).await
}

async fn close(editor: &AcpClient, session: &str) {
    let closed = editor
        .request("session/close", json!({"sessionId": session}))
        .await;
    closed.unwrap_or_else(|e| panic!("session/close: {e}\n{}", editor.diagnostics()));
}

/// Waits until the adapter runs `n` stand-in claudes.
async fn wait_for_claudes(editor: &AcpClient, n: usize) {
    wait_until(n, "claude processes", || claudes(editor)).await;
}

/// A wrapper script that runs the stand-in as claude, and the directory sessions work in.
struct StandIn {
    _dir: tempfile::TempDir,
    path: PathBuf,
    work: PathBuf,
}

impl StandIn {
    fn new() -> StandIn {
        let dir = tempfile::tempdir().expect("temp dir");
        let work = dir.path().join("work");
        std::fs::create_dir(&work).expect("work dir");
        let path = editor::standin_claude(dir.path(), "soak_turn.jsonl");
        StandIn {
            _dir: dir,
            path,
            work,
        }
    }

    async fn adapter(&self) -> AcpClient {
        editor::adapter(&self.path, "0", &self.work).await
    }
}

/// The adapter's children that are the stand-in (not its reaper process).
fn claudes(editor: &AcpClient) -> usize {
    let pid = editor.pid();
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter(|child| {
            let cmd = std::fs::read(format!("/proc/{child}/cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&cmd).contains("soak_turn.jsonl")
        })
        .count()
}

fn sample(editor: &AcpClient, checkpoint: &str) {
    let pid = editor.pid();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| -> u64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0);
    println!(
        "{checkpoint:<34} {:>9} {:>9} {fds:>5} {:>7} {:>8}",
        field("VmRSS:"),
        field("VmHWM:"),
        field("Threads:"),
        claudes(editor)
    );
}

/// Closes stdin and waits for the adapter to exit; says whether any claude outlived it.
async fn finish(editor: AcpClient) {
    let pid = editor.pid();
    let status = editor.quit(Duration::from_secs(60)).await;
    let orphans = orphans_of(pid);
    println!("  adapter exited ({status}); claude processes left behind: {orphans}");
}

/// Stand-in processes still running (the adapter `pid` itself is not one).
fn orphans_of(pid: u32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| *p != pid)
        .filter(|p| {
            let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
            let cmd = String::from_utf8_lossy(&cmd);
            cmd.contains("soak_turn.jsonl")
        })
        .count()
}
