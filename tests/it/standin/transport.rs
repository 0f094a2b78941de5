//! The editor-side transport under hostile input and a slow editor: a line that is not UTF-8, a
//! line over the 64 MiB cap, a line that never ends, a line nested too deep, a request of the
//! wrong shape, and an editor that stops reading while claude streams. In each case the adapter answers what it can, never holds more than it must,
//! and goes on.

#[cfg(target_os = "linux")]
use std::time::Duration;

#[cfg(target_os = "linux")]
use crate::support::procs::{blocked_writing_a_pipe, status_kib};
use crate::support::raw_editor::RawEditor;
use crate::support::standin::Standin;
use serde_json::json;

#[tokio::test]
async fn a_line_that_is_not_utf8_is_answered_and_the_session_goes_on() {
    let s = Standin::new("text");
    let mut editor = RawEditor::spawn(&s);
    editor.initialize().await;
    let session = editor.new_session(1, &s.work).await;

    let mut bad = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/prompt\",\"params\":{{\"sessionId\":\"{session}\",\"prompt\":[{{\"type\":\"text\",\"text\":\""
    )
    .into_bytes();
    bad.extend_from_slice(b"caf\xe9\"}]}}\n");
    editor.send(&bad).await;
    let answer = editor.answer(&json!(2)).await;
    assert_eq!(answer["error"]["code"], -32700, "{answer}");

    // The adapter is still there, and so is the session.
    editor.send_prompt(3, &session, "say hello").await;
    let answer = editor.answer(&json!(3)).await;
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
}

/// CodeCompanion's one-shot `:CodeCompanionChat <prompt>` can write `session/new` before the
/// answer to its `initialize` arrives: the session still opens, and so does one behind a repeated
/// `initialize` (editors that reconnect their chat send one).
#[tokio::test]
async fn a_session_new_sent_right_behind_initialize_opens_the_session() {
    let s = Standin::new("text");
    let mut editor = RawEditor::spawn(&s);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {}}});
    let new = |id: i64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "session/new",
        "params": {"cwd": s.work, "mcpServers": []}})
    };
    editor
        .send(format!("{init}\n{}\n", new(1)).as_bytes())
        .await;
    let first = editor.answer(&json!(1)).await;

    let mut again = init.clone();
    again["id"] = json!(2);
    editor
        .send(format!("{again}\n{}\n", new(3)).as_bytes())
        .await;
    let second = editor.answer(&json!(3)).await;
    let refused: Vec<_> = editor
        .seen
        .iter()
        .filter(|l| l.get("error").is_some())
        .collect();
    assert!(refused.is_empty(), "requests refused: {refused:?}");
    // Both sessions work (and their claudes are up before the adapter goes).
    for (id, opened) in [(4, first), (5, second)] {
        let session = opened["result"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {opened}"));
        editor.send_prompt(id, session, "say hello").await;
        let answer = editor.answer(&json!(id)).await;
        assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    }
}

#[tokio::test]
async fn lines_over_the_cap_are_refused_without_being_held_or_echoed() {
    let s = Standin::new("text");
    let mut editor = RawEditor::spawn(&s);
    editor.initialize().await;

    // 65 MiB in one request: answered -32600, id unknown, and the answer does not quote it.
    let filler = "A".repeat(65 << 20);
    let line = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"session/new\",\"params\":{{\"cwd\":\"{filler}\"}}}}\n"
    );
    drop(filler);
    editor.send(line.as_bytes()).await;
    drop(line);
    let answer = editor.next().await.expect("an answer");
    assert_eq!(
        answer["error"]["code"],
        -32600,
        "{:.300}",
        answer.to_string()
    );
    assert!(
        answer.to_string().len() < 1024,
        "no echo: {:.200}",
        answer.to_string()
    );

    // A line that never ends: 256 MiB and counting, answered once, never held.
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..256 {
        editor.send(&chunk).await;
    }
    let answer = editor.next().await.expect("an answer");
    assert_eq!(
        answer["error"]["code"],
        -32600,
        "{:.300}",
        answer.to_string()
    );
    // Its peak memory is read from /proc: checked on Linux.
    #[cfg(target_os = "linux")]
    {
        let peak_mib = status_kib(editor.pid(), "VmHWM") / 1024;
        assert!(
            peak_mib < 110,
            "the adapter held at most the 64 MiB cap plus a little, not {peak_mib} MiB"
        );
    }

    // The line ends; the next request is served.
    editor.send(b"\n").await;
    let session = editor.new_session(10, &s.work).await;
    assert!(!session.is_empty());
}

