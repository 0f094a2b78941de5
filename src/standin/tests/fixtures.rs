//! Plays every fixture script end to end against the test driver.

use super::driver::{Answer, Driver, fixture, play, results, texts};
use crate::standin::*;
use serde_json::{Value, json};

#[tokio::test]
async fn the_demo_writes_hello_txt_when_allowed_and_not_when_denied() {
    let (dir, turns) = play(
        "demo.jsonl",
        &[],
        &[
            ("make a file", Answer::Deny("not now")),
            ("make a file", Answer::Allow),
        ],
    )
    .await;
    assert_eq!(
        results(&turns[0])[0]["permission_denials"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let denied = turns[0]
        .iter()
        .find(|l| l["tool_use_result"].is_string())
        .unwrap();
    assert_eq!(denied["message"]["content"][0]["content"], "not now");
    let written = std::fs::read_to_string(dir.path().join("hello.txt")).unwrap();
    assert!(written.starts_with("Hello from claude-acp!"), "{written}");
    assert_eq!(
        texts(&turns[1]),
        [
            "I'll create hello.txt for you.",
            "Created hello.txt. Open it to see the greeting."
        ]
    );
    let ask_ids: Vec<&Value> = turns
        .iter()
        .flatten()
        .filter(|l| l["request"]["subtype"] == "can_use_tool")
        .flat_map(|l| [&l["request_id"], &l["request"]["tool_use_id"]])
        .collect();
    assert_eq!(ask_ids.len(), 4);
    assert!(
        ask_ids[0] != ask_ids[2] && ask_ids[1] != ask_ids[3],
        "each turn has fresh ids: {ask_ids:?}"
    );
    assert!(
        !turns[1].iter().any(|l| l["type"] == "stream_event"),
        "no deltas without the flag"
    );
}

#[tokio::test]
async fn the_demo_streams_deltas_only_with_partial_messages() {
    let (_dir, turns) = play(
        "demo.jsonl",
        &["--include-partial-messages"],
        &[("go", Answer::Allow)],
    )
    .await;
    let deltas: String = turns[0]
        .iter()
        .filter_map(|l| l["event"]["delta"]["text"].as_str())
        .collect::<Vec<_>>()
        .concat();
    assert_eq!(
        deltas,
        "I'll create hello.txt for you.Created hello.txt. Open it to see the greeting."
    );
}

#[tokio::test]
async fn write_allow_writes_what_the_adapter_allowed_and_deny_echoes_the_message() {
    let (dir, turns) = play(
        "write_allow.jsonl",
        &[],
        &[("Please create hello.txt", Answer::Allow)],
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("hello.txt")).unwrap(),
        "Hello, world!\n"
    );
    assert_eq!(results(&turns[0])[0]["subtype"], "success");

    let (dir, turns) = play(
        "write_deny.jsonl",
        &[],
        &[("Please create hello.txt", Answer::Deny("nope, not today"))],
    )
    .await;
    assert!(!dir.path().join("hello.txt").exists());
    let result = turns[0]
        .iter()
        .find(|l| l["tool_use_result"].is_string())
        .unwrap();
    assert_eq!(
        result["message"]["content"][0]["content"],
        "nope, not today"
    );
    assert_eq!(result["tool_use_result"], "Error: nope, not today");
}

#[tokio::test]
async fn bash_edit_writes_what_the_allowed_tools_wrote() {
    let (dir, turns) = play(
        "bash_edit.jsonl",
        &[],
        &[("please fix main", Answer::Allow)],
    )
    .await;
    let main = std::fs::read_to_string(dir.path().join("src/main.rs")).unwrap();
    assert!(main.contains("hello, world"), "{main}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("build.log")).unwrap(),
        "built\n"
    );
    let asks = turns[0]
        .iter()
        .filter(|l| l["request"]["subtype"] == "can_use_tool")
        .count();
    assert_eq!(asks, 3);
}

#[tokio::test]
async fn plain_fixtures_play_through() {
    for (name, prompts, args) in [
        ("text.jsonl", 2, &[][..]),
        (
            "partial_messages.jsonl",
            1,
            &["--include-partial-messages"][..],
        ),
        ("partial_messages.jsonl", 1, &[][..]),
        ("bash_edit.jsonl", 1, &[][..]),
        ("ask_user_question.jsonl", 1, &[][..]),
        ("todowrite.jsonl", 1, &[][..]),
        ("task_tools.jsonl", 1, &[][..]),
        ("max_tokens.jsonl", 1, &[][..]),
        ("error_result.jsonl", 1, &[][..]),
        ("garbage.jsonl", 1, &[][..]),
        ("exit_plan_mode.jsonl", 1, &[][..]),
    ] {
        let prompts: Vec<(&str, Answer)> = (0..prompts).map(|_| ("go on", Answer::Allow)).collect();
        let (_dir, turns) = play(name, args, &prompts).await;
        assert_eq!(turns.len(), prompts.len(), "{name}");
        let has_stream = turns.iter().flatten().any(|l| l["type"] == "stream_event");
        assert_eq!(
            has_stream,
            args.contains(&"--include-partial-messages"),
            "{name}"
        );
    }
}

#[tokio::test]
async fn result_variants_carry_what_the_cli_reports() {
    let (_d, turns) = play("error_result.jsonl", &[], &[("x", Answer::Allow)]).await;
    let result = results(&turns[0])[0];
    assert_eq!(result["is_error"], true);
    assert!(
        result["result"]
            .as_str()
            .unwrap()
            .starts_with("API Error: 529")
    );

    let (_d, turns) = play(
        "max_tokens.jsonl",
        &["--include-partial-messages"],
        &[("x", Answer::Allow)],
    )
    .await;
    assert_eq!(results(&turns[0])[0]["stop_reason"], "max_tokens");
    assert!(
        turns[0]
            .iter()
            .any(|l| l["event"]["delta"]["stop_reason"] == "max_tokens")
    );

    let (_d, turns) = play("garbage.jsonl", &[], &[("x", Answer::Allow)]).await;
    assert!(turns[0].contains(&json!("this is not json {")));
    assert!(turns[0].iter().any(|l| l["type"] == "rate_limit_event"));
}

#[tokio::test]
async fn exit_plan_mode_approval_switches_back_to_default_mode() {
    let (_d, turns) = play(
        "exit_plan_mode.jsonl",
        &["--permission-mode", "plan"],
        &[("plan it", Answer::Allow)],
    )
    .await;
    let init = turns[0].iter().find(|l| l["subtype"] == "init").unwrap();
    assert_eq!(init["permissionMode"], "plan");
    assert!(
        turns[0]
            .iter()
            .any(|l| l["subtype"] == "status" && l["permissionMode"] == "default")
    );
    let (_d, turns) = play(
        "exit_plan_mode.jsonl",
        &[],
        &[("plan it", Answer::Deny("keep planning"))],
    )
    .await;
    assert_eq!(
        texts(&turns[0]).last().unwrap(),
        "OK, staying in plan mode."
    );
}

#[tokio::test]
async fn set_permission_mode_is_acked_and_announced() {
    let dir = tempfile::tempdir().unwrap();
    let mut driver = Driver::start(
        Script::load(fixture("permission_mode.jsonl")).unwrap(),
        &[],
        dir.path(),
    );
    driver.initialize().await;
    driver
        .control(json!({"subtype":"set_permission_mode","mode":"acceptEdits"}))
        .await;
    assert_eq!(
        driver.next().await.unwrap()["response"],
        json!({"subtype":"success","request_id":"drv-2","response":{"mode":"acceptEdits"}})
    );
    assert_eq!(
        driver.next().await.unwrap()["permissionMode"],
        "acceptEdits"
    );
    let first = driver.turn("write one", Answer::Allow, None).await;
    assert_eq!(
        first
            .iter()
            .filter(|l| l["request"]["subtype"] == "can_use_tool")
            .count(),
        1
    );
    driver
        .control(json!({"subtype":"set_permission_mode","mode":"default"}))
        .await;
    assert_eq!(
        driver.next().await.unwrap()["response"]["response"],
        json!({"mode":"default"})
    );
    assert_eq!(driver.next().await.unwrap()["permissionMode"], "default");
    driver.turn("write three", Answer::Allow, None).await;
    assert_eq!(driver.finish().await.0, 0);
}

#[tokio::test]
async fn an_interrupt_mid_stream_aborts_the_turn_and_the_next_prompt_works() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::load(fixture("interrupt.jsonl")).unwrap();
    let mut driver = Driver::start(script, &["--include-partial-messages"], dir.path());
    driver.initialize().await;
    let first = driver
        .turn("tell me a long story", Answer::Allow, Some(3))
        .await;
    assert!(
        first
            .iter()
            .any(|l| l["response"]["response"] == json!({"still_queued": []}))
    );
    assert!(first.iter().any(|l| l["aborted"] == true));
    assert!(
        first
            .iter()
            .any(|l| l["message"]["content"][0]["text"] == "[Request interrupted by user]")
    );
    assert_eq!(results(&first)[0]["subtype"], "error_during_execution");
    let second = driver.turn("hello again", Answer::Allow, None).await;
    assert_eq!(results(&second)[0]["subtype"], "success");
    assert_eq!(driver.finish().await.0, 0);
}

