//! claude-acp side by side with claude alone and with the TypeScript adapter, printed as a table
//! and written as JSON (`target/bench/compare.json`); figures are never asserted.
//!
//! Five backends in one run: the claude stand-in alone and claude-acp on it (the adapter's own
//! cost, with the stand-in answering at once); the pinned real claude against the mock API driven
//! directly over stream-json (the floor), through claude-acp, and through the TypeScript adapter
//! `@agentclientprotocol/claude-agent-acp` (pinned, installed into `target/`, with
//! `CLAUDE_CODE_EXECUTABLE` set to the same claude). Medians of `RUNS` runs, `FIRST_CHUNK_RUNS`
//! for the start-up and first-chunk figures.
//!
//! A sixth scenario attributes claude-acp's time on the real claude: the bench binary itself sits
//! between claude-acp and claude as a timestamping tap (`compare/tap.rs`, started with
//! `COMPARE_TAP_LOG` set) and each relay is measured on both sides with one clock.
//!
//! Run: `cargo bench --bench compare` (`COMPARE_QUICK=1` for fewer runs while developing;
//! `COMPARE_ONLY=attribution` for the attribution scenario alone). `cargo test --bench compare`
//! runs the checks of the attribution's arithmetic.

#[path = "compare/acp.rs"]
mod acp;
#[path = "compare/attributed.rs"]
mod attributed;
#[path = "compare/attribution.rs"]
mod attribution;
#[path = "compare/attribution_checks.rs"]
mod attribution_checks;
#[path = "compare/peer.rs"]
mod peer;
#[path = "compare/real.rs"]
mod real;
#[path = "compare/standin.rs"]
mod standin;
#[path = "compare/stored.rs"]
mod stored;
#[path = "compare/table.rs"]
mod table;
#[path = "compare/tap.rs"]
mod tap;

#[path = "compare/support.rs"]
mod support;

use std::path::Path;

use serde_json::json;

use acp::{Acp, ms};
use real::{Backend, first_delta_at};
use standin::{Claude, fixture, write_delta_script};
use table::Report;

const STANDIN: &str = "stand-in alone";
const OURS_STANDIN: &str = "claude-acp + stand-in";
const CLAUDE: &str = "claude alone";
const OURS: &str = "claude-acp + claude";
const TS: &str = "TS adapter + claude";

struct Runs {
    runs: usize,
    first_chunk: usize,
    turns: usize,
    sessions: usize,
    real_sessions: usize,
}

fn main() {
    // Started by claude-acp as its claude, with the tap's log named: be the tap, nothing else.
    if let Some(code) = tap::run_if_asked() {
        std::process::exit(code);
    }
    // `cargo bench` passes --bench; anything else (a test run of all targets) checks the
    // attribution's arithmetic and skips the work.
    if !std::env::args().any(|a| a == "--bench") {
        attribution_checks::run();
        println!("compare: run with `cargo bench --bench compare`");
        return;
    }
    let quick = std::env::var_os("COMPARE_QUICK").is_some();
    let runs = if quick {
        Runs {
            runs: 2,
            first_chunk: 3,
            turns: 100,
            sessions: 10,
            real_sessions: 3,
        }
    } else {
        Runs {
            runs: 5,
            first_chunk: 20,
            turns: 1000,
            sessions: 50,
            real_sessions: 5,
        }
    };
    // COMPARE_ONLY=part,part: only those parts ("main": the table's first rows, "standin": of
    // those, the stand-in's alone (the relay's CPU per delta among them), "stored": listing and
    // loading what claude stored, "editor-tools": the first prompt with and without the editor's
    // tools, "attribution").
    let only: Option<Vec<String>> = std::env::var("COMPARE_ONLY")
        .ok()
        .map(|v| v.split(',').map(|p| p.trim().to_owned()).collect());
    let wants = |part: &str| only.as_ref().is_none_or(|o| o.iter().any(|p| p == part));
    let load_before = load_average();
    let mut report = Report::default();
    if wants("main") || wants("standin") {
        standin_backends(&mut report, &runs);
        eprintln!("stand-in done (load {})", load_average());
    }
    if wants("main") {
        real_claude(&mut report, &runs);
        eprintln!("claude alone done (load {})", load_average());
        adapter_on_claude(&mut report, &runs, OURS);
        eprintln!("claude-acp done (load {})", load_average());
        adapter_on_claude(&mut report, &runs, TS);
        eprintln!("TS adapter done (load {})", load_average());
    }
    if wants("editor-tools") {
        stored::editor_tools(&mut report, runs.first_chunk);
        eprintln!("editor tools done (load {})", load_average());
    }
    if wants("stored") {
        stored::stored_work(&mut report, if quick { 1 } else { 3 });
        eprintln!("stored sessions done (load {})", load_average());
    }
    if wants("attribution") {
        attributed::run(&mut report, runs.first_chunk, runs.runs);
    }
    let load_after = load_average();
    report.note(format!(
        "load average (1 min) before: {load_before}; after: {load_after}"
    ));
    let machine = json!({
        "cpus": std::thread::available_parallelism().map_or(0, |n| n.get()),
        "cpu": cpu_model(),
        "load_before": load_before,
        "load_after": load_after,
        "claude": support::real_cli::CLAUDE_CODE_VERSION,
        "ts_adapter": real::TS_ADAPTER_VERSION,
        "quick": quick,
        "only": only,
    });
    println!("claude-acp compared ({machine})\n");
    report.print();
    let json = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench/compare.json");
    report.write_json(&json, machine);
    println!("\nwritten: {}", json.display());
}