/// A stand-in script streaming `chunks` text deltas of `size` bytes each, numbered in order.
#[cfg(target_os = "linux")]
fn flood_script(dir: &std::path::Path, chunks: usize, size: usize) -> std::path::PathBuf {
    let template =
        std::fs::read_to_string(crate::support::standin::fixture("bench_stream")).unwrap();
    let lines: Vec<&str> = template.lines().collect();
    let is_delta = |l: &str| l.contains("\"text_delta\"") || l.contains("sleep_ms");
    let first = lines.iter().position(|l| is_delta(l)).unwrap();
    let last = lines.iter().rposition(|l| is_delta(l)).unwrap();
    let mut script: Vec<String> = lines[..first].iter().map(|l| l.to_string()).collect();
    let pad = "p".repeat(size);
    for i in 0..chunks {
        let delta = json!({"emit": {"type": "stream_event", "event": {"type": "content_block_delta",
            "index": 0, "delta": {"type": "text_delta", "text": format!("<c{i:06}>{pad}")}},
            "session_id": "${session_id}", "parent_tool_use_id": null, "uuid": format!("d{i}")}});
        script.push(delta.to_string());
    }
    script.extend(
        lines[last + 1..]
            .iter()
            .filter(|l| !l.contains("\"goto\""))
            .map(|l| l.to_string()),
    );
    let path = dir.join("flood.jsonl");
    std::fs::write(&path, script.join("\n")).unwrap();
    path
}

// Linux-only: that claude is blocked on its full pipe, and the adapter's memory, are read from /proc.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn an_editor_that_stops_reading_stops_claude_and_then_gets_every_chunk_in_order() {
    const CHUNKS: usize = 3000;
    let s = Standin::with_script(|dir| flood_script(dir, CHUNKS, 16 * 1024));
    let mut editor = RawEditor::spawn(&s);
    editor.initialize().await;
    let session = editor.new_session(1, &s.work).await;
    let standin = s.wait_started(1, Duration::from_secs(10)).await[0];
    editor.send_prompt(2, &session, "stream a lot").await;

    // The editor reads nothing: claude (48 MiB to send) must end up blocked on its full pipe.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !blocked_writing_a_pipe(standin) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "claude never had to wait: the adapter took everything (RSS {} MiB)",
            status_kib(editor.pid(), "VmRSS") / 1024
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let rss_mib = status_kib(editor.pid(), "VmRSS") / 1024;
    assert!(
        rss_mib < 40,
        "the adapter holds {rss_mib} MiB for a stalled editor"
    );

    // The editor reads again: every chunk, once, in order, then the end of the turn.
    let answer = editor.answer(&json!(2)).await;
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    let numbers: Vec<usize> = editor
        .seen
        .iter()
        .filter(|m| m["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|m| {
            m["params"]["update"]["content"]["text"]
                .as_str()
                .map(str::to_owned)
        })
        .filter_map(|t| t.strip_prefix("<c")?.get(..6)?.parse().ok())
        .collect();
    assert_eq!(numbers, (0..CHUNKS).collect::<Vec<_>>());
}

/// The next answer the adapter writes (its notifications and requests are passed over).
async fn next_answer(editor: &mut RawEditor) -> serde_json::Value {
    loop {
        let line = editor
            .next()
            .await
            .expect("an answer before the adapter exits");
        if line.get("method").is_none() {
            return line;
        }
    }
}

#[tokio::test]
async fn lines_nested_too_deep_are_refused_briefly_and_the_session_goes_on() {
    let s = Standin::new("text");
    let mut editor = RawEditor::spawn(&s);
    editor.initialize().await;
    let session = editor.new_session(1, &s.work).await;

    // 1 MB of brackets in a prompt (past the 64 KiB that once took another path), then 200
    // levels in a short line: each answered under its id, in a few hundred bytes.
    let depth = 500_000;
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/prompt\",\"params\":{{\"sessionId\":\"{session}\",\"prompt\":{}{}}}}}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let shallow = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/prompt\",\"params\":{{\"x\":{}{}}}}}\n",
        "[".repeat(200),
        "]".repeat(200)
    );
    for (id, line) in [(2, deep), (3, shallow)] {
        editor.send(line.as_bytes()).await;
        let answer = next_answer(&mut editor).await;
        let text = answer.to_string();
        assert!(
            text.len() < 512,
            "the answer quotes the line: {:.300}",
            text
        );
        assert_eq!(answer["id"], id, "{text}");
        assert_eq!(answer["error"]["code"], -32600, "{text}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("levels deep"), "{text}");
    }

    editor.send_prompt(4, &session, "say hello").await;
    let answer = editor.answer(&json!(4)).await;
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
}

#[tokio::test]
async fn a_request_of_the_wrong_shape_is_answered_under_its_id() {
    let s = Standin::new("text");
    let mut editor = RawEditor::spawn(&s);
    editor.initialize().await;
    let cases = [
        (
            json!({"jsonrpc": "1.0", "id": 5, "method": "session/new", "params": {"cwd": s.work, "mcpServers": []}}),
            "\"jsonrpc\" must be \"2.0\"",
        ),
        (
            json!({"jsonrpc": "2.0", "id": "six", "method": "session/new", "params": "a string"}),
            "\"params\" must be an object or an array",
        ),
    ];
    for (request, says) in cases {
        editor.send(format!("{request}\n").as_bytes()).await;
        let answer = next_answer(&mut editor).await;
        assert_eq!(answer["id"], request["id"], "{answer}");
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains(says)),
            "{answer}"
        );
    }
    // And the adapter goes on.
    editor.new_session(7, &s.work).await;
}
