//! Proves the scripted ACP client and the /proc helpers work, against a tiny Python ACP agent
//! (`tests/it/support/fake_acp_agent.mjs`) and plain `sh`/`sleep` processes, so that a failing
//! adapter test points at the adapter and not at the tooling.

use std::sync::Arc;
use std::time::Duration;

use crate::support::acp_client::{AcpClient, RpcError, WaitError, choose_permission};
use crate::support::liveness;
#[cfg(target_os = "linux")]
use crate::support::procs;
use serde_json::{Value, json};

const FAKE_AGENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/it/support/fake_acp_agent.mjs"
);

async fn fake_session() -> (AcpClient, String) {
    let client = AcpClient::spawn_program("node", &[FAKE_AGENT], &[], env!("CARGO_MANIFEST_DIR"));
    let init = client.initialize().await;
    assert_eq!(init["protocolVersion"], 1);
    let session = client.new_session("/tmp").await;
    (client, session)
}

#[tokio::test]
async fn allowed_permission_streams_text_and_completes_the_tool_call() {
    let (client, session) = fake_session().await;
    client.allow_permissions();
    let response = client
        .prompt(&session, "Please create hello.txt")
        .await
        .unwrap();
    assert_eq!(response["stopReason"], "end_turn");
    assert_eq!(client.agent_text(&session), "Created hello.txt.");
    let tool_calls = client.tool_calls(&session);
    assert_eq!(tool_calls.len(), 1, "{tool_calls:?}");
    assert_eq!(tool_calls[0]["title"], "Write hello.txt");
    let state = client
        .tool_call_state(&session, "toolu_1")
        .expect("tool call seen");
    assert_eq!(state["status"], "completed");
    assert_eq!(state["kind"], "edit");
    let asked: Vec<_> = client.requests().into_iter().map(|r| r.method).collect();
    assert_eq!(asked, ["session/request_permission"]);
    let answer: Value = serde_json::from_str(client.sent().last().unwrap()).unwrap();
    assert_eq!(answer["id"], "perm-1");
    assert_eq!(
        answer["result"]["outcome"],
        json!({"outcome": "selected", "optionId": "allow"})
    );
}

#[tokio::test]
async fn rejected_permission_is_selected_by_kind() {
    let (client, session) = fake_session().await;
    client.on_request(
        "session/request_permission",
        choose_permission("reject_once"),
    );
    client
        .prompt(&session, "Please create hello.txt")
        .await
        .unwrap();
    assert_eq!(client.agent_text(&session), "Not allowed.");
    assert_eq!(
        client.tool_call_state(&session, "toolu_1").unwrap()["status"],
        "failed"
    );
}

#[tokio::test]
async fn a_held_permission_can_be_answered_after_cancel() {
    let (client, session) = fake_session().await;
    client.hold_requests("session/request_permission");
    let (response, ()) = tokio::join!(client.prompt(&session, "Please create hello.txt"), async {
        let asked = client.next_request("session/request_permission").await;
        assert_eq!(asked.params["toolCall"]["toolCallId"], "toolu_1");
        let announced = client
            .wait_for_update(
                |u| u["update"]["sessionUpdate"] == "tool_call",
                Duration::from_secs(5),
            )
            .await;
        assert_eq!(announced["sessionId"], session.as_str());
        client.cancel(&session).await;
        client
            .respond(&asked.id, json!({"outcome": {"outcome": "cancelled"}}))
            .await;
    });
    assert_eq!(response.unwrap()["stopReason"], "cancelled");
    assert_eq!(client.agent_text(&session), "");
    // The editor's order: cancel first, then the pending permission answered as cancelled.
    let sent: Vec<Value> = client
        .sent()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let cancel = sent
        .iter()
        .position(|m| m["method"] == "session/cancel")
        .unwrap();
    let answer = sent.iter().position(|m| m["id"] == "perm-1").unwrap();
    assert!(cancel < answer, "{sent:?}");
}

#[tokio::test]
async fn error_responses_carry_code_message_and_data() {
    let (client, session) = fake_session().await;
    let error = client.prompt(&session, "fail").await.unwrap_err();
    let expected = RpcError {
        code: -32000,
        message: "fake failure".into(),
        data: Some(json!({"why": "asked"})),
    };
    assert_eq!(error, expected);
}

#[tokio::test]
async fn requests_without_responder_get_method_not_found() {
    let (client, session) = fake_session().await;
    client.prompt(&session, "fs").await.unwrap();
    assert_eq!(client.agent_text(&session), "fs error code -32601");
    assert_eq!(client.requests()[0].method, "fs/read_text_file");
}

