//! The ACP scenarios, the same for every adapter (claude-acp on the stand-in or on claude, the
//! TypeScript adapter): a bench editor starts the adapter, opens sessions, prompts, and stamps
//! every answer and chunk as it arrives.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::peer::{Line, Peer};

/// How to start one adapter, and where its sessions live.
pub struct Acp<'a> {
    pub command: &'a dyn Fn() -> Command,
    pub cwd: PathBuf,
}

/// What one cold start gave: spawn -> `initialize` answered, `session/new` answered, spawn ->
/// first `agent_message_chunk`, the first prompt -> its first chunk, spawn -> the first prompt's
/// answer, and the adapter's peak RSS.
pub struct Cold {
    pub initialize_ms: f64,
    pub session_new_ms: f64,
    pub first_chunk_ms: f64,
    /// The first prompt sent -> its first chunk.
    pub prompt_to_first_chunk_ms: f64,
    pub stop_ms: f64,
    pub peak_kib: u64,
}

/// A prompt's timings: sent -> first chunk, sent -> answered; the updates it brought.
pub struct Turn {
    pub first_chunk_ms: f64,
    pub stop_ms: f64,
    pub chunks: usize,
}

impl Acp<'_> {
    pub fn spawn(&self) -> Peer {
        Peer::spawn((self.command)())
    }

    /// An adapter with one session open.
    pub fn open(&self) -> (Peer, String) {
        let mut adapter = self.spawn();
        adapter.request("initialize", initialize_params());
        let id = self.new_session(&mut adapter);
        (adapter, id)
    }

    pub fn new_session(&self, adapter: &mut Peer) -> String {
        let (_, answer, _) =
            adapter.request("session/new", json!({"cwd": self.cwd, "mcpServers": []}));
        answer.value["result"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("session/new without a sessionId: {}", answer.value))
            .to_owned()
    }

    /// Start, initialize, one session, one prompt; the adapter is closed (and has exited) after.
    pub fn cold(&self, prompt: &str) -> Cold {
        self.cold_with(prompt, initialize_params())
    }

    /// [`Acp::cold`] with these `initialize` params (the client's capabilities).
    pub fn cold_with(&self, prompt: &str, initialize: Value) -> Cold {
        self.cold_typed(prompt, initialize, Duration::ZERO)
    }

    /// [`Acp::cold_with`] with the first prompt sent `typing` after `session/new` is answered, as
    /// a user types it, so whatever the adapter starts at `session/new` has had that long.
    pub fn cold_typed(&self, prompt: &str, initialize: Value, typing: Duration) -> Cold {
        let mut adapter = self.spawn();
        let started = adapter.spawned_at;
        let (_, init, _) = adapter.request("initialize", initialize);
        let (sent, new, _) =
            adapter.request("session/new", json!({"cwd": self.cwd, "mcpServers": []}));
        let id = new.value["result"]["sessionId"]
            .as_str()
            .expect("sessionId")
            .to_owned();
        std::thread::sleep(typing);
        let turn = prompt_turn(&mut adapter, &id, prompt);
        let cold = Cold {
            initialize_ms: ms(init.at - started),
            session_new_ms: ms(new.at - sent),
            first_chunk_ms: ms(turn.1 - started),
            prompt_to_first_chunk_ms: ms(turn.1 - turn.0),
            stop_ms: ms(turn.2 - started),
            peak_kib: adapter.memory_kib().1,
        };
        drop(adapter);
        cold
    }

    /// `runs` prompts in one session after two to warm it up.
    pub fn warm(&self, prompt: &str, runs: usize) -> Vec<Turn> {
        let (mut adapter, id) = self.open();
        for _ in 0..2 {
            prompt_turn(&mut adapter, &id, prompt);
        }
        (0..runs)
            .map(|_| timed(&mut adapter, &id, prompt))
            .collect()
    }

    /// `runs` prompts in one session, with the adapter's CPU time (all threads) per turn in ms.
    pub fn with_cpu(&self, prompt: &str, runs: usize) -> Vec<(Turn, f64)> {
        let (mut adapter, id) = self.open();
        prompt_turn(&mut adapter, &id, prompt);
        (0..runs)
            .map(|_| {
                let cpu = adapter.cpu_ns();
                let turn = timed(&mut adapter, &id, prompt);
                (turn, ms(adapter.cpu_ns() - cpu))
            })
            .collect()
    }

    /// Resident memory (KiB) after turn 10 and after turn `turns` of one session.
    pub fn long_session(&self, prompt: &str, turns: usize) -> (u64, u64) {
        let (mut adapter, id) = self.open();
        let mut at_ten = 0;
        for turn in 1..=turns {
            prompt_turn(&mut adapter, &id, prompt);
            if turn == 10 {
                at_ten = adapter.memory_kib().0;
            }
        }
        (at_ten, adapter.memory_kib().0)
    }

    /// Resident memory (KiB) with one session and with `sessions`, each after one prompt.
    pub fn many_sessions(&self, prompt: &str, sessions: usize) -> (u64, u64) {
        let mut adapter = self.spawn();
        adapter.request("initialize", initialize_params());
        let mut one = 0;
        for n in 1..=sessions {
            let id = self.new_session(&mut adapter);
            prompt_turn(&mut adapter, &id, prompt);
            if n == 1 {
                one = adapter.memory_kib().0;
            }
        }
        (one, adapter.memory_kib().0)
    }

    /// One prompt in a fresh adapter: its time, the adapter's resident memory before it and its
    /// peak (KiB) over the whole run.
    pub fn payload(&self, prompt: &str) -> (f64, u64, u64) {
        let (mut adapter, id) = self.open();
        let before = adapter.memory_kib().0;
        let turn = timed(&mut adapter, &id, prompt);
        (turn.stop_ms, before, adapter.memory_kib().1)
    }
}

