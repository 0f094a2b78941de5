//! The MCP permission path as the fallback for a broken stdio channel, with the real pinned claude:
//! the break detector notices the break symptoms claude really prints, a session resumed on the MCP
//! path carries on, and the MCP path keeps what the stdio path offers (session rules, interrupt).

use crate::support::mcp::{
    STEP, allow_as_asked, is_result, recording, run_turn, script_write, spawn_claude_on_mcp,
    spawn_claude_on_mcp_with, start_server,
};
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use crate::support::stream_json::StreamJsonProcess;
use claude_acp::claude::wire::{ClaudeMessage, PermissionDecision};
use claude_acp::permissions::fallback::{BreakDetector, BreakKind, BreakSymptom};
use serde_json::{Value, json};

/// claude in stream-json mode with `permission_args` instead of `--permission-prompt-tool stdio`.
fn spawn_claude_with(env: &ClaudeEnv, permission_args: &[&str]) -> StreamJsonProcess {
    StreamJsonProcess::spawn(env.claude_stream_json_asking_with(permission_args))
}

/// Feeds everything claude printed to a detector, then its stderr at exit.
fn symptoms_of(transcript: &[Value], stderr: &str) -> Vec<BreakSymptom> {
    let mut detector = BreakDetector::new();
    let mut symptoms: Vec<BreakSymptom> = transcript
        .iter()
        .filter_map(|m| detector.on_message(&ClaudeMessage::from_value(m.clone()).unwrap()))
        .collect();
    symptoms.extend(BreakDetector::on_exit(stderr));
    symptoms
}

/// Reads claude's output until it ends (claude exits) and returns the detector's verdicts.
async fn read_to_exit(claude: &mut StreamJsonProcess) -> Vec<BreakSymptom> {
    while claude.next_message(STEP).await.is_some() {}
    // Every byte of stderr, not what a background reader happened to catch so far.
    let stderr = claude.stderr_to_end(STEP).await;
    symptoms_of(claude.transcript(), &stderr)
}

#[tokio::test]
async fn a_claude_that_no_longer_knows_the_stdio_tool_is_detected() {
    // What a claude that dropped `stdio` would do: it takes the value as an MCP tool name it
    // cannot find. `stdio2` stands for it.
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    let target = script_write(&mock, &env, "Hello\n");
    let mut claude = spawn_claude_with(&env, &["--permission-prompt-tool", "stdio2"]);

    claude.send_user_text("Please create hello.txt").await;
    let symptoms = read_to_exit(&mut claude).await;
    let status = claude.finish(STEP).await;

    assert!(!target.exists());
    assert!(!status.success(), "claude 2.1.332 exits 1 here");
    assert!(!symptoms.is_empty(), "no break detected");
    assert!(
        symptoms
            .iter()
            .all(|s| matches!(s.kind, BreakKind::FlagRefused { .. })),
        "{symptoms:?}"
    );
    assert_eq!(symptoms[0].tool_name.as_deref(), Some("Write"));
}

#[tokio::test]
async fn a_claude_that_never_asks_is_detected_and_the_session_resumed_on_mcp_carries_on() {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    let target = script_write(&mock, &env, "Hello\n");
    mock.push_rule(Rule::on_prompt(
        "Permission prompts work again",
        Reply::tool_use(
            "Write",
            json!({"file_path": env.work_dir().join("hello.txt"), "content": "Hello\n"}),
        ),
    ));
    let session_id = uuid::Uuid::new_v4().to_string();
    // No `--permission-prompt-tool` at all: claude auto-denies every ask (the break).
    let mut claude = spawn_claude_with(&env, &["--session-id", &session_id]);
    claude.send_user_text("Please create hello.txt").await;
    claude.read_until("result", STEP, is_result).await;
    let mut detector = BreakDetector::new();
    let symptoms: Vec<BreakSymptom> = claude
        .transcript()
        .iter()
        .filter_map(|m| detector.on_message(&ClaudeMessage::from_value(m.clone()).unwrap()))
        .collect();
    claude.finish(STEP).await;
    assert_eq!(symptoms.len(), 1, "{symptoms:?}");
    assert_eq!(symptoms[0].kind, BreakKind::DeniedWithoutAsking);
    assert_eq!(symptoms[0].tool_name.as_deref(), Some("Write"));
    assert_eq!(
        symptoms[0].tool_input.as_ref().unwrap()["content"],
        "Hello\n"
    );
    assert!(!target.exists());

    // The switch: same conversation, resumed with our MCP permission server.
    let (callback, calls) = recording(allow_as_asked);
    let server = start_server(&mock, callback);
    let mut session = spawn_claude_on_mcp_with(&env, &server, &["--resume", &session_id]);
    let result = run_turn(
        &mut session.claude,
        "Permission prompts work again: please retry what was denied.",
    )
    .await;

    assert_eq!(result["session_id"], session_id.as_str(), "{result}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "Hello\n");
    assert_eq!(calls.lock().unwrap().len(), 1);
    let retry = mock.requests()[2].clone();
    assert!(
        retry.contains("Please create hello.txt"),
        "the resumed conversation keeps the first prompt"
    );
    session.claude.finish(STEP).await;
}

#[tokio::test]
async fn a_session_rule_given_with_an_allow_spares_the_next_ask() {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    let (a, b) = (env.work_dir().join("a.txt"), env.work_dir().join("b.txt"));
    mock.push_rule(Rule::on_prompt(
        "two files",
        Reply::tool_use("Write", json!({"file_path": a, "content": "a\n"})),
    ));
    mock.push_rule(
        Rule::on_tool_result_containing(
            "a.txt",
            Reply::tool_use("Write", json!({"file_path": b, "content": "b\n"})),
        )
        .once(),
    );
    mock.push_rule(Rule::on_tool_result(Reply::text("Both written.")));
    let (callback, calls) = recording(|call| PermissionDecision::Allow {
        updated_input: call.input.clone(),
        updated_permissions: vec![
            serde_json::from_value(json!({"type": "addRules",
            "rules": [{"toolName": "Write"}], "behavior": "allow", "destination": "session"}))
            .unwrap(),
        ],
    });
    let server = start_server(&mock, callback);
    let mut session = spawn_claude_on_mcp(&env, &server);

    let result = run_turn(&mut session.claude, "Please write two files").await;

    assert_eq!(result["result"], "Both written.", "{result}");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "a\n");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "b\n");
    let calls = calls.lock().unwrap().clone();
    assert_eq!(
        calls.len(),
        1,
        "the second Write must not be asked: {calls:?}"
    );
    assert_eq!(calls[0].input["file_path"], json!(a));
    session.claude.finish(STEP).await;
}

