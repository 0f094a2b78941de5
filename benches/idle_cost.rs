//! What idle sessions cost, printed (never asserted): total memory (VmRSS) of the adapter and its
//! claude processes with 1 active and 20 idle sessions, with idle stops (`--idle-timeout 1`) and
//! without (`0`); and the time from `session/prompt` to the first `agent_message_chunk` for a
//! session whose claude is running against one whose claude was stopped for being idle.
//!
//! claude is the stand-in (`fixtures/standin/resume.jsonl`) unless `IDLE_COST_CLAUDE` names
//! another executable (the real claude, logged in or pointed at an API by its environment). With
//! the stand-in, a claude process weighs what the stand-in does (a few MiB) and starts in a few
//! milliseconds: the figures then show the adapter's share and the process count; claude's own
//! weight and start-up come on top with the real CLI.
//!
//! Run: `cargo bench --bench idle_cost`.

#[path = "shared/editor.rs"]
mod editor;

use std::path::PathBuf;
use std::time::Duration;

use editor::{AcpClient, prompt_to_first_chunk, wait_until};

const IDLE: usize = 20;
const LATENCY_RUNS: usize = 15;

#[tokio::main]
async fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("idle_cost: run with `cargo bench --bench idle_cost`");
        return;
    }
    let claude = Claude::new();
    println!("claude-acp idle cost (claude: {})\n", claude.label);
    for timeout in ["0", "1"] {
        let m = memory_with_idle_sessions(&claude, timeout).await;
        println!(
            "--idle-timeout {timeout}: 1 active + {IDLE} idle sessions: {:.1} MiB in all; \
             claude-acp {:.1} MiB in {} processes (itself and its reaper), claude {:.1} MiB in {} \
             processes",
            (m.adapter_kib + m.claude_kib) as f64 / 1024.0,
            m.adapter_kib as f64 / 1024.0,
            m.adapter_processes,
            m.claude_kib as f64 / 1024.0,
            m.claude_processes
        );
    }
    let (running, stopped) = first_chunk_latency(&claude).await;
    println!(
        "\nprompt -> first chunk, median of {LATENCY_RUNS}: claude running {running:.1} ms; \
         claude stopped for being idle {stopped:.1} ms (start-up paid once)"
    );
}

/// The claude the adapter runs: a wrapper around the stand-in, or `IDLE_COST_CLAUDE`.
struct Claude {
    _dir: tempfile::TempDir,
    path: PathBuf,
    work: PathBuf,
    label: String,
}

impl Claude {
    fn new() -> Claude {
        let dir = tempfile::tempdir().expect("temp dir");
        let work = dir.path().join("work");
        std::fs::create_dir(&work).expect("work dir");
        if let Ok(real) = std::env::var("IDLE_COST_CLAUDE") {
            return Claude {
                path: real.clone().into(),
                _dir: dir,
                work,
                label: real,
            };
        }
        let path = editor::standin_claude(dir.path(), "resume.jsonl");
        Claude {
            _dir: dir,
            path,
            work,
            label: "the stand-in".into(),
        }
    }

    async fn adapter(&self, idle_timeout: &str) -> AcpClient {
        editor::adapter(&self.path, idle_timeout, &self.work).await
    }
}

/// One turn: ms from the prompt to its first chunk.
async fn prompt(editor: &AcpClient, session: &str) -> f64 {
    prompt_to_first_chunk(editor, session, "go").await
}

/// Waits until the adapter runs `n` claude processes.
async fn wait_for_claudes(editor: &AcpClient, n: usize) {
    wait_until(n, "claude processes", || claude_count(editor)).await;
}

/// The adapter and every process under it.
fn tree(editor: &AcpClient) -> Vec<u32> {
    let mut found = vec![editor.pid()];
    let mut at = 0;
    while at < found.len() {
        let parent = found[at];
        let children = std::fs::read_to_string(format!("/proc/{parent}/task/{parent}/children"))
            .unwrap_or_default();
        found.extend(
            children
                .split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok()),
        );
        at += 1;
    }
    found
}

/// The adapter's own processes: itself and its reaper (`claude-acp reaper`, which ends the
/// claude trees if the adapter is killed), as against the claudes it runs.
fn own_processes(editor: &AcpClient) -> Vec<u32> {
    let mut own = vec![editor.pid()];
    own.extend(tree(editor).into_iter().filter(|&pid| is_reaper(pid)));
    own
}

/// The claude processes under the adapter (and whatever they started).
fn claudes(editor: &AcpClient) -> Vec<u32> {
    let own = own_processes(editor);
    tree(editor)
        .into_iter()
        .filter(|pid| !own.contains(pid))
        .collect()
}

fn claude_count(editor: &AcpClient) -> usize {
    claudes(editor).len()
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// 20 sessions used once and left idle, then one more in use: total VmRSS and process count.
async fn memory_with_idle_sessions(claude: &Claude, idle_timeout: &str) -> Memory {
    let editor = claude.adapter(idle_timeout).await;
    for _ in 0..IDLE {
        let id = editor.new_session(&claude.work).await;
        prompt(&editor, &id).await;
    }
    if idle_timeout != "0" {
        wait_for_claudes(&editor, 0).await;
    }
    let active = editor.new_session(&claude.work).await;
    prompt(&editor, &active).await;
    let sum = |pids: &[u32]| pids.iter().map(|&pid| rss_kib(pid)).sum::<u64>();
    let (own, claudes) = (own_processes(&editor), claudes(&editor));
    Memory {
        adapter_kib: sum(&own),
        adapter_processes: own.len(),
        claude_kib: sum(&claudes),
        claude_processes: claudes.len(),
    }
}

/// Resident memory of the adapter (with its reaper) and of the claudes it runs.
struct Memory {
    adapter_kib: u64,
    adapter_processes: usize,
    claude_kib: u64,
    claude_processes: usize,
}

fn is_reaper(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|cmdline| cmdline.split(|b| *b == 0).nth(1) == Some(b"reaper".as_slice()))
        .unwrap_or(false)
}

/// Prompt -> first chunk, in a session whose claude runs and in one whose claude was stopped.
async fn first_chunk_latency(claude: &Claude) -> (f64, f64) {
    let mut running = Vec::new();
    let mut stopped = Vec::new();
    let editor = claude.adapter("1").await;
    for _ in 0..LATENCY_RUNS {
        // Running: claude was started by session/new and has answered its initialize.
        let id = editor.new_session(&claude.work).await;
        wait_for_claudes(&editor, 1).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        running.push(prompt(&editor, &id).await);
        wait_for_claudes(&editor, 0).await;
        // Stopped: a fresh session left until its claude is stopped, then prompted.
        let id = editor.new_session(&claude.work).await;
        wait_for_claudes(&editor, 0).await;
        stopped.push(prompt(&editor, &id).await);
        wait_for_claudes(&editor, 0).await;
    }
    (median(&mut running), median(&mut stopped))
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}