/// One prompt; returns (sent, first chunk arrival or answer time, answer time) and the lines.
fn prompt_turn(adapter: &mut Peer, id: &str, prompt: &str) -> (u64, u64, u64, Vec<Line>) {
    let (sent, answer, lines) = adapter.request("session/prompt", prompt_params(id, prompt));
    let stop = &answer.value["result"]["stopReason"];
    assert!(
        stop.is_string(),
        "prompt without a stop reason: {}",
        answer.value
    );
    let first = lines
        .iter()
        .find(|l| chunk_text(l).is_some())
        .map_or(answer.at, |l| l.at);
    (sent, first, answer.at, lines)
}

fn timed(adapter: &mut Peer, id: &str, prompt: &str) -> Turn {
    let (sent, first, stop, lines) = prompt_turn(adapter, id, prompt);
    Turn {
        first_chunk_ms: ms(first - sent),
        stop_ms: ms(stop - sent),
        chunks: lines.iter().filter(|l| chunk_text(l).is_some()).count(),
    }
}

/// ACP `initialize` params of an editor that serves files and terminals, as Zed does (the bench
/// editor serves `fs/*` from the disk, see `peer.rs`): the figures an editor user sees.
pub fn initialize_params() -> Value {
    json!({
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true},
        "clientInfo": {"name": "compare-bench", "version": "0.0.0"},
    })
}

/// ACP `initialize` params of an editor that serves neither files nor terminals.
pub fn initialize_params_without_tools() -> Value {
    json!({
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
        "clientInfo": {"name": "compare-bench", "version": "0.0.0"},
    })
}

pub fn prompt_params(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

/// The text of an `agent_message_chunk` update line.
pub fn chunk_text(line: &Line) -> Option<&str> {
    let update = &line.value["params"]["update"];
    (line.value["method"] == "session/update" && update["sessionUpdate"] == "agent_message_chunk")
        .then(|| update["content"]["text"].as_str())
        .flatten()
}

pub fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}