#[tokio::test]
async fn an_interrupt_with_a_pending_permission_cancels_the_request() {
    let dir = tempfile::tempdir().unwrap();
    let mut driver = Driver::start(
        Script::load(fixture("interrupt_permission.jsonl")).unwrap(),
        &[],
        dir.path(),
    );
    driver.initialize().await;
    let first = driver
        .turn("write hello.txt", Answer::Interrupt, None)
        .await;
    let asked = first
        .iter()
        .find(|l| l["request"]["subtype"] == "can_use_tool")
        .unwrap();
    assert!(
        first.contains(&json!({"type":"control_cancel_request","request_id":asked["request_id"]}))
    );
    assert_eq!(results(&first)[0]["terminal_reason"], "aborted_tools");
    driver.turn("next", Answer::Allow, None).await;
    assert_eq!(driver.finish().await.0, 0);
    assert!(!dir.path().join("hello.txt").exists());
}

#[tokio::test]
async fn resume_keeps_the_resumed_session_id() {
    let (_d, turns) = play(
        "resume.jsonl",
        &["--resume", "11111111-2222-4333-8444-555555555555"],
        &[("word?", Answer::Allow)],
    )
    .await;
    assert_eq!(
        results(&turns[0])[0]["session_id"],
        "11111111-2222-4333-8444-555555555555"
    );
}

