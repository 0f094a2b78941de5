//! claude misbehaving while it stays alive: results of unexpected shapes, a result line cut short,
//! a permission ask nested deeper than can be read,
//! stdout closed without exiting. Each prompt is answered (never left hanging), and the session
//! goes on.

use std::time::Duration;

use crate::support::acp_client::AcpClient;
use crate::support::liveness;
use crate::support::standin::Standin;
use serde_json::json;

#[tokio::test]
async fn results_of_unexpected_shapes_end_the_turn_and_a_cut_result_fails_it() {
    let s = Standin::new("odd_results");
    let c = s.adapter(&[]);
    c.set_timeout(Duration::from_secs(15));
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let first = c.prompt(&id, "first").await.expect("answered");
    assert_eq!(first["stopReason"], "end_turn");
    assert_eq!(c.agent_text(&id), "First answer.");

    let second = c
        .prompt(&id, "second")
        .await
        .expect_err("a cut result is an error");
    assert!(
        second.message.contains("result line could not be read"),
        "{second:?}"
    );
}

/// Where the silent claude writes its pid (the shell's, which `exec` keeps).
const SILENT_PID: &str = "silent.pid";

/// A claude that reads the prompt, closes its stdout and lives on, its pid in
/// [`SILENT_PID`]; the next run is the stand-in.
fn closes_stdout_then_standin(s: &Standin) -> std::path::PathBuf {
    let marker = s.dir().join("closed-once");
    let pid_file = s.dir().join(SILENT_PID);
    let wrapper = s.dir().join("claude-closing");
    let body = format!(
        "#!/bin/sh\nif [ ! -e '{marker}' ]; then\n  touch '{marker}'\n  echo $$ > '{pid_file}'\n  while IFS= read -r line; do\n    case \"$line\" in *'\"type\":\"user\"'*) break;; esac\n  done\n  exec 1>&-\n  exec sleep 1000\nfi\nexec '{standin}' standin \"$@\"\n",
        marker = marker.display(),
        pid_file = pid_file.display(),
        standin = s.claude.display(),
    );
    std::fs::write(&wrapper, body).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    wrapper
}

#[tokio::test]
async fn a_claude_that_closes_its_stdout_but_lives_is_stopped_and_the_next_prompt_restarts_it() {
    let s = Standin::new("text");
    let wrapper = closes_stdout_then_standin(&s);
    let c = AcpClient::spawn(
        &["--claude-path", wrapper.to_str().unwrap()],
        &[
            s.env().as_slice(),
            &[("CLAUDE_CONFIG_DIR", s.config_dir().to_str().unwrap())],
        ]
        .concat(),
        s.dir(),
    );
    c.set_timeout(Duration::from_secs(15));
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let err = c.prompt(&id, "hello").await.expect_err("the turn fails");
    assert!(err.message.contains("closed its stdout"), "{err:?}");
    // The silent claude is gone, not left sleeping.
    let silent: u32 = std::fs::read_to_string(s.dir().join(SILENT_PID))
        .expect("the silent claude wrote its pid")
        .trim()
        .parse()
        .unwrap();
    assert!(
        liveness::wait_until_gone(&[silent], Duration::from_secs(2)).await,
        "the silent claude ({silent}) was left behind"
    );
    let answer = c
        .prompt(&id, "again")
        .await
        .expect("a fresh claude answers");
    assert_eq!(answer["stopReason"], "end_turn");
}

#[tokio::test]
async fn a_permission_ask_nested_too_deep_is_denied_with_a_short_reason_and_the_turn_goes_on() {
    let s = Standin::new("deep_control_request");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let prompt = json!({"sessionId": id, "prompt": [{"type": "text", "text": "list the files"}]});
    let answer = c
        .try_request("session/prompt", prompt, Duration::from_secs(10))
        .await;
    assert!(
        matches!(&answer, Ok(Ok(a)) if a["stopReason"] == "end_turn"),
        "the turn waits on an unanswered control request: {answer:?}"
    );
    let denial = s
        .received()
        .into_iter()
        .find(|l| l["response"]["request_id"] == "deep-1")
        .expect("claude's ask was answered");
    let message = denial["response"]["response"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.contains("could not read")
            && message.contains("recursion limit")
            && message.len() < 400,
        "{denial}"
    );
}
