//! Engine tests: scripts run in-process over in-memory streams.

use super::*;

mod cli;
mod driver;
mod fixtures;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

/// What a finished run left behind.
pub(super) struct Outcome {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Outcome {
    pub(crate) fn lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|_| json!(l)))
            .collect()
    }
}

pub(super) fn runtime(dir: &Path) -> Runtime {
    Runtime {
        log_path: Some(dir.join("standin.log")),
        cwd: dir.to_owned(),
        pid: 4242,
    }
}

/// Runs `script` with all of `input` already written and stdin then closed.
pub(super) async fn run_text(script: &str, args: &[&str], input: &str, dir: &Path) -> Outcome {
    let script = Script::parse(script).unwrap();
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let args = args.iter().map(|a| a.to_string()).collect();
    let code = run_with_runtime(
        script,
        args,
        runtime(dir),
        input.as_bytes(),
        &mut stdout,
        &mut stderr,
    )
    .await;
    Outcome {
        code,
        stdout: String::from_utf8(stdout).unwrap(),
        stderr: String::from_utf8(stderr).unwrap(),
    }
}

const PROMPT: &str = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"say hi"}]},"parent_tool_use_id":null,"session_id":"s"}"#;

#[tokio::test]
async fn emits_bound_and_builtin_variables_then_exits_zero_at_eof() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
{"expect": {"type":"user"}, "bind": {"prompt": "/message/content/0/text", "content": "/message/content"}}
{"emit": {"type":"assistant","session_id":"${session_id}","cwd":"${cwd}","pid":"${pid}","echo":"you said ${prompt}","blocks":"${content}","model":"${model}"}}
"#;
    let out = run_text(
        script,
        &["--verbose", "--session-id", "abc", "--model", "sonnet"],
        &format!("{PROMPT}\n"),
        dir.path(),
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.lines(),
        vec![
            json!({"type":"assistant","session_id":"abc","cwd":dir.path().to_string_lossy(),"pid":4242,
            "echo":"you said say hi","blocks":[{"type":"text","text":"say hi"}],"model":"sonnet"})
        ]
    );
}

#[tokio::test]
async fn a_mismatch_names_the_step_and_the_line_and_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let script = "{\"emit\": {\"type\":\"hello\"}}\n{\"expect\": {\"type\":\"control_request\",\"request\":{\"subtype\":\"initialize\"}}}\n{\"emit\": {\"never\":true}}";
    let out = run_text(script, &[], &format!("{PROMPT}\n"), dir.path()).await;
    assert_eq!(out.code, EXIT_MISMATCH);
    assert!(
        out.stderr.starts_with(r#"standin: step 2: expected {"type":"control_request","request":{"subtype":"initialize"}} got {"type":"user""#),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("(at <script>:2)"), "{}", out.stderr);
    assert_eq!(out.lines(), vec![json!({"type":"hello"})]);

    let out = run_text(
        r#"{"expect": {"type":"user"}}"#,
        &[],
        "not json\n",
        dir.path(),
    )
    .await;
    assert_eq!(out.code, EXIT_MISMATCH);
    assert!(out.stderr.contains("got not json"), "{}", out.stderr);
}

#[tokio::test]
async fn eof_while_a_line_is_expected_exits_zero_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_text(
        "{\"expect\": \"$any\"}\n{\"emit\": {\"never\": 1}}",
        &[],
        "",
        dir.path(),
    )
    .await;
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, "", "")
    );
}

#[tokio::test]
async fn a_crash_writes_stderr_and_exits_with_its_code() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_text("{\"emit\": {\"a\":1}}\n{\"stderr\": \"boom in ${session_id}\"}\n{\"exit\": 1}\n{\"emit\": {\"b\":2}}", &["-r", "xyz"], "", dir.path()).await;
    assert_eq!(out.code, 1);
    assert_eq!(out.stderr, "boom in xyz\n");
    assert_eq!(out.lines(), vec![json!({"a":1})]);
}

#[tokio::test]
async fn garbage_and_big_lines_come_out_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
{"emit_raw": "this is not json {"}
{"emit_big_line": {"bytes": 1000000, "template": {"type":"user","content":"${filler}","sid":"${session_id}"}}}
{"emit_big_line": {"bytes": 10, "template": {"content":"${filler}"}}}
"#;
    let out = run_text(script, &["--session-id", "s1"], "", dir.path()).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], "this is not json {");
    assert_eq!(lines[1].len(), 1_000_000);
    let big: Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(big["sid"], "s1");
    assert!(big["content"].as_str().unwrap().bytes().all(|b| b == b'x'));
    // A template already longer than asked for is written with an empty filler.
    assert_eq!(lines[2], r#"{"content":""}"#);
}

