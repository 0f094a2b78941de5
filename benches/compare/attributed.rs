//! The attribution scenario: claude-acp on the real claude with the tap between them (see
//! `tap.rs`), so each relay's time inside claude-acp is measured on both sides with one clock,
//! instead of subtracting two noisy totals. Cold starts, warm turns and the 2,000-delta reply;
//! the arithmetic is `attribution.rs`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::acp::{chunk_text, initialize_params, prompt_params};
use crate::attribution::{self, EditorTurn, Relays, TapTurn, quantile};
use crate::peer::{Line, Peer, mono_ns, schedstat};
use crate::real::{self, Backend};
use crate::support::real_cli::claude_binary;
use crate::table::Report;
use crate::tap::{self, Record};

const COLUMN: &str = "claude-acp + claude";

/// Adds the attribution rows: `cold` cold starts and warm turns, `long` 2,000-delta replies.
pub fn run(report: &mut Report, cold: usize, long: usize) {
    let backend = Backend::start();
    let logs = tempfile::tempdir().expect("temp dir for tap logs");
    let tap_load = tap_load(logs.path(), cold.max(5));
    report.add(
        "attribution: the tap's own load, subtracted",
        "ms",
        COLUMN,
        tap_load.iter().map(|ns| ms_i(*ns)).collect(),
    );
    let load = quantile(&tap_load, 0.5) as i64;
    let mut rows = Rows::new();
    let mut add = |measure, unit, value| push(&mut rows, measure, unit, value);
    // Run 0 is the first session ever with this claude (claude-acp's options cache is empty, so
    // its session/new waits for claude): a case of its own, not one of the cold starts.
    for run in 0..=cold {
        let log = logs.path().join(format!("cold-{run}.jsonl"));
        let mut editor = Peer::spawn(tapped(&backend, &log));
        let spawned = editor.spawned_at;
        editor.request("initialize", initialize_params());
        let (id, new_answered) = new_session(&mut editor, &backend);
        let turn = prompt(&mut editor, &id, real::SHORT);
        let (records, tap_turn) = wait_for_turns(&log, 1);
        drop(editor);
        let relays = check(attribution::relays(&tap_turn[0], &turn));
        let first_read = turn.chunks[0].0;
        let cold = check(attribution::cold_start(
            spawned,
            new_answered,
            first_read,
            &records,
            &relays,
            load,
        ));
        if run == 0 {
            add(
                "attribution, first session ever: claude started, relative to session/new answered",
                "ms",
                ms_i(cold.claude_vs_session_new),
            );
            add(
                "attribution, first session ever: claude ready and idle before the user line",
                "ms",
                ms_i(cold.idle_wait),
            );
            add(
                "attribution, first session ever: whole way, added by claude-acp",
                "ms",
                ms_i(cold.adapter_adds),
            );
            continue;
        }
        add(
            "attribution, cold: claude-acp spawned -> it starts claude",
            "ms",
            ms_i(cold.claude_started),
        );
        add(
            "attribution, cold: claude started, relative to session/new answered",
            "ms",
            ms_i(cold.claude_vs_session_new),
        );
        add(
            "attribution, cold: prompt relay (session/prompt -> user line to claude)",
            "ms",
            ms_i(relays.prompt),
        );
        add(
            "attribution, cold: claude ready and idle before the user line",
            "ms",
            ms_i(cold.idle_wait),
        );
        add(
            "attribution, cold: first-chunk relay (first text delta -> first chunk)",
            "ms",
            ms_i(relays.first_chunk),
        );
        add(
            "attribution, cold: stop relay (result -> prompt answered)",
            "ms",
            ms_i(relays.stop),
        );
        add(
            "attribution: whole way, added by claude-acp",
            "ms",
            ms_i(cold.adapter_adds),
        );
        add(
            "attribution: whole way, claude's own share",
            "ms",
            ms_i(cold.claude_share),
        );
    }
    let warm = turns(&backend, logs.path(), "warm", real::SHORT, 2, cold);
    for (_, r, _) in &warm {
        add("attribution, warm: prompt relay", "ms", ms_i(r.prompt));
        add(
            "attribution, warm: first-chunk relay",
            "ms",
            ms_i(r.first_chunk),
        );
        add("attribution, warm: stop relay", "ms", ms_i(r.stop));
        add(
            "attribution: warm turn to first chunk, added by claude-acp",
            "ms",
            ms_i(r.prompt + r.first_chunk),
        );
    }
    let long_turns = turns(&backend, logs.path(), "long", real::LONG, 1, long);
    if let Some(path) = std::env::var_os("COMPARE_ATTRIBUTION_DUMP") {
        let dump: Vec<_> = long_turns
            .iter()
            .map(|(t, r, _)| json!({"user_at": t.user_at, "delta_at": t.deltas.iter().map(|d| d.0).collect::<Vec<_>>(), "relay_ns": r.per_delta}))
            .collect();
        let _ = std::fs::write(path, json!(dump).to_string());
    }
    for (tap_turn, r, load) in &long_turns {
        add(
            "attribution, 2,000-delta reply: claude-acp runnable, waiting for a CPU",
            "ms",
            ms_i(load.adapter_waited),
        );
        add(
            "attribution, 2,000-delta reply: the tap's own CPU (it shares the cores)",
            "ms",
            ms_i(load.tap_cpu),
        );
        let reads = attribution::reads(&tap_turn.deltas);
        add(
            "attribution, 2,000-delta reply: claude's deltas per write, as the tap read them",
            "deltas",
            tap_turn.deltas.len() as f64 / reads.max(1) as f64,
        );
        add(
            "attribution, 2,000-delta reply: per-delta relay, median",
            "us",
            quantile(&r.per_delta, 0.5) / 1e3,
        );
        add(
            "attribution, 2,000-delta reply: per-delta relay, p99",
            "us",
            quantile(&r.per_delta, 0.99) / 1e3,
        );
        add(
            "attribution, 2,000-delta reply: stop relay",
            "ms",
            ms_i(r.stop),
        );
        add(
            "attribution: 2,000-delta reply, added by claude-acp",
            "ms",
            ms_i(r.prompt + r.stop),
        );
        add(
            "attribution: 2,000-delta reply, added by claude-acp, share of the turn",
            "%",
            100.0 * (r.prompt + r.stop) as f64 / r.turn as f64,
        );
        if r.per_delta.len() != real::LONG_DELTAS {
            report.note(format!(
                "attribution: {} of claude's text deltas in a 2,000-delta reply",
                r.per_delta.len()
            ));
        }
    }
    for (measure, unit, samples) in rows {
        report.add(measure, unit, COLUMN, samples);
    }
}