/// claude-acp on the stand-in, and the stand-in alone: what the adapter itself costs.
fn standin_backends(report: &mut Report, runs: &Runs) {
    let scripts = tempfile::tempdir().expect("temp dir");
    let short = Claude::standin(&fixture("bench_short"));
    let command = || short.adapter_command();
    let ours = Acp {
        command: &command,
        cwd: short.work(),
    };
    cold_starts(report, &ours, "go", runs.first_chunk, OURS_STANDIN, None);
    warm_turns(report, &ours, "go", runs.first_chunk, OURS_STANDIN);
    let mut first = Vec::new();
    for _ in 0..runs.first_chunk {
        let mut direct = short.direct();
        let started = direct.peer.spawned_at;
        let (_, _, lines) = direct.turn("go");
        first.push(ms(first_delta_at(&lines).expect("a delta") - started));
    }
    report.add("spawn -> first chunk (whole way)", "ms", STANDIN, first);
    let mut direct = short.direct();
    let warm: Vec<_> = (0..runs.first_chunk + 2)
        .map(|_| direct.turn("go"))
        .skip(2)
        .collect();
    let first = warm
        .iter()
        .map(|(sent, _, l)| ms(first_delta_at(l).unwrap() - sent))
        .collect();
    let stop = warm
        .iter()
        .map(|(sent, result, _)| ms(result.at - sent))
        .collect();
    report.add("warm prompt -> first chunk", "ms", STANDIN, first);
    report.add("warm prompt -> stop reason", "ms", STANDIN, stop);
    drop(direct);

    for (deltas, label, n) in [
        (2000, "2,000-delta reply", runs.runs),
        (100_000, "100,000-delta stress", runs.runs.min(3)),
    ] {
        let script = write_delta_script(scripts.path(), deltas);
        let claude = Claude::standin(&script);
        let command = || claude.adapter_command();
        let ours = Acp {
            command: &command,
            cwd: claude.work(),
        };
        long_reply(report, &ours, "go", n, deltas, label, OURS_STANDIN);
        let mut direct = claude.direct();
        direct.turn("go");
        let wall = (0..n)
            .map(|_| {
                let (sent, r, _) = direct.turn("go");
                ms(r.at - sent)
            })
            .collect();
        report.add(&format!("{label} -> stop reason"), "ms", STANDIN, wall);
    }

    let (ten, end) = ours.long_session("go", runs.turns);
    report.add(
        "RSS after turn 10 of one session",
        "MiB",
        OURS_STANDIN,
        vec![mib(ten)],
    );
    report.add(
        &format!("RSS after turn {} of one session", runs.turns),
        "MiB",
        OURS_STANDIN,
        vec![mib(end)],
    );
    sessions(report, &ours, "go", runs.sessions, OURS_STANDIN);

    let big = Claude::standin(&fixture("big_tool_result"));
    let command = || big.adapter_command();
    let ours = Acp {
        command: &command,
        cwd: big.work(),
    };
    payload(
        report,
        &ours,
        "read big.log",
        runs.runs,
        "20 MiB tool result",
        OURS_STANDIN,
        &|| {},
    );
    let wall = (0..runs.runs)
        .map(|_| {
            let mut d = big.direct();
            let (sent, r, _) = d.turn("read big.log");
            ms(r.at - sent)
        })
        .collect();
    report.add(
        "20 MiB tool result: prompt -> stop reason",
        "ms",
        STANDIN,
        wall,
    );
}