#[tokio::test]
async fn write_file_really_writes_relative_to_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
{"expect": {"response": {"response": {"behavior": "allow"}}}, "bind": {"text": "/response/response/updatedInput/content"}}
{"write_file": {"path": "sub/hello.txt", "content": "${text}"}}
"#;
    let answer = r#"{"type":"control_response","response":{"subtype":"success","request_id":"r","response":{"behavior":"allow","updatedInput":{"content":"Hi!\n"}}}}"#;
    let out = run_text(script, &[], &format!("{answer}\n"), dir.path()).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("sub/hello.txt")).unwrap(),
        "Hi!\n"
    );
}

#[tokio::test]
async fn optional_expects_leave_an_unmatched_line_for_the_next_step() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
{"expect": {"type":"control_request"}, "optional": true}
{"expect": {"type":"user"}}
{"emit": {"turn": 1}}
{"expect": {"type":"control_request"}, "optional": true}
{"expect": {"type":"user"}}
{"emit": {"turn": 2}}
"#;
    let interrupt =
        r#"{"type":"control_request","request_id":"i","request":{"subtype":"interrupt"}}"#;
    let out = run_text(
        script,
        &[],
        &format!("{PROMPT}\n{interrupt}\n{PROMPT}\n"),
        dir.path(),
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.lines(), vec![json!({"turn":1}), json!({"turn":2})]);
}

#[tokio::test]
async fn expect_any_order_accepts_either_order_and_binds_from_each() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
{"expect_any_order": [{"expect": {"kind":"a"}, "bind": {"a": "/v"}}, {"expect": {"kind":"b"}, "bind": {"b": "/v"}}]}
{"emit": {"a":"${a}","b":"${b}"}}
"#;
    for input in [
        "{\"kind\":\"a\",\"v\":1}\n{\"kind\":\"b\",\"v\":2}\n",
        "{\"kind\":\"b\",\"v\":2}\n{\"kind\":\"a\",\"v\":1}\n",
    ] {
        let out = run_text(script, &[], input, dir.path()).await;
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(out.lines(), vec![json!({"a":1,"b":2})]);
    }
    let out = run_text(
        script,
        &[],
        "{\"kind\":\"a\",\"v\":1}\n{\"kind\":\"a\",\"v\":1}\n",
        dir.path(),
    )
    .await;
    assert_eq!(
        out.code, EXIT_MISMATCH,
        "the same pattern cannot match twice"
    );
}

#[tokio::test]
async fn a_prompt_before_the_control_answer_waits_for_the_step_that_wants_it() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
{"expect": {"type":"control_response","id":1}}
{"expect": {"type":"user","n":"$any"}, "bind": {"got": "/n"}}
{"emit": {"done":"${got}"}}
"#;
    let answer = "{\"type\":\"control_response\",\"id\":1}\n";
    let prompt = "{\"type\":\"user\",\"n\":1}\n";
    for input in [format!("{answer}{prompt}"), format!("{prompt}{answer}")] {
        let out = run_text(script, &[], &input, dir.path()).await;
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(out.lines(), vec![json!({"done":1})]);
    }
    // Anything else out of order is still a mismatch.
    let out = run_text(
        script,
        &[],
        "{\"type\":\"assistant\"}\n{\"type\":\"control_response\",\"id\":1}\n",
        dir.path(),
    )
    .await;
    assert_eq!(out.code, EXIT_MISMATCH, "{}", out.stderr);
}

#[tokio::test]
async fn branch_and_goto_follow_what_was_received() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
{"label": "top"}
{"branch": [{"expect": {"behavior":"allow"}, "goto": "yes"}, {"expect": {"behavior":"deny"}, "bind": {"why": "/message"}, "goto": "no"}]}
{"label": "yes"}
{"emit": {"got": "allow"}}
{"goto": "top"}
{"label": "no"}
{"emit": {"got": "deny: ${why}"}}
{"goto": "top"}
"#;
    let input = "{\"behavior\":\"deny\",\"message\":\"nope\"}\n{\"behavior\":\"allow\"}\n";
    let out = run_text(script, &[], input, dir.path()).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.lines(),
        vec![json!({"got":"deny: nope"}), json!({"got":"allow"})]
    );
    let out = run_text(script, &[], "{\"behavior\":\"maybe\"}\n", dir.path()).await;
    assert_eq!(out.code, EXIT_MISMATCH);
}

#[tokio::test]
async fn a_line_after_the_script_ends_is_a_mismatch_but_wait_eof_ignores_lines() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_text(
        r#"{"emit": {"done": true}}"#,
        &[],
        &format!("{PROMPT}\n"),
        dir.path(),
    )
    .await;
    assert_eq!(out.code, EXIT_MISMATCH);
    assert!(
        out.stderr.contains("step 2: expected end of input got"),
        "{}",
        out.stderr
    );

    let out = run_text(
        "{\"wait_eof\": true}\n{\"emit\": {\"never\": 1}}",
        &[],
        &format!("{PROMPT}\n{PROMPT}\n"),
        dir.path(),
    )
    .await;
    assert_eq!((out.code, out.stdout.as_str()), (0, ""));
}

