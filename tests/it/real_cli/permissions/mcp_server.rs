//! The MCP permission server against real clients: raw HTTP without the session token is refused,
//! and the real pinned claude CLI, started with `--permission-prompt-tool mcp__claude-acp__permission`
//! and our `--mcp-config`, asks our server before running tools and obeys its answers (allow, deny,
//! edited input, AskUserQuestion answers, and withdrawing the ask on interrupt).

use std::sync::{Arc, Mutex};

use crate::support::mcp::{
    STEP, allow_as_asked, is_result, recording, run_turn, script_write, spawn_claude_on_mcp,
    start_server, where_claude_runs,
};
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use claude_acp::claude::wire::PermissionDecision;
use claude_acp::permissions::fallback::{PermissionCallback, PermissionServer};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One raw HTTP/1.1 POST of an MCP `initialize` to the server; returns the status code.
async fn raw_initialize(mock: &MockApi, server: &PermissionServer, auth: Option<&str>) -> u16 {
    let address = server
        .url()
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let stream = where_claude_runs(mock.net(), move || std::net::TcpStream::connect(address))
        .expect("connect to the permission server");
    stream.set_nonblocking(true).unwrap();
    let mut stream = tokio::net::TcpStream::from_std(stream).unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "0"}}})
    .to_string();
    let auth = auth
        .map(|value| format!("Authorization: {value}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{auth}Content-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = [0u8; 12];
    tokio::time::timeout(STEP, stream.read_exact(&mut head))
        .await
        .expect("an answer in time")
        .expect("read the status line");
    let head = String::from_utf8_lossy(&head).to_string();
    assert!(head.starts_with("HTTP/1.1 "), "{head}");
    head[9..12].parse().unwrap()
}

#[tokio::test]
async fn requests_without_the_session_token_are_refused() {
    let mock = MockApi::start(Vec::new());
    let (callback, calls) = recording(allow_as_asked);
    let server = start_server(&mock, callback);

    let without = raw_initialize(&mock, &server, None).await;
    let wrong = raw_initialize(&mock, &server, Some("Bearer 0123456789abcdef")).await;
    let other_scheme = raw_initialize(&mock, &server, Some(server.token())).await;
    let right = raw_initialize(&mock, &server, Some(&format!("Bearer {}", server.token()))).await;

    assert_eq!(without, 401);
    assert_eq!(wrong, 401);
    assert_eq!(other_scheme, 401);
    assert_eq!(right, 200, "the same request with the token is served");
    assert!(calls.lock().unwrap().is_empty());
}

#[tokio::test]
async fn an_allowed_write_runs_after_claude_asks_our_server() {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    let target = script_write(&mock, &env, "Hello\n");
    let (callback, calls) = recording(allow_as_asked);
    let server = start_server(&mock, callback);
    let mut session = spawn_claude_on_mcp(&env, &server);

    let result = run_turn(&mut session.claude, "Please create hello.txt").await;

    assert_eq!(result["result"], "Done.", "{result}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "Hello\n");
    let calls = calls.lock().unwrap().clone();
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].tool_name, "Write");
    assert_eq!(calls[0].input["file_path"], json!(target));
    let tool_use_id = calls[0]
        .tool_use_id
        .clone()
        .expect("claude names the tool use");
    let tool_result = mock.requests()[1].tool_results();
    assert_eq!(tool_result[0].tool_use_id, tool_use_id);
    assert!(
        tool_result[0].text.contains("File created successfully"),
        "{tool_result:?}"
    );
    session.claude.finish(STEP).await;
}

#[tokio::test]
async fn a_denied_write_does_not_run_and_the_model_reads_why() {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    let target = script_write(&mock, &env, "Hello\n");
    let (callback, calls) = recording(|_| PermissionDecision::Deny {
        message: "The user declined writing hello.txt".into(),
        interrupt: false,
    });
    let server = start_server(&mock, callback);
    let mut session = spawn_claude_on_mcp(&env, &server);

    let result = run_turn(&mut session.claude, "Please create hello.txt").await;

    assert_eq!(result["result"], "Done.", "{result}");
    assert!(!target.exists(), "a denied Write must not create the file");
    assert_eq!(calls.lock().unwrap().len(), 1);
    let tool_result = mock
        .last_tool_result_text()
        .expect("a tool_result reached the model");
    assert!(
        tool_result.contains("The user declined writing hello.txt"),
        "{tool_result}"
    );
    session.claude.finish(STEP).await;
}

