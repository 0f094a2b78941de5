//! ACP v2 beside v1 from the same build: an editor asking for v2 at `initialize` is served v2
//! (its prompt answered as soon as the prompt is in, with its message's id, the turn reported as
//! `state_update`s), every other v1; `--protocol` narrows that. Every v2 message the adapter
//! writes is checked against the v2 JSON schema the pinned schema crate derives.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::standin::Standin;
use crate::support::v2_schema::v2_violations;

const WAIT: Duration = Duration::from_secs(10);

pub(super) fn v2_initialize() -> Value {
    json!({
        "protocolVersion": 2,
        "info": {"name": "v2-test-editor", "version": "1.0.0"},
        "capabilities": {},
    })
}

pub(super) async fn v2_session(c: &AcpClient, s: &Standin) -> (Value, Value) {
    let init = c.request("initialize", v2_initialize()).await.unwrap();
    let session = c
        .request("session/new", json!({"cwd": s.work}))
        .await
        .unwrap();
    (init, session)
}

pub(super) fn prompt(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

/// The session's updates as `kind` or `kind:state`, in order.
fn update_kinds(c: &AcpClient, session: &str) -> Vec<String> {
    c.updates(session)
        .iter()
        .map(|u| match u["state"].as_str() {
            Some(state) => format!("state_update:{state}"),
            None => u["sessionUpdate"].as_str().unwrap_or("?").to_owned(),
        })
        .collect()
}

pub(super) async fn wait_idle(c: &AcpClient, session: &str, count: usize) -> Vec<Value> {
    let idles = || {
        c.updates(session)
            .into_iter()
            .filter(|u| u["sessionUpdate"] == "state_update" && u["state"] == "idle")
            .collect::<Vec<_>>()
    };
    let deadline = tokio::time::Instant::now() + WAIT;
    while idles().len() < count {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no idle state_update: {:?}\n{}",
            update_kinds(c, session),
            c.diagnostics()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    idles()
}

#[tokio::test]
async fn a_v2_client_gets_v2_and_its_prompt_answered_at_once_then_the_turn_as_states() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    let (init, session) = v2_session(&c, &s).await;
    assert_eq!(init["protocolVersion"], 2, "{init}");
    assert_eq!(init["info"]["name"], "claude-acp", "{init}");
    assert!(init["capabilities"]["session"].is_object(), "{init}");
    let id = session["sessionId"].as_str().unwrap().to_owned();
    let mode = session["configOptions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["configId"] == "mode");
    assert!(mode.is_some(), "the mode is a config option: {session}");

    let answer = c
        .request("session/prompt", prompt(&id, "hello"))
        .await
        .unwrap();
    let message_id = answer["messageId"]
        .as_str()
        .expect("a messageId")
        .to_owned();
    let idle = wait_idle(&c, &id, 1).await;
    assert_eq!(idle[0]["stopReason"], "end_turn", "{idle:?}");
    assert!(
        idle[0]["usage"]["totalTokens"].as_u64() > Some(0),
        "{idle:?}"
    );

    let updates = c.updates(&id);
    let user = updates
        .iter()
        .find(|u| u["sessionUpdate"] == "user_message")
        .expect("the prompt's user_message");
    assert_eq!(user["messageId"], message_id.as_str());
    assert_eq!(user["content"][0]["text"], "hello");
    let kinds = update_kinds(&c, &id);
    let at = |k: &str| kinds.iter().position(|x| x == k).unwrap();
    assert!(
        at("user_message") < at("state_update:running")
            && at("state_update:running") < at("agent_message_chunk")
            && at("agent_message_chunk") < at("state_update:idle"),
        "{kinds:?}"
    );
    let chunk = updates
        .iter()
        .find(|u| u["sessionUpdate"] == "agent_message_chunk")
        .unwrap();
    assert_eq!(chunk["content"]["text"], "Hello from the mock model!");
    assert!(chunk["messageId"].is_string(), "{chunk}");

    let providers = c.request("providers/list", json!({})).await.unwrap();
    assert_eq!(
        providers["providers"][0]["providerId"], "main",
        "{providers}"
    );
    let violations = v2_violations(
        &c,
        &id,
        &[
            ("initialize", &init),
            ("session/new", &session),
            ("session/prompt", &answer),
            ("providers/list", &providers),
        ],
    );
    assert!(violations.is_empty(), "{violations:#?}");
}

#[tokio::test]
async fn a_cancel_ends_the_v2_turn_cancelled_and_the_prompts_still_queued_get_32800() {
    let s = Standin::new("queued_cancel");
    let c = s.adapter(&[]);
    let (_, session) = v2_session(&c, &s).await;
    let id = session["sessionId"].as_str().unwrap().to_owned();
    let first = c
        .request("session/prompt", prompt(&id, "prompt one"))
        .await
        .unwrap();
    assert!(first["messageId"].is_string(), "{first}");
    c.wait_for_update(
        |u| u["update"]["sessionUpdate"] == "agent_message_chunk",
        WAIT,
    )
    .await;
    // v2's prompt request has v1's shape.
    let second = c.send_prompt(&id, "prompt two").await;
    let third = c.send_prompt(&id, "prompt three").await;
    // Both reach claude's queue before the cancel does.
    tokio::time::sleep(Duration::from_millis(300)).await;
    c.notify("session/cancel", json!({"sessionId": id})).await;
    let (second, third) = tokio::join!(second, third);
    for queued in [second, third] {
        let error = queued.expect_err("a prompt cancelled while queued is refused");
        assert_eq!(error.code, -32800, "{error:?}");
    }
    let idle = wait_idle(&c, &id, 1).await;
    assert_eq!(idle[0]["stopReason"], "cancelled", "{idle:?}");
    let users = c
        .updates(&id)
        .into_iter()
        .filter(|u| u["sessionUpdate"] == "user_message")
        .count();
    assert_eq!(users, 1, "only the prompt that ran is in the conversation");
    let violations = v2_violations(&c, &id, &[]);
    assert!(violations.is_empty(), "{violations:#?}");
}

#[tokio::test]
async fn a_v1_client_of_the_same_build_is_served_v1() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    let init = c.initialize().await;
    assert_eq!(init["protocolVersion"], 1, "{init}");
    assert!(init["agentCapabilities"].is_object(), "{init}");
    let id = c.new_session(&s.work).await;
    let answer = c.prompt(&id, "hello").await.unwrap();
    assert_eq!(answer["stopReason"], "end_turn", "{answer}");
    assert_eq!(c.agent_text(&id), "Hello from the mock model!");
    let kinds = update_kinds(&c, &id);
    assert!(
        !kinds
            .iter()
            .any(|k| k.starts_with("state_update") || k == "user_message"),
        "v1 has no turn states: {kinds:?}"
    );
}

#[tokio::test]
async fn protocol_v1_answers_a_v2_client_in_v1_and_protocol_v2_refuses_a_v1_client() {
    let s = Standin::new("text");
    let v1_only = s.adapter(&["--protocol", "v1"]);
    let init = v1_only
        .request("initialize", v2_initialize())
        .await
        .unwrap();
    assert_eq!(init["protocolVersion"], 1, "{init}");

    let v2_only = s.adapter_with_env(&[], &[("CLAUDE_ACP_PROTOCOL", "v2")]);
    let refused = v2_only
        .request(
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": {}}),
        )
        .await
        .expect_err("a v1 client is refused");
    assert_eq!(refused.code, -32022, "{refused:?}");
    // The same connection still takes a v2 client's initialize.
    let init = v2_only
        .request("initialize", v2_initialize())
        .await
        .unwrap();
    assert_eq!(init["protocolVersion"], 2, "{init}");
}

#[test]
fn a_bad_protocol_value_stops_the_program_at_start_with_a_message() {
    let out = std::process::Command::new(crate::support::adapter())
        .args(["--protocol", "v3"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--protocol") && stderr.contains("v3") && stderr.contains("auto"),
        "{stderr}"
    );
}

/// A v2 session on `fixture` whose editor answers every permission request with `option`.
async fn v2_session_answering(fixture: &str, option: &'static str) -> (Standin, AcpClient, String) {
    let s = Standin::new(fixture);
    let c = s.adapter(&[]);
    let (_, session) = v2_session(&c, &s).await;
    c.on_request("session/request_permission", move |_| {
        Ok(json!({"outcome": {"outcome": "selected", "optionId": option}}))
    });
    (s, c, session["sessionId"].as_str().unwrap().to_owned())
}

#[tokio::test]
async fn a_v2_permission_request_has_its_title_and_subject_and_the_turn_requires_action_meanwhile()
{
    let (s, c, id) = v2_session_answering("write_allow", "allow_once").await;
    c.request("session/prompt", prompt(&id, "Please create hello.txt"))
        .await
        .unwrap();
    let idle = wait_idle(&c, &id, 1).await;
    assert_eq!(idle[0]["stopReason"], "end_turn", "{idle:?}");
    assert_eq!(
        std::fs::read_to_string(s.work.join("hello.txt")).unwrap(),
        "Hello, world!\n"
    );
    let asks = c.requests();
    let ask = asks
        .iter()
        .find(|r| r.method == "session/request_permission")
        .expect("a permission request");
    assert_eq!(
        ask.params["title"], "Allow Write hello.txt?",
        "{}",
        ask.params
    );
    let subject = &ask.params["subject"];
    assert_eq!(subject["type"], "tool_call");
    assert!(ask.params.get("toolCall").is_none(), "v1's field is gone");
    let change = &subject["toolCall"]["content"][0];
    assert_eq!(change["type"], "diff");
    assert_eq!(
        change["changes"][0],
        json!({"operation": "add", "path": s.work.join("hello.txt"), "fileType": "text"})
    );
    let patch = change["patch"]["text"].as_str().unwrap();
    assert!(
        patch.contains("new file mode 100644") && patch.contains("+Hello, world!"),
        "{patch}"
    );
    let kinds: Vec<String> = update_kinds(&c, &id)
        .into_iter()
        .filter(|k| k.starts_with("state_update"))
        .collect();
    assert_eq!(
        kinds,
        [
            "state_update:running",
            "state_update:requires_action",
            "state_update:running",
            "state_update:idle"
        ]
    );
    assert!(
        update_kinds(&c, &id).iter().all(|k| k != "tool_call"),
        "v2 has tool_call_update only"
    );
    let violations = v2_violations(&c, &id, &[]);
    assert!(violations.is_empty(), "{violations:#?}");
}

#[tokio::test]
async fn a_v2_permission_request_dismissed_is_a_reject_and_nothing_is_written() {
    let s = Standin::new("write_deny");
    let c = s.adapter(&[]);
    let (_, session) = v2_session(&c, &s).await;
    let id = session["sessionId"].as_str().unwrap().to_owned();
    // v2 adds outcomes v1 lacks; anything but a selected option is no approval.
    c.on_request("session/request_permission", |_| {
        Ok(json!({"outcome": {"outcome": "dismissed"}}))
    });
    c.request("session/prompt", prompt(&id, "Please create hello.txt"))
        .await
        .unwrap();
    wait_idle(&c, &id, 1).await;
    assert!(!s.work.join("hello.txt").exists());
    let reply = s
        .received()
        .into_iter()
        .find(|l| l["type"] == "control_response")
        .map(|l| l["response"]["response"].clone())
        .expect("claude got an answer");
    assert_eq!(reply["behavior"], "deny", "{reply}");
}

#[tokio::test]
async fn v2_resume_with_replay_tells_the_stored_thread_first_and_without_it_just_continues() {
    let s = Standin::new("text");
    let config = s.dir().join("claude-config");
    crate::support::history::install_fixture(
        &config,
        &s.work,
        crate::support::history::FIXTURE_SESSION_ID,
    );
    let c = s.adapter_with_env(&[], &[("CLAUDE_CONFIG_DIR", config.to_str().unwrap())]);
    c.request("initialize", v2_initialize()).await.unwrap();
    let id = crate::support::history::FIXTURE_SESSION_ID;
    let resumed = c
        .request(
            "session/resume",
            json!({"sessionId": id, "cwd": s.work, "replayFrom": {"type": "start"}}),
        )
        .await
        .unwrap();
    assert!(resumed["configOptions"].is_array(), "{resumed}");
    let replayed = c.updates(id);
    // Marked once, after the thread's last update; the live session's own updates follow it.
    let marks: Vec<usize> = (0..replayed.len())
        .filter(|&i| replayed[i]["sessionUpdate"] == "replay_complete")
        .collect();
    let thread_end = replayed.iter().rposition(|u| {
        let kind = u["sessionUpdate"].as_str().unwrap_or_default();
        kind.ends_with("_chunk") || kind.starts_with("tool_call")
    });
    assert_eq!(marks.len(), 1, "replay_complete once: {replayed:#?}");
    assert!(
        Some(marks[0]) > thread_end,
        "after the thread: {replayed:#?}"
    );
    let users: Vec<&Value> = replayed
        .iter()
        .filter(|u| u["sessionUpdate"] == "user_message_chunk")
        .collect();
    assert_eq!(
        users[0]["content"]["text"],
        "Create notes.txt with two lines, then show it."
    );
    // Each message is named as the live turn named it: a prompt by the uuid claude stored it
    // under (the one it was written with), claude's blocks by API message and block.
    assert_eq!(
        users[0]["messageId"],
        "a6b4859f-b18b-419a-ac7d-01dffe3a5be9"
    );
    let named = |kind: &str| -> Vec<Value> {
        replayed
            .iter()
            .filter(|u| u["sessionUpdate"] == kind)
            .map(|u| u["messageId"].clone())
            .take(1)
            .collect()
    };
    assert_eq!(
        (named("agent_thought_chunk"), named("agent_message_chunk")),
        (
            vec![json!("msg_mock_e3a6bfdf241447c19cce:0")],
            vec![json!("msg_mock_e3a6bfdf241447c19cce:1")]
        )
    );
    assert!(
        replayed
            .iter()
            .any(|u| u["sessionUpdate"] == "tool_call_update"),
        "{replayed:?}"
    );
    let violations = v2_violations(&c, id, &[("session/resume", &resumed)]);
    assert!(violations.is_empty(), "{violations:#?}");
    let answer = c
        .request("session/prompt", prompt(id, "and now?"))
        .await
        .unwrap();
    assert!(answer["messageId"].is_string());
    assert_eq!(wait_idle(&c, id, 1).await[0]["stopReason"], "end_turn");

    // Without a replay, in a new process: nothing of the thread is told.
    let c = s.adapter_with_env(&[], &[("CLAUDE_CONFIG_DIR", config.to_str().unwrap())]);
    c.request("initialize", v2_initialize()).await.unwrap();
    c.request("session/resume", json!({"sessionId": id, "cwd": s.work}))
        .await
        .unwrap();
    assert!(
        c.updates(id)
            .iter()
            .all(|u| u["sessionUpdate"] != "user_message_chunk"
                && u["sessionUpdate"] != "replay_complete"),
        "no replay without replayFrom, and no mark of one"
    );
    let bad = c
        .request(
            "session/resume",
            json!({"sessionId": id, "cwd": s.work, "replayFrom": {"type": "message", "messageId": "m"}}),
        )
        .await
        .expect_err("an unsupported cursor is refused");
    assert_eq!(bad.code, -32602, "{bad:?}");
}

#[tokio::test]
async fn a_v2_client_declaring_forms_gets_askuserquestion_as_one_form_while_the_turn_requires_action()
 {
    let s = Standin::new("ask_user_question");
    let c = s.adapter(&[]);
    let mut init = v2_initialize();
    init["capabilities"] = json!({"elicitation": {"form": {}}});
    c.request("initialize", init).await.unwrap();
    let session = c
        .request("session/new", json!({"cwd": s.work}))
        .await
        .unwrap();
    let id = session["sessionId"].as_str().unwrap().to_owned();
    c.on_request("elicitation/create", |_| {
        Ok(json!({"action": "accept",
                  "content": {"question_1": "Red", "question_2": ["Small", "Large"]}}))
    });
    c.request("session/prompt", prompt(&id, "ask me"))
        .await
        .unwrap();
    assert_eq!(wait_idle(&c, &id, 1).await[0]["stopReason"], "end_turn");
    let forms: Vec<_> = c
        .requests()
        .into_iter()
        .filter(|r| r.method == "elicitation/create")
        .collect();
    assert_eq!(forms.len(), 1, "one form for both questions");
    assert_eq!(forms[0].params["mode"], "form");
    // v2's type reads it (its schema uses `unevaluatedProperties`, which the validator lacks).
    let read: Result<agent_client_protocol_schema::v2::CreateElicitationRequest, _> =
        serde_json::from_value(forms[0].params.clone());
    assert!(read.is_ok(), "{read:?}: {}", forms[0].params);
    let reply = s
        .received()
        .into_iter()
        .find(|l| l["type"] == "control_response")
        .map(|l| l["response"]["response"].clone())
        .expect("claude got an answer");
    assert_eq!(
        reply["updatedInput"]["answers"],
        json!({"Which color should the button be?": "Red",
               "Which sizes do you need?": "Small, Large"})
    );
    let states: Vec<String> = update_kinds(&c, &id)
        .into_iter()
        .filter(|k| k.starts_with("state_update"))
        .collect();
    assert_eq!(
        states,
        [
            "state_update:running",
            "state_update:requires_action",
            "state_update:running",
            "state_update:idle"
        ]
    );
    assert!(v2_violations(&c, &id, &[]).is_empty());
}

#[tokio::test]
async fn a_v2_edit_is_a_modified_file_and_claudes_reason_for_asking_is_the_description() {
    let s = Standin::new("bash_edit");
    std::fs::create_dir_all(s.work.join("src")).unwrap();
    let c = s.adapter(&[]);
    let (_, session) = v2_session(&c, &s).await;
    let id = session["sessionId"].as_str().unwrap().to_owned();
    c.on_request("session/request_permission", |params| {
        let allow = params["options"]
            .as_array()
            .and_then(|o| o.iter().find(|o| o["kind"] == "allow_once"))
            .map(|o| o["optionId"].clone())
            .expect("an allow option");
        Ok(json!({"outcome": {"outcome": "selected", "optionId": allow}}))
    });
    c.request("session/prompt", prompt(&id, "please fix main"))
        .await
        .unwrap();
    assert_eq!(wait_idle(&c, &id, 1).await[0]["stopReason"], "end_turn");
    let asks: Vec<Value> = c
        .requests()
        .into_iter()
        .filter(|r| r.method == "session/request_permission")
        .map(|r| r.params)
        .collect();
    let edit = asks
        .iter()
        .find(|a| a["title"] == "Allow Edit src/main.rs?")
        .unwrap_or_else(|| panic!("{asks:#?}"));
    let change = &edit["subject"]["toolCall"]["content"][0];
    assert_eq!(change["changes"][0]["operation"], "modify", "{change}");
    let patch = change["patch"]["text"].as_str().unwrap();
    assert!(
        patch.contains("-println!(\"hello\");") && patch.contains("+println!(\"hello, world\");"),
        "{patch}"
    );
    let bash = asks
        .iter()
        .find(|a| a["title"].as_str().is_some_and(|t| t.contains("python3")))
        .unwrap_or_else(|| panic!("{asks:#?}"));
    assert_eq!(bash["description"], "This command requires approval");
    let violations = v2_violations(&c, &id, &[]);
    assert!(violations.is_empty(), "{violations:#?}");
}
