//! Work that grows with what claude has stored: `session/list` over stores of 100, 1,000 and
//! 3,000 sessions, and `session/load` / `session/resume` of one long conversation (10,000
//! messages, about 50 MB, built by `scripts/long_transcript.py` from lines claude wrote), for
//! claude-acp and the TypeScript adapter on the real claude.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::acp::{self, Acp, initialize_params, ms};
use crate::peer::Peer;
use crate::real::Backend;
use crate::table::Report;
use crate::{OURS, TS, real};

/// The store sizes listed.
pub const STORE_SIZES: [usize; 3] = [100, 1000, 3000];

/// The two captured 180 KB sessions every stored session is a copy of (new id, same lines).
const FIXTURE_DIR: &str = "fixtures/history/projects/-tmp-claude-acp-test-LjGcc3-work";
const FIXTURE_CWD: &str = "/tmp/claude-acp-test-LjGcc3/work";

/// Where claude keeps the sessions of `cwd` under `home`.
fn project_dir(home: &Path, cwd: &Path) -> PathBuf {
    home.join(".claude/projects")
        .join(claude_acp::history::project_slug(cwd))
}

/// Fills the store of `cwd` with `n` sessions, one second apart, replacing what was there.
fn fill_store(home: &Path, cwd: &Path, n: usize) {
    let dir = project_dir(home, cwd);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("project dir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE_DIR);
    let mut fixtures: Vec<(String, String)> = std::fs::read_dir(&root)
        .expect("fixture sessions")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| {
            let id = p.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).expect("fixture transcript");
            (id, text.replace(FIXTURE_CWD, &cwd.display().to_string()))
        })
        .collect();
    fixtures.sort();
    let base = SystemTime::now() - Duration::from_secs(n as u64 + 60);
    for i in 0..n {
        let (old_id, text) = &fixtures[i % fixtures.len()];
        let id = uuid::Uuid::new_v4().to_string();
        let file = dir.join(format!("{id}.jsonl"));
        std::fs::write(&file, text.replace(old_id.as_str(), &id)).expect("write session");
        std::fs::File::options()
            .write(true)
            .open(&file)
            .and_then(|f| f.set_modified(base + Duration::from_secs(i as u64)))
            .expect("set mtime");
    }
}