#[tokio::test]
async fn stderr_and_non_json_stdout_are_kept_apart_from_the_transcript() {
    let (client, session) = fake_session().await;
    client.prompt(&session, "stderr").await.unwrap();
    client.prompt(&session, "garbage").await.unwrap();
    assert!(client.stderr_text().contains("fake agent diagnostic line"));
    assert!(client.diagnostics().contains("fake agent diagnostic line"));
    assert_eq!(
        client.invalid_lines(),
        ["this is not json", "\u{fffd}\u{fffd} not utf-8"]
    );
    // initialize, session/new and two prompt responses.
    assert_eq!(client.transcript().len(), 4, "{:?}", client.transcript());
}

#[tokio::test]
async fn timeouts_panic_with_the_adapter_stderr_tail() {
    let (client, session) = fake_session().await;
    client.prompt(&session, "stderr").await.unwrap();
    client.set_timeout(Duration::from_millis(300));
    let client = Arc::new(client);
    let waiting = client.clone();
    let outcome =
        tokio::spawn(async move { waiting.request("never/answered", json!({})).await }).await;
    let panic = outcome
        .expect_err("an unanswered request must fail the test")
        .into_panic();
    let message = panic
        .downcast_ref::<String>()
        .expect("formatted panic message");
    assert!(
        message.contains("never/answered request: timed out"),
        "{message}"
    );
    assert!(message.contains("fake agent diagnostic line"), "{message}");
}

#[tokio::test]
async fn an_adapter_that_exits_fails_pending_requests_and_reports_its_status() {
    let (client, session) = fake_session().await;
    let params = json!({"sessionId": session, "prompt": [{"type": "text", "text": "exit"}]});
    let outcome = client
        .try_request("session/prompt", params, Duration::from_secs(10))
        .await;
    assert_eq!(outcome, Err(WaitError::Closed));
    let status = client
        .wait_exit(Duration::from_secs(5))
        .await
        .expect("exited");
    assert_eq!(status.code(), Some(3));
    assert!(!liveness::is_alive(client.pid()));
}

#[tokio::test]
async fn closing_stdin_lets_the_agent_exit() {
    let (client, _session) = fake_session().await;
    assert!(liveness::is_alive(client.pid()));
    assert_eq!(client.wait_exit(Duration::from_millis(200)).await, None);
    client.close_stdin().await;
    let status = client
        .wait_exit(Duration::from_secs(5))
        .await
        .expect("exited");
    assert!(status.success());
}

// Linux-only, like the /proc helpers it checks.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn proc_helpers_see_descendants_and_count_zombies_as_gone() {
    let marker = format!("procs-selftest-{}", std::process::id());
    let mut root = tokio::process::Command::new("sh")
        .args(["-c", "sh -c 'sleep 41; true' & sleep 42; true", &marker])
        .process_group(0)
        .spawn()
        .unwrap();
    let root_pid = root.id().unwrap();
    // Until both sleeps run: the subshell is there before the sleep it starts (on a busy
    // machine, long enough to be seen without it).
    let (mut descendants, mut commands) = (Vec::new(), Vec::<String>::new());
    for _ in 0..500 {
        descendants = procs::children_of(root_pid);
        commands = descendants
            .iter()
            .filter_map(|&pid| procs::cmdline(pid))
            .collect();
        if ["sleep 41", "sleep 42"]
            .iter()
            .all(|sleep| commands.iter().any(|c| c == sleep))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        commands.iter().any(|c| c == "sleep 41"),
        "grandchild missing: {commands:?}"
    );
    assert!(
        commands.iter().any(|c| c == "sleep 42"),
        "child missing: {commands:?}"
    );
    assert_eq!(procs::pids_with_cmdline_containing(&marker), [root_pid]);

    // SAFETY: kill(2) on the process group this test just created.
    unsafe { libc::kill(-(root_pid as libc::pid_t), libc::SIGKILL) };
    assert!(liveness::wait_until_gone(&descendants, Duration::from_secs(5)).await);
    // The root is not reaped yet: a zombie, which must count as gone.
    assert!(liveness::wait_until_gone(&[root_pid], Duration::from_secs(5)).await);
    assert_eq!(procs::state(root_pid), Some('Z'));
    assert!(procs::pids_with_cmdline_containing(&marker).is_empty());
    root.wait().await.unwrap();
    assert_eq!(procs::state(root_pid), None);
    assert!(!liveness::wait_until_gone(&[std::process::id()], Duration::from_millis(50)).await);
}