#[tokio::test]
async fn a_crash_mid_turn_prints_stderr_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut driver = Driver::start(
        Script::load(fixture("crash.jsonl")).unwrap(),
        &[],
        dir.path(),
    );
    driver.initialize().await;
    driver.send(json!({"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]}})).await;
    let (code, stderr, lines) = driver.finish().await;
    assert_eq!(code, 1);
    assert!(stderr.contains("simulated crash"), "{stderr}");
    assert_eq!(results(&lines).len(), 0);
    assert_eq!(texts(&lines), ["Let me look"]);
}

#[tokio::test]
async fn the_big_tool_result_is_one_20_mib_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut driver = Driver::start(
        Script::load(fixture("big_tool_result.jsonl")).unwrap(),
        &[],
        dir.path(),
    );
    driver.initialize().await;
    let turn = driver.turn("read the log", Answer::Allow, None).await;
    let big = turn
        .iter()
        .find(|l| l["message"]["content"][0]["type"] == "tool_result")
        .unwrap();
    assert_eq!(big.to_string().len(), 20 * 1024 * 1024);
    assert_eq!(driver.finish().await.0, 0);
}

#[tokio::test]
async fn set_model_is_acked_and_the_next_turn_reports_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::load(fixture("set_model.jsonl")).unwrap();
    let mut driver = Driver::start(script, &[], dir.path());
    driver.initialize().await;
    driver
        .control(json!({"subtype":"set_model","model":"sonnet"}))
        .await;
    let ack = driver.next().await.unwrap();
    assert_eq!(
        ack["response"],
        json!({"subtype":"success","request_id":"drv-2"})
    );
    let turn = driver.turn("who are you?", Answer::Allow, None).await;
    let init = turn.iter().find(|l| l["subtype"] == "init").unwrap();
    assert_eq!(init["model"], "sonnet");
    let answer = turn.iter().find(|l| l["type"] == "assistant").unwrap();
    assert_eq!(answer["message"]["model"], "sonnet");
    assert_eq!(driver.finish().await.0, 0);
}

#[tokio::test]
async fn control_requests_a_fixture_does_not_list_get_the_idle_cli_answers() {
    let dir = tempfile::tempdir().unwrap();
    // Only where a script opts in: elsewhere such a request is a mismatch.
    let text = std::fs::read_to_string(fixture("text.jsonl")).unwrap();
    let script = format!("{{\"include\": \"control_defaults.jsonl\"}}\n{text}");
    let mut driver = Driver::start(Script::parse(&script).unwrap(), &[], dir.path());
    driver.initialize().await;
    driver
        .control(json!({"subtype":"set_permission_mode","mode":"acceptEdits"}))
        .await;
    assert_eq!(
        driver.next().await.unwrap()["response"]["response"],
        json!({"mode":"acceptEdits"})
    );
    assert_eq!(
        driver.next().await.unwrap()["permissionMode"],
        "acceptEdits"
    );
    driver
        .control(json!({"subtype":"set_model","model":"haiku"}))
        .await;
    assert_eq!(
        driver.next().await.unwrap()["response"]["request_id"],
        "drv-3"
    );
    let turn = driver.turn("hi", Answer::Allow, None).await;
    let init = turn.iter().find(|l| l["subtype"] == "init").unwrap();
    assert_eq!(
        (&init["permissionMode"], &init["model"]),
        (&json!("acceptEdits"), &json!("haiku"))
    );
    driver.control(json!({"subtype":"interrupt"})).await;
    assert_eq!(
        driver.next().await.unwrap()["response"]["response"],
        json!({"still_queued":[]})
    );
    driver.turn("again", Answer::Allow, None).await;
    assert_eq!(driver.finish().await.0, 0);
}