/// What else took CPU time during a turn.
#[derive(Clone, Copy)]
struct Load {
    /// claude-acp's threads runnable but waiting for a CPU, ns.
    adapter_waited: i64,
    /// The tap's own CPU time, ns.
    tap_cpu: i64,
}

/// The tap's pid, from its start record (written at once).
fn tap_pid(log: &Path) -> Option<u32> {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let start = tap::read_log(log)
            .into_iter()
            .find(|r| r.dir == Some(tap::Dir::Start));
        if let Some(start) = start {
            return Some(start.pid);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    None
}

/// claude-acp as the editor starts it, with the tap (this binary) as its claude.
fn tapped(backend: &Backend, log: &Path) -> Command {
    let mut command = backend.claude_acp();
    command
        .arg("--claude-path")
        .arg(std::env::current_exe().expect("the bench's own path"))
        .env(tap::LOG_VAR, log)
        .env(tap::CLAUDE_VAR, claude_binary());
    command
}

/// The tap's own time from exec to its `main` (spawn returned -> its start record), `runs` times,
/// on a claude that does nothing: what the tap adds before claude-acp's claude can start.
fn tap_load(dir: &Path, runs: usize) -> Vec<i64> {
    (0..runs)
        .map(|run| {
            let log = dir.join(format!("load-{run}.jsonl"));
            let mut child = Command::new(std::env::current_exe().expect("the bench's own path"))
                .env(tap::LOG_VAR, &log)
                .env(tap::CLAUDE_VAR, "true")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .expect("start the tap");
            let spawned = mono_ns();
            child.wait().expect("the tap exits");
            let start = tap::read_log(&log)
                .iter()
                .find(|r| r.dir == Some(tap::Dir::Start))
                .map(|r| r.at)
                .expect("the tap logged its start");
            start as i64 - spawned as i64
        })
        .collect()
}

/// One adapter, one session: `skip` prompts to warm it up, then `runs` timed ones.
fn turns(
    backend: &Backend,
    dir: &Path,
    name: &str,
    text: &str,
    skip: usize,
    runs: usize,
) -> Vec<(TapTurn, Relays, Load)> {
    let log = dir.join(format!("{name}.jsonl"));
    let mut editor = Peer::spawn(tapped(backend, &log));
    editor.request("initialize", initialize_params());
    let (id, _) = new_session(&mut editor, backend);
    let tap_pid = tap_pid(&log);
    let tap_cpu = || tap_pid.and_then(|pid| schedstat(pid, 0)).unwrap_or(0);
    let editor_turns: Vec<(EditorTurn, Load)> = (0..skip + runs)
        .map(|_| {
            let (waited, tapped) = (editor.cpu_wait_ns(), tap_cpu());
            let turn = prompt(&mut editor, &id, text);
            let load = Load {
                adapter_waited: (editor.cpu_wait_ns() - waited) as i64,
                tap_cpu: tap_cpu().saturating_sub(tapped) as i64,
            };
            (turn, load)
        })
        .collect();
    let (_, tap_turns) = wait_for_turns(&log, skip + runs);
    drop(editor);
    tap_turns
        .iter()
        .zip(&editor_turns)
        .skip(skip)
        .map(|(tap, (editor, load))| {
            let relays = check(attribution::relays(tap, editor));
            (tap.clone(), relays, *load)
        })
        .collect()
}

fn new_session(editor: &mut Peer, backend: &Backend) -> (String, u64) {
    let cwd: PathBuf = backend.env.work_dir();
    let (_, answer, _) = editor.request("session/new", json!({"cwd": cwd, "mcpServers": []}));
    let id = answer.value["result"]["sessionId"]
        .as_str()
        .expect("sessionId")
        .to_owned();
    (id, answer.at)
}

fn prompt(editor: &mut Peer, id: &str, text: &str) -> EditorTurn {
    let (sent, answer, lines) = editor.request("session/prompt", prompt_params(id, text));
    EditorTurn {
        sent,
        chunks: lines
            .iter()
            .filter_map(|l: &Line| chunk_text(l).map(|t| (l.at, t.to_owned())))
            .collect(),
        answered: answer.at,
    }
}

/// The tap's records once `turns` turns are complete in its log (its log thread writes a line
/// after passing it on, so the last `result` may land just after the editor read the answer).
fn wait_for_turns(log: &Path, turns: usize) -> (Vec<Record>, Vec<attribution::TapTurn>) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let records = tap::read_log(log);
        let found = attribution::tap_turns(&records);
        if found.len() >= turns {
            return (records, found);
        }
        assert!(
            Instant::now() < deadline,
            "the tap logged {} of {turns} turns in {}",
            found.len(),
            log.display()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn check<T>(result: Result<T, String>) -> T {
    result.unwrap_or_else(|e| panic!("attribution: {e}"))
}

/// Signed ns as ms (a line can pass before the editor's own stamp of its cause).
fn ms_i(ns: i64) -> f64 {
    ns as f64 / 1e6
}

/// Adds `value` to `measure`'s samples; rows keep first-seen order.
fn push(rows: &mut Rows, measure: &'static str, unit: &'static str, value: f64) {
    match rows.iter_mut().find(|r| r.0 == measure) {
        Some(row) => row.2.push(value),
        None => rows.push((measure, unit, vec![value])),
    }
}

type Rows = Vec<(&'static str, &'static str, Vec<f64>)>;
