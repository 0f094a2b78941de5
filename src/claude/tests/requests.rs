//! Control requests against a child that answers them, and against the real claude.

use std::time::Duration;

use serde_json::json;

use super::*;

/// Answers control requests: two at a time and in reverse order (so correlation, not order, must
/// match them up), `set_model` with an error, `interrupt` never. Also answers an id nobody asked.
const CONTROL_PEER: &str = r#"
const say = (m) => process.stdout.write(JSON.stringify(m) + "\n");
say({type: "control_response", response: {subtype: "success", request_id: "nobody", response: {}}});
let held = [];
require("readline").createInterface({input: process.stdin}).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.type !== "control_request" || m.request.subtype === "interrupt") return;
  held.push(m);
  if (held.length < 2) return;
  for (const h of held.reverse()) {
    const [rid, req] = [h.request_id, h.request];
    say({type: "control_response", response: req.subtype === "set_model"
      ? {subtype: "error", request_id: rid, error: "no such model: " + req.model}
      : {subtype: "success", request_id: rid, response: {mode: req.mode ?? null}}});
  }
  say({type: "system", subtype: "answered"});
  held = [];
});
"#;

#[tokio::test]
async fn requests_get_their_own_answers_and_unanswered_ones_time_out() {
    let (_process, handle, mut events) = ClaudeProcess::spawn(node(CONTROL_PEER)).unwrap();
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
    let (_process, handle, mut events) = ClaudeProcess::spawn(node(
        "process.stdin.once('data', () => { process.stderr.write('fatal: bad flag\\n'); process.exit(2); });",
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
        forward_subagent_text: false,
        prompt_suggestions: false,
    };
    let answer = handle.request(init, Duration::from_secs(30)).await.unwrap();
    assert_eq!(answer["pid"], json!(process.pid()), "{answer}");
    let exit = process.shutdown(Duration::from_secs(10)).await;
    assert_eq!(exit.code, Some(0), "{exit:?}");
    let (_, exited) = until_exit(&mut events).await;
    assert_eq!(exited, exit);
}