/// The real claude alone over stream-json: the floor every adapter adds to.
fn real_claude(report: &mut Report, runs: &Runs) {
    let backend = Backend::start();
    let mut first = Vec::new();
    let mut stop = Vec::new();
    let mut requests = Vec::new();
    for _ in 0..runs.first_chunk {
        let before = backend.requests();
        let mut claude = backend.claude();
        let started = claude.peer.spawned_at;
        let (_, lines) = claude.turn(real::SHORT);
        first.push(ms(first_delta_at(&lines).expect("a text delta") - started));
        stop.push(ms(lines.last().unwrap().at - started));
        drop(claude);
        requests.push((backend.requests() - before) as f64);
    }
    report.add("spawn -> first chunk (whole way)", "ms", CLAUDE, first);
    report.add("spawn -> first stop reason (whole way)", "ms", CLAUDE, stop);
    report.add(
        "model requests per session (one prompt)",
        "requests",
        CLAUDE,
        requests,
    );
    let mut claude = backend.claude();
    let warm: Vec<_> = (0..runs.first_chunk + 2)
        .map(|_| claude.turn(real::SHORT))
        .skip(2)
        .collect();
    let first = warm
        .iter()
        .map(|(sent, l)| ms(first_delta_at(l).unwrap() - sent))
        .collect();
    let stop = warm
        .iter()
        .map(|(sent, l)| ms(l.last().unwrap().at - sent))
        .collect();
    report.add("warm prompt -> first chunk", "ms", CLAUDE, first);
    report.add("warm prompt -> stop reason", "ms", CLAUDE, stop);
    let long = (0..runs.runs)
        .map(|_| {
            let (sent, l) = claude.turn(real::LONG);
            ms(l.last().unwrap().at - sent)
        })
        .collect();
    report.add("2,000-delta reply -> stop reason", "ms", CLAUDE, long);
    let write = (0..runs.runs)
        .map(|_| {
            // Each run creates the file: an overwrite is another payload (claude's tool result
            // then holds the old file and the patch too).
            let _ = std::fs::remove_file(backend.written_file());
            let (sent, l) = claude.turn(real::WRITE);
            ms(l.last().unwrap().at - sent)
        })
        .collect();
    report.add(
        "10 MiB Write through a permission prompt: prompt -> stop reason",
        "ms",
        CLAUDE,
        write,
    );
    assert_eq!(
        std::fs::metadata(backend.written_file())
            .map(|m| m.len() as usize)
            .ok(),
        Some(real::WRITE_BYTES),
        "claude alone did not write the 10 MiB file"
    );
}

/// claude-acp or the TypeScript adapter on the real claude.
fn adapter_on_claude(report: &mut Report, runs: &Runs, column: &'static str) {
    let backend = Backend::start();
    let command = || {
        if column == TS {
            backend.ts_adapter()
        } else {
            backend.claude_acp()
        }
    };
    let adapter = Acp {
        command: &command,
        cwd: backend.env.work_dir(),
    };
    cold_starts(
        report,
        &adapter,
        real::SHORT,
        runs.first_chunk,
        column,
        Some(&backend),
    );
    warm_turns(report, &adapter, real::SHORT, runs.first_chunk, column);
    long_reply(
        report,
        &adapter,
        real::LONG,
        runs.runs,
        real::LONG_DELTAS,
        "2,000-delta reply",
        column,
    );
    sessions(report, &adapter, real::SHORT, runs.real_sessions, column);
    payload(
        report,
        &adapter,
        real::WRITE,
        runs.runs,
        "10 MiB Write through a permission prompt",
        column,
        // Each run creates the file, as for claude alone.
        &|| {
            let _ = std::fs::remove_file(backend.written_file());
        },
    );
    let written = std::fs::metadata(backend.written_file())
        .map(|m| m.len() as usize)
        .ok();
    if written != Some(real::WRITE_BYTES) {
        report.note(format!(
            "{column}: the 10 MiB Write left {written:?} bytes, not {}",
            real::WRITE_BYTES
        ));
    }
}