#[tokio::test]
async fn an_edited_input_is_what_runs() {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    let target = script_write(&mock, &env, "from the model\n");
    let (callback, _calls) = recording(|call| {
        let mut edited = call.input.clone();
        edited["content"] = json!("edited by the user\n");
        PermissionDecision::Allow {
            updated_input: edited,
            updated_permissions: vec![],
        }
    });
    let server = start_server(&mock, callback);
    let mut session = spawn_claude_on_mcp(&env, &server);

    run_turn(&mut session.claude, "Please create hello.txt").await;

    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "edited by the user\n"
    );
    let tool_result = mock.last_tool_result_text().unwrap();
    assert!(tool_result.contains("The user modified"), "{tool_result}");
    session.claude.finish(STEP).await;
}

#[tokio::test]
async fn ask_user_question_answers_reach_the_model() {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    let questions = json!([{"question": "Which color should the button be?", "header": "Color",
        "options": [{"label": "Blue", "description": "calm"}, {"label": "Red", "description": "loud"}],
        "multiSelect": false}]);
    mock.push_rule(Rule::on_prompt(
        "pick a color",
        Reply::tool_use("AskUserQuestion", json!({"questions": questions})),
    ));
    mock.push_rule(Rule::on_tool_result(Reply::text("Red it is.")));
    let (callback, calls) = recording(|call| {
        let mut answered = call.input.clone();
        answered["answers"] = json!({"Which color should the button be?": "Red"});
        PermissionDecision::Allow {
            updated_input: answered,
            updated_permissions: vec![],
        }
    });
    let server = start_server(&mock, callback);
    let mut session = spawn_claude_on_mcp(&env, &server);

    let result = run_turn(&mut session.claude, "Please pick a color for the button").await;

    assert_eq!(result["result"], "Red it is.", "{result}");
    let calls = calls.lock().unwrap().clone();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].tool_name, "AskUserQuestion");
    assert_eq!(calls[0].input["questions"], questions);
    let tool_result = mock.last_tool_result_text().unwrap();
    assert!(
        tool_result.contains("\"Which color should the button be?\"=\"Red\""),
        "{tool_result}"
    );
    session.claude.finish(STEP).await;
}

/// Drops say when claude withdrew the ask: the callback's future is dropped unfinished.
struct DropSignal(Option<tokio::sync::oneshot::Sender<()>>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        if let Some(signal) = self.0.take() {
            let _ = signal.send(());
        }
    }
}

#[tokio::test]
async fn an_interrupt_withdraws_the_pending_ask() {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    let target = script_write(&mock, &env, "Hello\n");
    let (asked_tx, asked_rx) = tokio::sync::oneshot::channel::<()>();
    let (dropped_tx, dropped_rx) = tokio::sync::oneshot::channel::<()>();
    let slots = Arc::new(Mutex::new(Some((asked_tx, dropped_tx))));
    let callback: PermissionCallback = Arc::new(move |_call| {
        let (asked, dropped) = slots.lock().unwrap().take().expect("one ask");
        Box::pin(async move {
            let _signal = DropSignal(Some(dropped));
            let _ = asked.send(());
            // The user never answers.
            std::future::pending::<PermissionDecision>().await
        })
    });
    let server = start_server(&mock, callback);
    let mut session = spawn_claude_on_mcp(&env, &server);

    session
        .claude
        .send_user_text("Please create hello.txt")
        .await;
    tokio::time::timeout(STEP, asked_rx)
        .await
        .expect("claude asked our server")
        .unwrap();
    session
        .claude
        .send(&json!({"type": "control_request", "request_id": "stop_1",
                      "request": {"subtype": "interrupt"}}))
        .await;
    let result = session.claude.read_until("result", STEP, is_result).await;

    tokio::time::timeout(STEP, dropped_rx)
        .await
        .expect("the pending ask is dropped after the interrupt")
        .unwrap();
    assert_eq!(result["subtype"], "error_during_execution", "{result}");
    assert!(!target.exists());
    session.claude.finish(STEP).await;
}

#[tokio::test]
async fn an_answer_slower_than_claudes_tool_timeout_is_still_waited_for() {
    // claude applies MCP_TOOL_TIMEOUT to the permission tool; our entry's own timeout overrides it.
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock).with_env("MCP_TOOL_TIMEOUT", "1500");
    let target = script_write(&mock, &env, "Hello\n");
    let callback: PermissionCallback = Arc::new(|call| {
        Box::pin(async move {
            tokio::time::sleep(std::time::Duration::from_millis(3500)).await;
            allow_as_asked(&call)
        })
    });
    let server = start_server(&mock, callback);
    let mut session = spawn_claude_on_mcp(&env, &server);

    let result = run_turn(&mut session.claude, "Please create hello.txt").await;

    assert_eq!(result["result"], "Done.", "{result}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "Hello\n");
    session.claude.finish(STEP).await;
}
