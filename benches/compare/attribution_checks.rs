//! Checks of the attribution's arithmetic, run by `cargo test --bench compare` (the bench has no
//! test harness: `main` runs these when it is not benchmarking). A broken match of tap lines to
//! editor chunks, or a wrong sum, panics here.

use crate::attribution::{
    EditorTurn, Relays, TapTurn, cold_start, match_deltas, quantile, reads, relays, tap_turns,
};
use crate::tap::{Dir, Record, read_log, write_log};

/// Runs every check; panics at the first that fails.
pub fn run() {
    let checks: [(&str, fn()); 8] = [
        ("the tap's log reads back what passed", log_round_trip),
        ("tap lines split into turns", turns_split_on_user_and_result),
        ("deltas match chunks one to one", deltas_match_one_to_one),
        (
            "joined deltas share their chunk's time",
            joined_deltas_share_a_chunk,
        ),
        (
            "a chunk that is not claude's text is refused",
            mismatches_are_refused,
        ),
        ("relays of a turn", relays_of_a_turn),
        (
            "cold start: what is on the critical path",
            cold_start_critical_path,
        ),
        ("quantiles and reads", quantiles),
    ];
    for (name, check) in checks {
        check();
        println!("attribution check ok: {name}");
    }
}

fn line(dir: Dir, at: u64, kind: &str) -> Record {
    Record {
        dir: Some(dir),
        at,
        kind: Some(kind.to_owned()),
        ..Record::default()
    }
}

fn delta(at: u64, text: &str) -> Record {
    Record {
        event: Some("content_block_delta".into()),
        text: Some(text.into()),
        ..line(Dir::FromClaude, at, "stream_event")
    }
}

fn texts(items: &[(u64, &str)]) -> Vec<(u64, String)> {
    items.iter().map(|(at, t)| (*at, (*t).to_owned())).collect()
}

fn turns_split_on_user_and_result() {
    let records = vec![
        delta(5, "before any prompt"),
        line(Dir::ToClaude, 10, "user"),
        delta(30, "a"),
        // Logged out of order (two threads log): sorted by time.
        delta(20, "b"),
        line(Dir::FromClaude, 40, "result"),
        line(Dir::ToClaude, 50, "user"),
        line(Dir::FromClaude, 55, "assistant"),
        delta(60, "c"),
        line(Dir::FromClaude, 70, "result"),
        line(Dir::ToClaude, 80, "user"),
        delta(90, "unfinished"),
    ];
    let turns = tap_turns(&records);
    assert_eq!(
        turns,
        vec![
            TapTurn {
                user_at: 10,
                deltas: texts(&[(20, "b"), (30, "a")]),
                result_at: 40
            },
            TapTurn {
                user_at: 50,
                deltas: texts(&[(60, "c")]),
                result_at: 70
            },
        ]
    );
}

fn deltas_match_one_to_one() {
    let deltas = texts(&[(100, "Hel"), (200, "lo"), (300, "!")]);
    let chunks = texts(&[(150, "Hel"), (260, "lo"), (301, "!")]);
    assert_eq!(match_deltas(&deltas, &chunks), Ok(vec![50, 60, 1]));
}

fn joined_deltas_share_a_chunk() {
    let deltas = texts(&[(100, "Hel"), (200, "lo"), (300, "!")]);
    let chunks = texts(&[(250, "Hello"), (310, "!")]);
    assert_eq!(match_deltas(&deltas, &chunks), Ok(vec![150, 50, 10]));
}

fn mismatches_are_refused() {
    let deltas = texts(&[(100, "Hel"), (200, "lo")]);
    for chunks in [
        texts(&[(150, "Hel"), (250, "LO")]),
        texts(&[(150, "Hel")]),
        texts(&[(150, "Hel"), (250, "lo"), (260, "more")]),
        texts(&[(250, "lo"), (150, "Hel")]),
    ] {
        assert!(
            match_deltas(&deltas, &chunks).is_err(),
            "matched {chunks:?} to {deltas:?}"
        );
    }
}

fn relays_of_a_turn() {
    let tap = TapTurn {
        user_at: 1_000,
        deltas: texts(&[(5_000, "a"), (6_000, "b")]),
        result_at: 7_000,
    };
    let editor = EditorTurn {
        sent: 900,
        chunks: texts(&[(5_040, "a"), (6_070, "b")]),
        answered: 7_100,
    };
    assert_eq!(
        relays(&tap, &editor),
        Ok(Relays {
            prompt: 100,
            first_chunk: 40,
            stop: 100,
            per_delta: vec![40, 70],
            turn: 6_200,
        })
    );
}

