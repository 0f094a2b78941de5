//! The mock API and the real pinned claude CLI work together, without the adapter: claude is spawned
//! directly in stream-json mode, offline, and answers from the mock's script.

use std::time::Duration;

use crate::support::mock_api::{Block, MockApi, NO_RULE_MATCHED, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use crate::support::stream_json::{StreamJsonProcess, kind, streamed_text};
use serde_json::{Value, json};

const STEP: Duration = Duration::from_secs(30);

fn spawn_claude(env: &ClaudeEnv) -> StreamJsonProcess {
    let session_id = uuid::Uuid::new_v4().to_string();
    StreamJsonProcess::spawn(env.claude_stream_json([
        "--include-partial-messages",
        "--session-id",
        &session_id,
    ]))
}

fn is_result(message: &Value) -> bool {
    message["type"] == "result"
}

#[tokio::test]
async fn a_prompt_reaches_the_mock_and_its_answer_streams_back() {
    let answer = "Hello from the scripted model, streamed in small pieces.";
    let mock = MockApi::start(vec![Rule::on_prompt(
        "say hello",
        Reply::blocks(vec![
            Block::Thinking("The user wants a greeting.".into()),
            Block::Text(answer.into()),
        ])
        .chunk_chars(5),
    )]);
    let env = ClaudeEnv::new(&mock);
    let mut claude = spawn_claude(&env);

    claude.send_user_text("please say hello").await;
    let result = claude.read_until("result", STEP, is_result).await;

    assert_eq!(result["subtype"], "success", "result: {result}");
    assert_eq!(result["result"], answer);
    let transcript = claude.transcript().to_vec();
    assert_eq!(streamed_text(&transcript), answer);
    let text_deltas = transcript
        .iter()
        .filter(|m| m["event"]["delta"]["type"] == "text_delta")
        .count();
    assert!(
        text_deltas >= 10,
        "answer should arrive in pieces, got {text_deltas}"
    );
    assert!(
        transcript
            .iter()
            .any(|m| m["event"]["delta"]["type"] == "thinking_delta"),
        "thinking should stream too: {:?}",
        transcript.iter().map(kind).collect::<Vec<_>>()
    );

    let requests = mock.requests();
    assert_eq!(requests.len(), 1, "one model call for one text answer");
    assert_eq!(
        requests[0].prompt_text().as_deref(),
        Some("please say hello")
    );
    assert!(requests[0].target.starts_with("/v1/messages"));
    assert!(
        mock.other_requests().is_empty(),
        "{:?}",
        mock.other_requests()
    );

    let status = claude.finish(STEP).await;
    assert!(status.success(), "claude exited with {status}");
}

#[tokio::test]
async fn an_allowed_write_creates_the_file_and_its_result_reaches_the_model() {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    let target = env.work_dir().join("hello.txt");
    mock.push_rule(Rule::on_prompt(
        "create hello.txt",
        Reply::blocks(vec![
            Block::Text("I'll create the file.".into()),
            Block::ToolUse {
                name: "Write".into(),
                input: json!({"file_path": target, "content": "Hello, world!\n"}),
            },
        ]),
    ));
    mock.push_rule(Rule::on_tool_result(Reply::text("Created hello.txt.")));
    let mut claude = spawn_claude(&env);

    claude.send_user_text("Please create hello.txt").await;
    let ask = claude
        .read_until("can_use_tool request", STEP, |m| {
            m["type"] == "control_request" && m["request"]["subtype"] == "can_use_tool"
        })
        .await;
    assert_eq!(ask["request"]["tool_name"], "Write");
    assert!(!target.exists(), "nothing may be written before the answer");
    let request_id = ask["request_id"].as_str().expect("request_id").to_string();
    claude
        .answer_control(&request_id, json!({"behavior": "allow"}))
        .await;
    let result = claude.read_until("result", STEP, is_result).await;

    assert_eq!(result["subtype"], "success", "result: {result}");
    assert_eq!(result["result"], "Created hello.txt.");
    assert_eq!(
        std::fs::read_to_string(&target).expect("hello.txt written"),
        "Hello, world!\n"
    );
    let tool_result = mock
        .last_tool_result_text()
        .expect("a tool_result reached the model");
    assert!(
        tool_result.contains("File created successfully"),
        "{tool_result}"
    );
    assert_eq!(mock.requests().len(), 2);

    let status = claude.finish(STEP).await;
    assert!(status.success(), "claude exited with {status}");
}

#[tokio::test]
async fn an_unscripted_prompt_gets_the_visible_default_answer() {
    let mock = MockApi::start(vec![Rule::on_prompt("never sent", Reply::text("unused"))]);
    let env = ClaudeEnv::new(&mock);
    let mut claude = spawn_claude(&env);

    claude.send_user_text("something nobody scripted").await;
    let result = claude.read_until("result", STEP, is_result).await;

    assert_eq!(result["result"], NO_RULE_MATCHED);
    assert_eq!(mock.requests()[0].matched_rule, None);
    claude.finish(STEP).await;
}

#[tokio::test]
async fn an_interrupt_mid_stream_ends_the_turn_and_the_next_prompt_works() {
    let mock = MockApi::start(vec![
        Rule::on_prompt(
            "long story",
            Reply::text("Once upon a time there was a mock that never finished.")
                .chunk_chars(4)
                .stall_after(6),
        ),
        Rule::on_prompt("hello again", Reply::text("Hi again.")),
    ]);
    let env = ClaudeEnv::new(&mock);
    let mut claude = spawn_claude(&env);

    claude.send_user_text("tell me a long story").await;
    claude
        .read_until("first text delta", STEP, |m| {
            m["event"]["delta"]["type"] == "text_delta"
        })
        .await;
    claude
        .send(
            &json!({"type": "control_request", "request_id": "test_interrupt",
                      "request": {"subtype": "interrupt"}}),
        )
        .await;
    let interrupted = claude.read_until("result", STEP, is_result).await;
    claude.send_user_text("hello again").await;
    let next = claude.read_until("result", STEP, is_result).await;

    assert_eq!(
        interrupted["subtype"], "error_during_execution",
        "{interrupted}"
    );
    assert_eq!(next["subtype"], "success", "{next}");
    assert_eq!(next["result"], "Hi again.");
    assert_eq!(mock.requests().len(), 2);
    claude.finish(STEP).await;
}

#[tokio::test]
async fn an_api_error_ends_the_turn_with_an_error_result_without_retries() {
    let mock = MockApi::start(vec![Rule::always(Reply::overloaded())]);
    let env = ClaudeEnv::new(&mock);
    let mut claude = spawn_claude(&env);

    claude.send_user_text("anything").await;
    let result = claude.read_until("result", STEP, is_result).await;

    // claude 2.1.332 reports it as subtype "success" with is_error and the API status.
    assert_eq!(result["is_error"], true, "{result}");
    assert_eq!(result["api_error_status"], 529, "{result}");
    assert!(
        result["result"].as_str().unwrap().contains("Overloaded"),
        "{result}"
    );
    assert_eq!(
        mock.requests().len(),
        1,
        "x-should-retry: false must stop retries"
    );
    claude.finish(STEP).await;
}

#[tokio::test]
async fn messages_sent_during_a_turn_run_as_one_turn_whose_result_names_them() {
    // What claude-acp's queue relies on: claude takes user messages while it works, runs those
    // that queued up as one turn, and names the messages each result answers by our `uuid`s.
    let mock = MockApi::start(vec![
        Rule::on_prompt(
            "first",
            Reply::text("Answer one, streamed slowly so that the others arrive meanwhile.")
                .chunk_chars(2)
                .chunk_delay(Duration::from_millis(30)),
        ),
        Rule::always(Reply::text("Answer two.")),
    ]);
    let env = ClaudeEnv::new(&mock);
    let mut claude = spawn_claude(&env);
    let user = |uuid: &str, text: &str| {
        json!({"type": "user", "uuid": uuid, "message": {"role": "user", "content": text},
               "parent_tool_use_id": null})
    };
    let (one, two, three) = (
        "11111111-1111-4111-8111-111111111111",
        "22222222-2222-4222-8222-222222222222",
        "33333333-3333-4333-8333-333333333333",
    );
    claude.send(&user(one, "first prompt")).await;
    claude
        .read_until("a text delta", STEP, |m| {
            m["event"]["delta"]["type"] == "text_delta"
        })
        .await;
    claude.send(&user(two, "second prompt")).await;
    claude.send(&user(three, "third prompt")).await;
    let first = claude.read_until("result", STEP, is_result).await;
    assert_eq!(first["user_message_uuids"], json!([one]), "{first}");
    let second = claude.read_until("result", STEP, is_result).await;
    assert_eq!(
        second["user_message_uuids"],
        json!([two, three]),
        "{second}"
    );
    assert_eq!(
        mock.requests().len(),
        2,
        "the two queued prompts went in one request"
    );
    let _ = claude.finish(STEP).await;
}