/// `session/list` for the backend's cwd: first page, and every page (their number, sessions).
fn list_all(adapter: &mut Peer, cwd: &Path) -> (f64, f64, usize, usize) {
    let mut cursor: Option<String> = None;
    let (mut pages, mut sessions) = (0, 0);
    let mut first = 0.0;
    let start = crate::peer::mono_ns();
    loop {
        let mut params = json!({"cwd": cwd});
        if let Some(cursor) = &cursor {
            params["cursor"] = json!(cursor);
        }
        let (sent, answer, _) = adapter.request("session/list", params);
        if pages == 0 {
            first = ms(answer.at - sent);
        }
        pages += 1;
        let result = &answer.value["result"];
        sessions += result["sessions"].as_array().map_or(0, Vec::len);
        match result["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    (first, ms(crate::peer::mono_ns() - start), pages, sessions)
}

/// The listing rows for one adapter.
pub fn listing(
    report: &mut Report,
    backend: &Backend,
    adapter: &dyn Fn() -> Command,
    column: &'static str,
    runs: usize,
) {
    let cwd = backend.env.work_dir();
    for n in STORE_SIZES {
        fill_store(&backend.env.home_dir(), &cwd, n);
        let mut first = Vec::new();
        let mut all = Vec::new();
        let mut later = Vec::new();
        for _ in 0..runs {
            let mut peer = Peer::spawn(adapter());
            peer.request("initialize", initialize_params());
            let (f, whole, pages, sessions) = list_all(&mut peer, &cwd);
            if sessions != n {
                report.note(format!(
                    "{column}: session/list of {n} stored sessions gave {sessions} in {pages} pages"
                ));
            }
            first.push(f);
            all.push(whole);
            if pages > 1 {
                later.push((whole - f) / (pages - 1) as f64);
            }
        }
        let label = |what: &str| format!("session/list, {n} stored sessions: {what}");
        report.add(&label("first page"), "ms", column, first);
        report.add(&label("every page"), "ms", column, all);
        if !later.is_empty() {
            report.add(&label("each page after the first"), "ms", column, later);
        }
    }
    let _ = std::fs::remove_dir_all(project_dir(&backend.env.home_dir(), &cwd));
}

/// What the long transcript is.
pub struct LongTranscript {
    pub session_id: String,
    pub bytes: u64,
    pub longest_line: u64,
}

/// Writes the long transcript into the backend's store.
pub fn long_transcript(backend: &Backend) -> LongTranscript {
    let cwd = backend.env.work_dir();
    let dir = project_dir(&backend.env.home_dir(), &cwd);
    std::fs::create_dir_all(&dir).expect("project dir");
    let session_id = uuid::Uuid::new_v4().to_string();
    let out = dir.join(format!("{session_id}.jsonl"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/long_transcript.py");
    let output = Command::new("python3")
        .arg(script)
        .arg("--out")
        .arg(&out)
        .args(["--session-id", &session_id])
        .arg("--cwd")
        .arg(&cwd)
        .output()
        .expect("run scripts/long_transcript.py");
    assert!(
        output.status.success(),
        "long_transcript.py failed: {output:?}"
    );
    let info: Value = serde_json::from_slice(&output.stdout).expect("the script's JSON");
    LongTranscript {
        session_id,
        bytes: info["bytes"].as_u64().unwrap_or(0),
        longest_line: info["longest_line"].as_u64().unwrap_or(0),
    }
}

/// `session/load` and `session/resume` of the long transcript in a fresh adapter each: request ->
/// answer, the updates it sent, the adapter's RSS before and its peak.
pub fn long_history(
    report: &mut Report,
    acp: &Acp,
    long: &LongTranscript,
    column: &'static str,
    runs: usize,
) {
    // The first session in this environment: claude-acp has no options cache yet, so its answer
    // waits for claude's models (once per machine and claude version). A row of its own; the
    // runs after it are what every later load costs.
    let params = json!({"sessionId": long.session_id, "cwd": acp.cwd, "mcpServers": []});
    let mut peer = acp.spawn();
    peer.request("initialize", initialize_params());
    match peer.try_request("session/load", params) {
        Ok((sent, answer, _)) => report.add(
            "session/load of a long conversation, the first session ever: request -> answer",
            "ms",
            column,
            vec![ms(answer.at - sent)],
        ),
        Err(error) => report.note(format!("{column}: the first session/load failed: {error}")),
    }
    drop(peer);
    for method in ["session/load", "session/resume"] {
        let mut times = Vec::new();
        let mut before = Vec::new();
        let mut peaks = Vec::new();
        let mut updates = Vec::new();
        for _ in 0..runs {
            let mut peer = acp.spawn();
            peer.request("initialize", initialize_params());
            let rss = peer.memory_kib().0;
            let params = json!({"sessionId": long.session_id, "cwd": acp.cwd, "mcpServers": []});
            match peer.try_request(method, params) {
                Ok((sent, answer, lines)) => {
                    times.push(ms(answer.at - sent));
                    updates.push(
                        lines
                            .iter()
                            .filter(|l| l.value["method"] == "session/update")
                            .count() as f64,
                    );
                    before.push(rss as f64 / 1024.0);
                    peaks.push(peer.memory_kib().1 as f64 / 1024.0);
                }
                Err(error) => {
                    report.note(format!("{column}: {method} failed: {error}"));
                    break;
                }
            }
        }
        if times.is_empty() {
            continue;
        }
        let label = |what: &str| format!("{method} of a long conversation: {what}");
        report.add(&label("request -> answer"), "ms", column, times);
        report.add(&label("session updates sent"), "updates", column, updates);
        report.add(&label("RSS before"), "MiB", column, before);
        report.add(&label("peak RSS"), "MiB", column, peaks);
    }
    report.note(format!(
        "long conversation: 10,000 messages, {:.1} MB, longest line {:.2} MiB",
        long.bytes as f64 / 1e6,
        long.longest_line as f64 / 1048576.0
    ));
}

/// How long a user takes to type the first prompt, in the rows that send it that long after
/// `session/new`: what the adapter starts with the session (claude, and its handshake with the
/// editor tools' server) has had that long, as it has in an editor.
const TYPING: Duration = Duration::from_secs(2);

/// The first prompt of a cold start with the editor's tools declared (`fs` and `terminal`, as
/// Zed does: the default client here) and without them, each adapter on the real claude, the
/// two interleaved run by run: sent at once after `session/new` (spawn -> first chunk), and sent
/// [`TYPING`] after it (prompt -> first chunk).
pub fn editor_tools(report: &mut Report, runs: usize) {
    let backend = Backend::start();
    for column in [OURS, TS] {
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
        let (mut with, mut without) = (Vec::new(), Vec::new());
        let (mut typed_with, mut typed_without) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            with.push(
                adapter
                    .cold_with(real::SHORT, acp::initialize_params())
                    .first_chunk_ms,
            );
            without.push(
                adapter
                    .cold_with(real::SHORT, acp::initialize_params_without_tools())
                    .first_chunk_ms,
            );
            typed_with.push(
                adapter
                    .cold_typed(real::SHORT, acp::initialize_params(), TYPING)
                    .prompt_to_first_chunk_ms,
            );
            typed_without.push(
                adapter
                    .cold_typed(real::SHORT, acp::initialize_params_without_tools(), TYPING)
                    .prompt_to_first_chunk_ms,
            );
        }
        report.add(
            "first prompt typed 2 s after session/new: prompt -> first chunk, declaring fs and terminal",
            "ms",
            column,
            typed_with,
        );
        report.add(
            "first prompt typed 2 s after session/new: prompt -> first chunk, declaring neither",
            "ms",
            column,
            typed_without,
        );
        report.add(
            "spawn -> first chunk, client declaring fs and terminal",
            "ms",
            column,
            with,
        );
        report.add(
            "spawn -> first chunk, client declaring neither",
            "ms",
            column,
            without,
        );
    }
}

/// `session/list` over stores of 100, 1,000 and 3,000 sessions and the load and resume of a long
/// conversation, for claude-acp and the TypeScript adapter on the real claude.
pub fn stored_work(report: &mut Report, runs: usize) {
    let backend = Backend::start();
    for column in [OURS, TS] {
        let command = || {
            if column == TS {
                backend.ts_adapter()
            } else {
                backend.claude_acp()
            }
        };
        listing(report, &backend, &command, column, runs);
        eprintln!("{column}: listing done");
    }
    let long = long_transcript(&backend);
    for column in [OURS, TS] {
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
        long_history(report, &adapter, &long, column, runs);
        eprintln!("{column}: long conversation done");
    }
}
