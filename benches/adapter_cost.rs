//! The adapter's own cost, printed as a table (never asserted): start-up to `initialize` and
//! `session/new`, time added per turn, relay latency of streamed text, memory, and a 20 MiB tool
//! result. Drives the release `claude-acp` over stdio with the claude stand-in replaying
//! `fixtures/standin/bench_*.jsonl`; per-turn figures subtract the same turn driven directly
//! against the stand-in, so what remains is the adapter's share.
//!
//! Run: `cargo bench --bench adapter_cost`.

#[path = "adapter_cost/peer.rs"]
mod peer;
#[path = "adapter_cost/setup.rs"]
mod setup;
#[path = "adapter_cost/table.rs"]
mod table;

use peer::{Line, mono_ns};
use setup::{Claude, Direct, initialize_params, new_session, prompt_params};
use table::{Table, median};

const START_RUNS: usize = 30;
const WARMUP_TURNS: usize = 5;
const TURNS: usize = 500;
const STREAM_TURNS: usize = 10;
const BIG_RUNS: usize = 5;

fn main() {
    if let Ok(log) = std::env::var(setup::TAP_ENV) {
        setup::run_tap(&log);
        return;
    }
    // `cargo bench` passes --bench; anything else (a test run of all targets) skips the work.
    if !std::env::args().any(|a| a == "--bench") {
        println!("adapter_cost: run with `cargo bench --bench adapter_cost`");
        return;
    }
    println!("claude-acp adapter cost ({})", setup::ADAPTER);
    println!(
        "machine: {} CPUs; times in ms unless marked\n",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let mut table = Table::default();
    let load_before = load_average();
    startup(&mut table);
    memory(&mut table);
    per_turn(&mut table, "bench_short", 1);
    per_turn(&mut table, "bench_turn", 50);
    streaming(&mut table);
    big_tool_result(&mut table);
    table.print();
    println!(
        "\nload average before: {load_before}; after: {}",
        load_average()
    );
}

/// Process start → `initialize` answered, then `session/new` answered (claude spawn included).
fn startup(table: &mut Table) {
    let claude = Claude::standin("bench_turn");
    let mut initialize = Vec::new();
    let mut session = Vec::new();
    let mut first_turn = Vec::new();
    for _ in 0..START_RUNS {
        let started = mono_ns();
        let mut adapter = claude.adapter();
        let (_, answer, _) = adapter.request("initialize", initialize_params());
        initialize.push(ms(answer.at - started));
        let (sent, answer, _) = adapter.request(
            "session/new",
            serde_json::json!({"cwd": claude.work(), "mcpServers": []}),
        );
        session.push(ms(answer.at - sent));
        let id = answer.value["result"]["sessionId"]
            .as_str()
            .unwrap()
            .to_owned();
        let (sent, answer, _) = adapter.request("session/prompt", prompt_params(&id, "go"));
        first_turn.push(ms(answer.at - sent));
    }
    table.row("process start -> initialize answered", &initialize, "");
    table.row("session/new answered", &session, "claude spawn included");
    table.row(
        "first prompt of a new session",
        &first_turn,
        "waits for claude's start + init handshake",
    );
}

/// The same streamed turn through the adapter and straight to the stand-in, alternating turn by
/// turn so that load from other processes weighs on both alike.
fn per_turn(table: &mut Table, fixture: &str, deltas: usize) {
    let claude = Claude::standin(fixture);
    let mut adapter = claude.adapter();
    adapter.request("initialize", initialize_params());
    let id = new_session(&mut adapter, &claude.work());
    let mut direct = Direct::start(fixture);
    let mut via_adapter = Vec::new();
    let mut straight = Vec::new();
    let mut chunks = 0;
    let mut cpu_at_start = 0;
    for turn in 0..WARMUP_TURNS + TURNS {
        if turn == WARMUP_TURNS {
            cpu_at_start = adapter.cpu_ns();
        }
        let (sent, answer, updates) = adapter.request("session/prompt", prompt_params(&id, "go"));
        assert_eq!(answer.value["result"]["stopReason"], "end_turn");
        let (direct_sent, result, _) = direct.turn("go");
        if turn >= WARMUP_TURNS {
            via_adapter.push(ms(answer.at - sent));
            straight.push(ms(result.at - direct_sent));
            chunks += updates.iter().filter(|l| chunk_text(l).is_some()).count();
        }
        if turn + 1 == WARMUP_TURNS && deltas > 1 {
            table.memory(
                &format!("long session (50-delta turns), after {WARMUP_TURNS}"),
                adapter.memory_kib(),
            );
        }
    }
    let cpu_per_turn = us(adapter.cpu_ns() - cpu_at_start) / TURNS as f64;
    if deltas > 1 {
        let turns = WARMUP_TURNS + TURNS;
        table.memory(
            &format!("long session (50-delta turns), after {turns}"),
            adapter.memory_kib(),
        );
    }
    table.row(
        &format!("turn, {deltas} delta(s), straight to stand-in"),
        &straight,
        "baseline",
    );
    table.row(
        &format!("turn, {deltas} delta(s), through claude-acp"),
        &via_adapter,
        &format!("{} chunks/turn", chunks / TURNS),
    );
    table.difference(
        "  added per turn (adapter - baseline)",
        &via_adapter,
        &straight,
    );
    table.single(
        "  adapter CPU time per turn (us)",
        TURNS,
        cpu_per_turn,
        "all adapter threads; mean over the turns",
    );
}

/// Each of 20 deltas, 10 ms apart: from the tap handing it to the adapter to the editor having
/// the matching `agent_message_chunk`.
fn streaming(table: &mut Table) {
    let claude = Claude::tapped("bench_stream");
    let mut adapter = claude.adapter();
    adapter.request("initialize", initialize_params());
    let id = new_session(&mut adapter, &claude.work());
    let mut latencies = Vec::new();
    let mut unmatched = 0;
    let mut seen = 0;
    for _ in 0..STREAM_TURNS {
        let (_, answer, updates) = adapter.request("session/prompt", prompt_params(&id, "go"));
        let responded = answer.at;
        let arrivals: Vec<(String, u64)> = updates
            .iter()
            .filter_map(|l| Some((chunk_text(l)?.to_owned(), l.at)))
            .collect();
        let entries = claude.tap_entries();
        for (tapped, text) in &entries[seen..] {
            match arrivals.iter().find(|(t, _)| t == text) {
                Some((_, at)) if at < &responded => latencies.push(us(at - tapped)),
                _ => unmatched += 1,
            }
        }
        seen = entries.len();
    }
    let mut note = "10 ms between deltas".to_owned();
    if unmatched > 0 {
        note.push_str(&format!("; {unmatched} deltas not relayed one to one"));
    }
    table.row_us("delta -> agent_message_chunk (us)", &latencies, &note);
}

/// Adapter memory after start, one session with a turn, ten sessions with a turn each.
fn memory(table: &mut Table) {
    let claude = Claude::standin("bench_turn");
    let mut adapter = claude.adapter();
    adapter.request("initialize", initialize_params());
    table.memory("after initialize", adapter.memory_kib());
    for n in 1..=10 {
        let id = new_session(&mut adapter, &claude.work());
        adapter.request("session/prompt", prompt_params(&id, "go"));
        match n {
            1 => table.memory("after 1 session + 1 turn", adapter.memory_kib()),
            10 => table.memory("after 10 sessions + 1 turn each", adapter.memory_kib()),
            _ => {}
        }
    }
}

/// A turn whose tool result line is 20 MiB, through the adapter and straight.
fn big_tool_result(table: &mut Table) {
    let claude = Claude::standin("big_tool_result");
    let mut via_adapter = Vec::new();
    let mut straight = Vec::new();
    let mut high_water = (0, 0);
    let mut cpu = Vec::new();
    for _ in 0..BIG_RUNS {
        let mut adapter = claude.adapter();
        adapter.request("initialize", initialize_params());
        let id = new_session(&mut adapter, &claude.work());
        let (sent, answer, _) =
            adapter.request("session/prompt", prompt_params(&id, "read big.log"));
        via_adapter.push(ms(answer.at - sent));
        high_water = high_water.max(adapter.memory_kib());
        cpu.push(ms(adapter.cpu_ns()));
        drop(adapter);
        let mut direct = Direct::start("big_tool_result");
        let (sent, result, _) = direct.turn("read big.log");
        straight.push(ms(result.at - sent));
    }
    table.row(
        "20 MiB tool result turn, straight",
        &straight,
        "incl. 300 ms of script sleeps",
    );
    table.row(
        "20 MiB tool result turn, through claude-acp",
        &via_adapter,
        "",
    );
    let added = median(&via_adapter) - median(&straight);
    table.difference(
        "  added for 20 MiB (adapter - baseline)",
        &via_adapter,
        &straight,
    );
    table.row(
        "  adapter CPU time, whole 20 MiB run",
        &cpu,
        "start, session, the turn",
    );
    table.note(format!(
        "20 MiB relay throughput ~ {:.0} MiB/s; adapter VmHWM after it {:.1} MiB",
        20.0 / (added.max(0.001) / 1000.0),
        high_water.1 as f64 / 1024.0
    ));
}

/// The 1-minute load average: figures taken while other builds run are noisier.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_default()
}

/// The text of an `agent_message_chunk` update line.
fn chunk_text(line: &Line) -> Option<&str> {
    let update = &line.value["params"]["update"];
    (line.value["method"] == "session/update" && update["sessionUpdate"] == "agent_message_chunk")
        .then(|| update["content"]["text"].as_str())
        .flatten()
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

fn us(ns: u64) -> f64 {
    ns as f64 / 1e3
}
