//! Control requests against a child that answers them, and against the real claude.

use std::time::Duration;

use serde_json::json;

use super::*;

/// Answers control requests: two at a time and in reverse order (so correlation, not order, must
/// match them up), `set_model` with an error, `interrupt` never. Also answers an id nobody asked.
const CONTROL_PEER: &str = r#"
import json, sys
print(json.dumps({"type": "control_response", "response": {"subtype": "success", "request_id": "nobody", "response": {}}}), flush=True)
held = []
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") != "control_request" or m["request"]["subtype"] == "interrupt":
        continue
    held.append(m)
    if len(held) < 2:
        continue
    for m in reversed(held):
        rid, req = m["request_id"], m["request"]
        if req["subtype"] == "set_model":
            out = {"subtype": "error", "request_id": rid, "error": "no such model: " + req["model"]}
        else:
            out = {"subtype": "success", "request_id": rid, "response": {"mode": req.get("mode")}}
        print(json.dumps({"type": "control_response", "response": out}), flush=True)
    print(json.dumps({"type": "system", "subtype": "answered"}), flush=True)
    held = []
"#;

#[tokio::test]
async fn requests_get_their_own_answers_and_unanswered_ones_time_out() {
    let (_process, handle, mut events) = ClaudeProcess::spawn(python(CONTROL_PEER)).unwrap();
    let wait = Duration::from_secs(5);
    let (mode, model) = tokio::join!(
        handle.request(
            OutboundControl::SetPermissionMode {
                mode: "plan".into()
            },
            wait
        ),
        handle.request(
            OutboundControl::SetModel {
                model: Some("opus-9".into())
            },
            wait
        ),
    );
    assert_eq!(mode.unwrap(), json!({"mode": "plan"}));
    assert!(
        matches!(model, Err(ClaudeError::ControlError(ref m)) if m == "no such model: opus-9"),
        "{model:?}"
    );
    // Control responses are not forwarded; other lines are.
    assert!(
        matches!(next_message(&mut events).await, ClaudeMessage::System(s) if s.subtype == "answered")
    );

    let err = handle
        .request(OutboundControl::Interrupt, Duration::from_millis(200))
        .await
        .unwrap_err();
    assert!(
        matches!(err, ClaudeError::Timeout { ref request, .. } if request == "interrupt"),
        "{err}"
    );
}

#[tokio::test]
async fn pending_and_later_requests_fail_when_claude_exits() {
    let (_process, handle, mut events) = ClaudeProcess::spawn(python(
        "import sys; sys.stdin.readline(); sys.stderr.write('fatal: bad flag\\n'); sys.exit(2)",
    ))
    .unwrap();
    let err = handle
        .request(OutboundControl::Interrupt, Duration::from_secs(5))
        .await
        .unwrap_err();
    let ClaudeError::Exited {
        status,
        stderr_tail,
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!(status, "exit code 2");
    assert_eq!(stderr_tail, "fatal: bad flag\n");
    let (_, exit) = until_exit(&mut events).await;
    assert_eq!(exit.code, Some(2));
    let later = handle
        .request(OutboundControl::Interrupt, Duration::from_secs(5))
        .await
        .unwrap_err();
    assert!(matches!(later, ClaudeError::Exited { .. }), "{later}");
    let send = handle.respond_success("r", json!({})).await.unwrap_err();
    assert!(matches!(send, ClaudeError::Exited { .. }), "{send}");
}

/// Against the real CLI, offline (dummy key, API pointed at a closed port): `initialize` is answered
/// and stdin EOF ends claude. Run with `CLAUDE_ACP_REAL_CLAUDE=/path/to/claude cargo test -- --ignored`.
#[tokio::test]
#[ignore = "needs the real claude CLI in CLAUDE_ACP_REAL_CLAUDE"]
async fn the_real_claude_answers_initialize_and_exits_on_stdin_eof() {
    let Ok(path) = std::env::var("CLAUDE_ACP_REAL_CLAUDE") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let env = |k: &str, v: &str| (k.to_owned(), v.to_owned());
    let opts = SpawnOptions {
        command: ClaudeCommand::new(path),
        cwd: home.path().to_path_buf(),
        args: crate::claude::STREAM_JSON_ARGS.map(String::from).to_vec(),
        extra_env: vec![
            env("HOME", home.path().to_str().unwrap()),
            env("ANTHROPIC_API_KEY", "dummy"),
            env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9"),
            env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        ],
    };
    let (mut process, handle, mut events) = ClaudeProcess::spawn(opts).unwrap();
    let init = OutboundControl::Initialize {
        hooks: None,
        sdk_mcp_servers: vec![],
        system_prompt: None,
        append_system_prompt: None,
    };
    let answer = handle.request(init, Duration::from_secs(30)).await.unwrap();
    assert_eq!(answer["pid"], json!(process.pid()), "{answer}");
    let exit = process.shutdown(Duration::from_secs(10)).await;
    assert_eq!(exit.code, Some(0), "{exit:?}");
    let (_, exited) = until_exit(&mut events).await;
    assert_eq!(exited, exit);
}