#[tokio::test]
async fn steps_marked_when_a_flag_run_only_with_that_flag() {
    let dir = tempfile::tempdir().unwrap();
    let script = "{\"emit\": {\"partial\": true}, \"when\": \"--include-partial-messages\"}\n{\"emit\": {\"always\": true}}";
    let with = run_text(script, &["--include-partial-messages"], "", dir.path()).await;
    assert_eq!(
        with.lines(),
        vec![json!({"partial":true}), json!({"always":true})]
    );
    let without = run_text(script, &["--verbose"], "", dir.path()).await;
    assert_eq!(without.lines(), vec![json!({"always":true})]);
}

#[tokio::test]
async fn an_unbound_variable_is_a_script_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_text(r#"{"emit": {"x": "${nope}"}}"#, &[], "", dir.path()).await;
    assert_eq!(out.code, EXIT_SCRIPT_ERROR);
    assert!(
        out.stderr.contains("unbound variable `nope`"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn the_log_records_argv_received_lines_and_the_exit() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_text(
        "{\"expect\": {\"type\":\"user\"}}",
        &["--resume", "r-1", "--verbose"],
        &format!("{PROMPT}\n"),
        dir.path(),
    )
    .await;
    assert_eq!(out.code, 0);
    let log = std::fs::read_to_string(dir.path().join("standin.log")).unwrap();
    let events: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events[0]["event"], "start");
    assert_eq!(events[0]["argv"], json!(["--resume", "r-1", "--verbose"]));
    assert_eq!(events[0]["pid"], 4242);
    assert_eq!(events[1]["event"], "recv");
    assert_eq!(events[1]["line"]["message"]["content"][0]["text"], "say hi");
    assert_eq!(
        events.last().unwrap(),
        &json!({"event":"exit","code":0,"pid":4242})
    );
}

#[tokio::test]
async fn on_handlers_answer_unlisted_lines_but_the_step_comes_first() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
{"on": {"type":"ping"}, "bind": {"n": "/n"}, "reply": [{"type":"pong","n":"${n}"}]}
{"expect": {"type":"user"}}
{"emit": {"turn": 1}}
{"expect": {"type":"ping"}}
{"emit": {"explicit": true}}
"#;
    let input = "{\"type\":\"ping\",\"n\":1}\n{\"type\":\"user\"}\n{\"type\":\"ping\",\"n\":2}\n{\"type\":\"ping\",\"n\":3}\n";
    let out = run_text(script, &[], input, dir.path()).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.lines(),
        vec![
            json!({"type":"pong","n":1}),
            json!({"turn":1}),
            json!({"explicit":true}),
            json!({"type":"pong","n":3})
        ]
    );
}

#[tokio::test]
async fn hang_never_finishes_even_after_eof() {
    let dir = tempfile::tempdir().unwrap();
    let input = format!("{PROMPT}\n");
    let run = run_text(
        "{\"emit\": {\"a\": 1}}\n{\"hang\": true}",
        &[],
        &input,
        dir.path(),
    );
    assert!(
        tokio::time::timeout(Duration::from_millis(300), run)
            .await
            .is_err()
    );
}

#[tokio::test]
async fn ignore_eof_waits_to_be_killed_where_a_plain_script_exits() {
    let dir = tempfile::tempdir().unwrap();
    let input = format!("{PROMPT}\n");
    let script = "{\"expect\": {\"type\":\"user\"}}\n{\"emit\": {\"a\": 1}}";
    let plain = run_text(script, &[], &input, dir.path()).await;
    assert_eq!(plain.code, 0);
    let deaf_script = format!("{{\"ignore_eof\": true}}\n{script}");
    let deaf = run_text(&deaf_script, &[], &input, dir.path());
    assert!(
        tokio::time::timeout(Duration::from_millis(300), deaf)
            .await
            .is_err(),
        "stdin closed, yet it must wait to be killed"
    );
    let log = std::fs::read_to_string(dir.path().join("standin.log")).unwrap();
    assert!(log.contains("\"eof_ignored\""), "{log}");
}

#[test]
fn every_fixture_script_and_the_demo_parse() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/standin");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            Script::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            names.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    assert!(names.len() >= 20, "{names:?}");
    let demo = Script::parse(DEMO_SCRIPT).unwrap();
    assert!(
        demo.steps
            .iter()
            .any(|s| matches!(&s.step, Step::WriteFile { path, .. } if path == "hello.txt"))
    );
}