#[tokio::test]
async fn a_deny_with_interrupt_stops_the_turn() {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    let target = script_write(&mock, &env, "Hello\n");
    let (callback, _calls) = recording(|_| PermissionDecision::Deny {
        message: "The user cancelled".into(),
        interrupt: true,
    });
    let server = start_server(&mock, callback);
    let mut session = spawn_claude_on_mcp(&env, &server);

    let result = run_turn(&mut session.claude, "Please create hello.txt").await;

    assert!(!target.exists());
    assert_eq!(
        mock.requests().len(),
        1,
        "the model is not called again after an interrupting deny: {result}"
    );
    assert_eq!(result["subtype"], "error_during_execution", "{result}");
    session.claude.finish(STEP).await;
}

#[tokio::test]
async fn a_persistent_rule_given_with_an_allow_is_saved_to_the_project_settings() {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    script_write(&mock, &env, "Hello\n");
    let (callback, _calls) = recording(|call| PermissionDecision::Allow {
        updated_input: call.input.clone(),
        updated_permissions: vec![
            serde_json::from_value(json!({"type": "addRules",
            "rules": [{"toolName": "Write"}], "behavior": "allow", "destination": "localSettings"}))
            .unwrap(),
        ],
    });
    let server = start_server(&mock, callback);
    let mut session = spawn_claude_on_mcp(&env, &server);

    run_turn(&mut session.claude, "Please create hello.txt").await;

    let settings = env.work_dir().join(".claude/settings.local.json");
    let saved = std::fs::read_to_string(&settings).expect("settings.local.json written");
    let saved: Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(saved["permissions"]["allow"], json!(["Write"]), "{saved}");
    session.claude.finish(STEP).await;
}

/// Runs one turn where the model calls `tool` with `input` on the stdio channel, denying every ask,
/// and returns the detector's verdicts.
async fn stdio_turn_symptoms(
    mode: &str,
    settings: Option<Value>,
    tool: &str,
    input: Value,
) -> Vec<BreakSymptom> {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    if let Some(settings) = settings {
        let dir = env.work_dir().join(".claude");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("settings.json"), settings.to_string()).unwrap();
    }
    mock.push_rule(Rule::on_prompt("go on", Reply::tool_use(tool, input)));
    mock.push_rule(Rule::on_tool_result(Reply::text("Done.")));
    let mut claude = StreamJsonProcess::spawn(env.claude_stream_json(["--permission-mode", mode]));
    claude.send_user_text("go on").await;
    let mut detector = BreakDetector::new();
    let mut symptoms = Vec::new();
    loop {
        let message = claude.next_message(STEP).await.expect("claude's output");
        symptoms.extend(detector.on_message(&ClaudeMessage::from_value(message.clone()).unwrap()));
        if message["type"] == "control_request" {
            let id = message["request_id"].as_str().unwrap().to_owned();
            claude
                .answer_control(&id, json!({"behavior": "deny", "message": "Not now."}))
                .await;
        }
        if is_result(&message) {
            break;
        }
    }
    claude.finish(STEP).await;
    symptoms
}

#[tokio::test]
async fn the_users_own_modes_and_rules_are_not_breaks() {
    let write = |name: &str| json!({"file_path": format!("/nonexistent/{name}"), "content": "x"});
    let touch = json!({"command": "touch /nonexistent/never", "description": "Touch a file"});
    let deny_touch = json!({"permissions": {"deny": ["Bash(touch:*)"]}});
    let cases = [
        (
            "plan mode, asked and denied",
            "plan",
            None,
            "Write",
            write("plan.txt"),
        ),
        (
            "dontAsk mode",
            "dontAsk",
            None,
            "Write",
            write("dont_ask.txt"),
        ),
        ("a deny rule", "default", Some(deny_touch), "Bash", touch),
    ];
    for (case, mode, settings, tool, input) in cases {
        let symptoms = stdio_turn_symptoms(mode, settings, tool, input).await;
        assert!(symptoms.is_empty(), "{case}: {symptoms:?}");
    }
}
