//! The fuzz bodies over the seeds `fuzz/seed_corpus.py` derives from `fixtures/`, and over
//! deterministic mutations of them: the fuzz targets' checks run in every `cargo test`, and each
//! input a fuzzer found that once broke one is kept here as a regression test.

use std::path::Path;

use serde_json::Value;

use super::{claude_stdout, editor_stdin};

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures"))
}

/// claude's stdout of every captured run (`fixtures/transcripts`), and the lines the stand-in
/// scripts print (`fixtures/standin`), one seed per file.
fn claude_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(fixtures().join("transcripts"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for file in files {
        let mut runs: std::collections::BTreeMap<i64, Vec<u8>> = Default::default();
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            let record: Value = serde_json::from_str(line).unwrap();
            if record["dir"] != "claude->client" {
                continue;
            }
            let run = runs.entry(record["run"].as_i64().unwrap_or(0)).or_default();
            run.extend_from_slice(record["msg"].to_string().as_bytes());
            run.push(b'\n');
        }
        seeds.extend(runs.into_values());
    }
    let mut files: Vec<_> = std::fs::read_dir(fixtures().join("standin"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    for file in files {
        let mut seed = Vec::new();
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            let Ok(step) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if let Some(emit) = step.get("emit") {
                seed.extend_from_slice(emit.to_string().as_bytes());
            } else if let Some(raw) = step.get("emit_raw").and_then(Value::as_str) {
                seed.extend_from_slice(raw.as_bytes());
            } else {
                continue;
            }
            seed.push(b'\n');
        }
        if !seed.is_empty() {
            seeds.push(seed);
        }
    }
    seeds
}

/// `fixtures/editor_lines.jsonl` (every method the adapter handles, in the shapes the tests use):
/// the whole file as one session, and `initialize` followed by each other line.
fn editor_seeds() -> Vec<Vec<u8>> {
    let text = std::fs::read_to_string(fixtures().join("editor_lines.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut seeds = vec![text.clone().into_bytes()];
    seeds.extend(
        lines[1..]
            .iter()
            .map(|line| format!("{}\n{line}\n", lines[0]).into_bytes()),
    );
    seeds
}

/// xorshift64: the same mutations on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutation of `seed`, of the kinds that broke parsers before: a flipped byte, a cut, a
/// value swapped for `null` or another type, a line repeated or dropped, an invalid byte.
fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = seed.to_vec();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(out.len());
        match rng.below(7) {
            0 if !out.is_empty() => out[at] ^= 1 << rng.below(8),
            1 => out.truncate(at),
            2 => {
                let swap: &[&[u8]] = &[b"null", b"[]", b"{}", b"-1", b"\"\"", b"1e999", b"\xff"];
                let with = swap[rng.below(swap.len())];
                let end = (at + 1 + rng.below(12)).min(out.len());
                out.splice(at..end, with.iter().copied());
            }
            3 => {
                let lines: Vec<&[u8]> = seed.split(|b| *b == b'\n').collect();
                let line = lines[rng.below(lines.len())];
                out.splice(at..at, line.iter().chain(b"\n").copied());
            }
            4 => {
                let end = (at + rng.below(200)).min(out.len());
                out.drain(at..end);
            }
            5 => out.insert(at.min(out.len()), [b'\n', b'"', b'{', 0xc3][rng.below(4)]),
            _ => out.extend_from_slice(b"\n{\"type\":\"result\""),
        }
    }
    out
}

#[test]
fn claudes_stdout_seeds_and_their_mutations_keep_every_promise() {
    let seeds = claude_seeds();
    assert!(seeds.len() > 40, "{} seeds", seeds.len());
    let mut rng = Rng(0x5eed_c1a0de);
    for seed in &seeds {
        claude_stdout(seed);
        for _ in 0..40 {
            claude_stdout(&mutate(seed, &mut rng));
        }
    }
}

#[test]
fn editor_seeds_and_their_mutations_keep_every_promise() {
    let seeds = editor_seeds();
    let mut rng = Rng(0x5eed_ed170e);
    for seed in &seeds {
        editor_stdin(seed);
        for _ in 0..30 {
            editor_stdin(&mutate(seed, &mut rng));
        }
    }
}

/// Found by `cargo fuzz run editor_stdin` (Dec 3): a request id sent twice, once on a line that is
/// not UTF-8 (answered -32700 under its id) and once well-formed (answered "method not found"), is
/// rightly answered twice; the check counted only the well-formed line.
#[test]
fn an_id_sent_on_a_non_utf8_line_and_again_is_answered_once_for_each() {
    let mut bytes =
        b"{\"json\xf0pc\":\"2.0\",\"id\":13,\"method\":\"no/such\",\"params\":{}}\n".to_vec();
    bytes.extend_from_slice(
        b"{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"no/such\",\"params\":{}}\n",
    );
    editor_stdin(&bytes);
}