fn cold_starts(
    report: &mut Report,
    acp: &Acp,
    prompt: &str,
    runs: usize,
    column: &'static str,
    mock: Option<&Backend>,
) {
    let mut colds = Vec::new();
    let mut requests = Vec::new();
    for _ in 0..runs {
        let before = mock.map(Backend::requests);
        colds.push(acp.cold(prompt));
        if let (Some(backend), Some(before)) = (mock, before) {
            requests.push((backend.requests() - before) as f64);
        }
    }
    let pick = |f: fn(&acp::Cold) -> f64| colds.iter().map(f).collect::<Vec<_>>();
    report.add(
        "spawn -> initialize answered",
        "ms",
        column,
        pick(|c| c.initialize_ms),
    );
    report.add(
        "session/new answered",
        "ms",
        column,
        pick(|c| c.session_new_ms),
    );
    report.add(
        "spawn -> first chunk (whole way)",
        "ms",
        column,
        pick(|c| c.first_chunk_ms),
    );
    report.add(
        "spawn -> first stop reason (whole way)",
        "ms",
        column,
        pick(|c| c.stop_ms),
    );
    report.add(
        "peak RSS, one session, one prompt",
        "MiB",
        column,
        pick(|c| mib(c.peak_kib)),
    );
    if mock.is_some() {
        report.add(
            "model requests per session (one prompt)",
            "requests",
            column,
            requests,
        );
    }
}

fn warm_turns(report: &mut Report, acp: &Acp, prompt: &str, runs: usize, column: &'static str) {
    let turns = acp.warm(prompt, runs);
    report.add(
        "warm prompt -> first chunk",
        "ms",
        column,
        turns.iter().map(|t| t.first_chunk_ms).collect(),
    );
    report.add(
        "warm prompt -> stop reason",
        "ms",
        column,
        turns.iter().map(|t| t.stop_ms).collect(),
    );
}

fn long_reply(
    report: &mut Report,
    acp: &Acp,
    prompt: &str,
    runs: usize,
    deltas: usize,
    label: &str,
    column: &'static str,
) {
    let turns = acp.with_cpu(prompt, runs);
    let chunks = turns.iter().map(|(t, _)| t.chunks).min().unwrap_or(0);
    report.add(
        &format!("{label} -> stop reason"),
        "ms",
        column,
        turns.iter().map(|(t, _)| t.stop_ms).collect(),
    );
    let per_delta = turns
        .iter()
        .map(|(_, cpu)| cpu * 1000.0 / deltas as f64)
        .collect();
    report.add(
        &format!("{label}: adapter CPU per delta"),
        "us",
        column,
        per_delta,
    );
    if chunks != deltas {
        report.note(format!(
            "{column}, {label}: {chunks} agent_message_chunks for {deltas} deltas"
        ));
    }
}

fn sessions(report: &mut Report, acp: &Acp, prompt: &str, n: usize, column: &'static str) {
    let (one, many) = acp.many_sessions(prompt, n);
    report.add("RSS, one session open", "MiB", column, vec![mib(one)]);
    report.add(
        &format!("RSS, {n} sessions open"),
        "MiB",
        column,
        vec![mib(many)],
    );
    let per = (many as f64 - one as f64) / (n - 1) as f64;
    report.add("RSS per extra open session", "KiB", column, vec![per]);
}

fn payload(
    report: &mut Report,
    acp: &Acp,
    prompt: &str,
    runs: usize,
    label: &str,
    column: &'static str,
    before_each: &dyn Fn(),
) {
    let results: Vec<_> = (0..runs)
        .map(|_| {
            before_each();
            acp.payload(prompt)
        })
        .collect();
    report.add(
        &format!("{label}: prompt -> stop reason"),
        "ms",
        column,
        results.iter().map(|r| r.0).collect(),
    );
    report.add(
        &format!("{label}: RSS before the prompt"),
        "MiB",
        column,
        results.iter().map(|r| mib(r.1)).collect(),
    );
    report.add(
        &format!("{label}: peak RSS"),
        "MiB",
        column,
        results.iter().map(|r| mib(r.2)).collect(),
    );
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// The 1-minute load average: figures taken while other builds run are noisier.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_default()
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|m| m.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_default()
}