fn cold_start_critical_path() {
    let relays = Relays {
        prompt: 100,
        first_chunk: 40,
        stop: 100,
        per_delta: vec![40],
        turn: 10_000,
    };
    let ask = Record {
        request_id: Some("init".into()),
        ..line(Dir::ToClaude, 1_100, "control_request")
    };
    let answer = |at| Record {
        request_id: Some("init".into()),
        ..line(Dir::FromClaude, at, "control_response")
    };
    // The editor spawned claude-acp at 0; the tap began at 1,000 (it takes 200 to load) and its
    // claude at 1,050; session/new was answered at 2,000; the user line reached the tap at 3,000.
    let mut records = vec![
        line(Dir::Start, 1_000, ""),
        line(Dir::Spawned, 1_050, ""),
        ask,
        line(Dir::ToClaude, 3_000, "user"),
    ];
    // claude still starting when the user line came (ready at 9,000): no idle wait.
    records.push(answer(9_000));
    let late = cold_start(0, 2_000, 20_000, &records, &relays, 200).unwrap();
    assert_eq!(late.claude_started, 800);
    assert_eq!(late.claude_vs_session_new, -950);
    assert_eq!(late.idle_wait, 0);
    assert_eq!(late.adapter_adds, 840);
    assert_eq!(late.claude_share, 20_000 - 840);
    // claude ready at 2,500 and idle until the user line at 3,000: that wait is claude-acp's.
    records.pop();
    records.push(answer(2_500));
    let waited = cold_start(0, 2_000, 20_000, &records, &relays, 200).unwrap();
    assert_eq!(waited.idle_wait, 500);
    assert_eq!(waited.adapter_adds, 1_340);
    // An answer to another request does not count as claude being ready.
    records.pop();
    records.push(Record {
        request_id: Some("other".into()),
        ..answer(2_500)
    });
    let other = cold_start(0, 2_000, 20_000, &records, &relays, 200).unwrap();
    assert_eq!(other.idle_wait, 0);
}

fn quantiles() {
    let values: Vec<i64> = (1..=100).rev().collect();
    assert_eq!(quantile(&values, 0.5), 50.0);
    assert_eq!(quantile(&values, 0.99), 99.0);
    assert_eq!(quantile(&[7], 0.99), 7.0);
    assert!(quantile(&[], 0.5).is_nan());
    assert_eq!(
        reads(&texts(&[(1, "a"), (1, "b"), (2, "c"), (3, "d"), (3, "e")])),
        3
    );
}

fn log_round_trip() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("tap.jsonl");
    let file = std::fs::File::create(&path).expect("create the log");
    let big = format!(
        r#"{{"type":"assistant","message":{{"content":[{{"type":"text","text":"{}"}}]}}}}"#,
        "x".repeat(100_000)
    );
    let delta = r#"{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"Hel"}}}"#;
    let ask = r#"{"type":"control_request","request_id":"r1","request":{"subtype":"initialize"}}"#;
    let (send, lines) = std::sync::mpsc::channel();
    for (dir, at, line) in [
        (Dir::Start, 1, ""),
        (Dir::ToClaude, 2, ask),
        (Dir::FromClaude, 3, delta),
        (Dir::FromClaude, 4, big.as_str()),
        (Dir::Exited, 5, "3"),
    ] {
        send.send((dir, at, line.as_bytes().to_vec())).unwrap();
    }
    drop(send);
    write_log(file, 7, lines);
    let records = read_log(&path);
    let seen: Vec<_> = records
        .iter()
        .map(|r| {
            (
                r.pid,
                r.dir,
                r.at,
                r.len,
                r.kind.as_deref(),
                r.subtype.as_deref(),
                r.request_id.as_deref(),
                r.text.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            (7, Some(Dir::Start), 1, 0, None, None, None, None),
            (
                7,
                Some(Dir::ToClaude),
                2,
                ask.len(),
                Some("control_request"),
                Some("initialize"),
                Some("r1"),
                None
            ),
            (
                7,
                Some(Dir::FromClaude),
                3,
                delta.len(),
                Some("stream_event"),
                None,
                None,
                Some("Hel")
            ),
            (
                7,
                Some(Dir::FromClaude),
                4,
                big.len(),
                Some("assistant"),
                None,
                None,
                None
            ),
            (7, Some(Dir::Exited), 5, 3, None, None, None, None),
        ]
    );
}
