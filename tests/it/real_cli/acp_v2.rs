//! ACP v2 with the real pinned claude CLI behind the built adapter, offline on the mock API: a v2
//! client's text turn (answered with its message's id, then the turn's states), a permissioned
//! Write that lands, a cancel mid-stream ending the turn `cancelled`, a stored session resumed
//! with its replay in a new process, and a v1 client served by the same build.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use crate::support::real_editor::write;
use crate::support::real_session::wait_until_stored;
use crate::support::v2_schema::v2_violations;

const STEP: Duration = Duration::from_secs(60);

fn adapter(env: &ClaudeEnv) -> AcpClient {
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(STEP);
    c
}

async fn v2_session(c: &AcpClient, env: &ClaudeEnv) -> String {
    let init = c
        .request(
            "initialize",
            json!({"protocolVersion": 2, "info": {"name": "v2-editor", "version": "1"}}),
        )
        .await
        .unwrap();
    assert_eq!(init["protocolVersion"], 2, "{init}");
    let session = c
        .request("session/new", json!({"cwd": env.work_dir()}))
        .await
        .unwrap();
    session["sessionId"].as_str().unwrap().to_owned()
}

fn prompt(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

/// Waits for the turn's `idle` and returns it.
async fn idle(c: &AcpClient, session: &str) -> Value {
    let session = session.to_owned();
    c.wait_for_update(
        move |u| {
            u["sessionId"] == session.as_str()
                && u["update"]["sessionUpdate"] == "state_update"
                && u["update"]["state"] == "idle"
        },
        STEP,
    )
    .await["update"]
        .clone()
}

/// The `messageId`s of the session's updates of `kind`, each once, in order.
fn message_ids(c: &AcpClient, session: &str, kind: &str) -> Vec<Value> {
    let mut ids: Vec<Value> = Vec::new();
    for update in c.updates_of_kind(session, kind) {
        if !ids.contains(&update["messageId"]) {
            ids.push(update["messageId"].clone());
        }
    }
    ids
}

fn states(c: &AcpClient, session: &str) -> Vec<String> {
    c.updates(session)
        .into_iter()
        .filter(|u| u["sessionUpdate"] == "state_update")
        .map(|u| u["state"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn a_v2_client_gets_a_text_turn_and_a_permissioned_write_from_the_real_claude() {
    let mock = MockApi::start(vec![Rule::on_prompt(
        "greet",
        Reply::text("Hi from the mock."),
    )]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    let id = v2_session(&c, &env).await;

    let answer = c
        .request("session/prompt", prompt(&id, "greet me"))
        .await
        .unwrap();
    let message_id = answer["messageId"]
        .as_str()
        .expect("a messageId")
        .to_owned();
    let end = idle(&c, &id).await;
    assert_eq!(end["stopReason"], "end_turn", "{end}");
    assert!(end["usage"]["outputTokens"].as_u64() > Some(0), "{end}");
    let updates = c.updates(&id);
    let user = updates
        .iter()
        .find(|u| u["sessionUpdate"] == "user_message")
        .expect("the prompt's user_message");
    assert_eq!(user["messageId"], message_id.as_str());
    let text: String = updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|u| u["content"]["text"].as_str())
        .collect();
    assert_eq!(text, "Hi from the mock.");

    let path = env.work_dir().join("hello.txt");
    mock.push_rule(Rule::on_prompt("create", write(&path, "Hello, world!\n")));
    mock.push_rule(Rule::on_tool_result(Reply::text("Done.")));
    c.on_request("session/request_permission", |params| {
        let allow = params["options"]
            .as_array()
            .and_then(|o| o.iter().find(|o| o["kind"] == "allow_once"))
            .map(|o| o["optionId"].clone())
            .expect("an allow option");
        Ok(json!({"outcome": {"outcome": "selected", "optionId": allow}}))
    });
    let before = states(&c, &id).len();
    c.request("session/prompt", prompt(&id, "please create hello.txt"))
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + STEP;
    while states(&c, &id).len() < before + 4 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{:?}",
            states(&c, &id)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        states(&c, &id)[before..],
        ["running", "requires_action", "running", "idle"]
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "Hello, world!\n");
    let ask = c
        .requests()
        .into_iter()
        .find(|r| r.method == "session/request_permission")
        .expect("asked");
    assert_eq!(ask.params["subject"]["type"], "tool_call");
    let change = &ask.params["subject"]["toolCall"]["content"][0]["changes"][0];
    assert_eq!(change["operation"], "add", "{}", ask.params);
    assert_eq!(change["path"], json!(path));
    let violations = v2_violations(&c, &id, &[("session/prompt", &answer)]);
    assert!(violations.is_empty(), "{violations:#?}");
}

#[tokio::test]
async fn a_v2_cancel_mid_stream_ends_the_turn_cancelled_and_the_next_prompt_works() {
    let mock = MockApi::start(vec![
        Rule::on_prompt(
            "long story",
            Reply::text("Once upon a time there was a mock that never finished its story.")
                .chunk_chars(4)
                .stall_after(6),
        ),
        Rule::on_prompt("hello again", Reply::text("Back after the cancel.")),
    ]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    let id = v2_session(&c, &env).await;
    let answer = c
        .request("session/prompt", prompt(&id, "tell me a long story"))
        .await
        .unwrap();
    assert!(
        answer["messageId"].is_string(),
        "answered before the turn ends"
    );
    c.wait_for_update(
        |u| u["update"]["sessionUpdate"] == "agent_message_chunk",
        STEP,
    )
    .await;
    c.notify("session/cancel", json!({"sessionId": id})).await;
    assert_eq!(idle(&c, &id).await["stopReason"], "cancelled");

    c.request("session/prompt", prompt(&id, "hello again"))
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + STEP;
    while states(&c, &id).iter().filter(|s| *s == "idle").count() < 2 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{:?}",
            states(&c, &id)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let last = c
        .updates(&id)
        .into_iter()
        .rfind(|u| u["state"] == "idle")
        .unwrap();
    assert_eq!(last["stopReason"], "end_turn", "{last}");
}

#[tokio::test]
async fn a_stored_session_resumed_with_replay_in_a_new_v2_process_tells_its_thread_then_goes_on() {
    let mock = MockApi::start(vec![
        Rule::on_prompt("remember", Reply::text("I will remember the pelican.")),
        Rule::on_prompt("which bird", Reply::text("The pelican.")),
    ]);
    let env = ClaudeEnv::new(&mock);
    let first = adapter(&env);
    let id = v2_session(&first, &env).await;
    let live_prompt = first
        .request("session/prompt", prompt(&id, "remember the word pelican"))
        .await
        .unwrap()["messageId"]
        .clone();
    idle(&first, &id).await;
    let live_answer = message_ids(&first, &id, "agent_message_chunk");
    assert_eq!(live_answer.len(), 1, "one message: {live_answer:?}");
    wait_until_stored(&env, &id, "I will remember the pelican.").await;
    first.quit(Duration::from_secs(10)).await;

    let c = adapter(&env);
    c.request(
        "initialize",
        json!({"protocolVersion": 2, "info": {"name": "v2-editor", "version": "1"}}),
    )
    .await
    .unwrap();
    c.request(
        "session/resume",
        json!({"sessionId": id, "cwd": env.work_dir(), "replayFrom": {"type": "start"}}),
    )
    .await
    .unwrap_or_else(|e| panic!("resume: {e}\n{}", c.diagnostics()));
    let replayed = c.updates(&id);
    let marks: Vec<usize> = (0..replayed.len())
        .filter(|&i| replayed[i]["sessionUpdate"] == "replay_complete")
        .collect();
    let last_replayed = replayed.iter().rposition(|u| {
        u["sessionUpdate"]
            .as_str()
            .is_some_and(|k| k.ends_with("_chunk"))
    });
    assert_eq!(marks.len(), 1, "replay_complete once: {replayed:#?}");
    assert!(
        Some(marks[0]) > last_replayed,
        "after the thread: {replayed:#?}"
    );
    let said: String = replayed
        .iter()
        .filter(|u| u["sessionUpdate"] == "user_message_chunk")
        .filter_map(|u| u["content"]["text"].as_str())
        .collect();
    assert!(said.contains("remember the word pelican"), "{replayed:?}");
    // The replayed messages carry the ids the live turn gave them, so an editor can match them.
    assert_eq!(
        message_ids(&c, &id, "user_message_chunk"),
        [live_prompt],
        "{replayed:?}"
    );
    assert_eq!(
        message_ids(&c, &id, "agent_message_chunk"),
        live_answer,
        "{replayed:?}"
    );
    let violations = v2_violations(&c, &id, &[]);
    assert!(violations.is_empty(), "{violations:#?}");
    c.request("session/prompt", prompt(&id, "which bird was it?"))
        .await
        .unwrap();
    assert_eq!(idle(&c, &id).await["stopReason"], "end_turn");
    let last = mock.requests().last().cloned().expect("a model request");
    assert!(
        last.contains("remember the word pelican"),
        "the model had the thread"
    );
}

#[tokio::test]
async fn a_v1_client_of_the_same_build_gets_v1_from_the_real_claude() {
    let mock = MockApi::start(vec![Rule::on_prompt("hello", Reply::text("Hi, v1."))]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    let init = c.initialize().await;
    assert_eq!(init["protocolVersion"], 1, "{init}");
    let id = c.new_session(env.work_dir()).await;
    let stop = c.prompt(&id, "hello").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert_eq!(c.agent_text(&id), "Hi, v1.");
}

#[tokio::test]
async fn a_v2_background_command_is_cancelled_by_its_tool_call_and_its_process_ends() {
    // A marker only this test's command line carries, to find the command in the process table.
    let marker = format!("v2-cancel-{}", std::process::id());
    let command = format!("sleep 30; echo {marker}");
    let mock = MockApi::start(vec![
        Rule::on_prompt(
            "start the job",
            Reply::tool_use(
                "Bash",
                json!({"command": command, "description": "A background job",
                    "run_in_background": true}),
            ),
        ),
        Rule::on_tool_result(Reply::text("Started it.")),
        Rule::always(Reply::text("Noted.")),
    ]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    c.on_request("session/request_permission", |params| {
        let allow = params["options"][0]["optionId"].clone();
        Ok(json!({"outcome": {"outcome": "selected", "optionId": allow}}))
    });
    let id = v2_session(&c, &env).await;
    c.request("session/prompt", prompt(&id, "start the job"))
        .await
        .unwrap();
    assert_eq!(idle(&c, &id).await["stopReason"], "end_turn");
    // The turn is over and the command runs: its call says it can be cancelled.
    let offered = c
        .updates(&id)
        .into_iter()
        .find(|u| u["capabilities"]["cancel"].is_object())
        .unwrap_or_else(|| panic!("no cancellable call: {:#?}", c.updates(&id)));
    assert_eq!(offered["status"], "in_progress", "{offered}");
    let call = offered["toolCallId"].as_str().unwrap().to_owned();
    // The command's process is found in /proc: checked on Linux.
    #[cfg(target_os = "linux")]
    {
        let running = crate::support::procs::pids_with_cmdline_containing(&marker);
        assert!(!running.is_empty(), "the command runs");
    }

    let unknown = c
        .request(
            "tool_call/cancel",
            json!({"sessionId": id, "toolCallId": "no-such-call"}),
        )
        .await
        .expect_err("an unknown call is refused");
    assert_eq!(unknown.code, -32602, "{unknown:?}");
    let answer = c
        .request(
            "tool_call/cancel",
            json!({"sessionId": id, "toolCallId": call}),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer, json!({}));
    // claude stops the command: its call ends cancelled, no longer cancellable, no turn ran.
    let end = c
        .wait_for_update(
            |u| {
                u["update"]["toolCallId"] == call.as_str()
                    && u["update"]["status"]
                        .as_str()
                        .is_some_and(|s| s != "in_progress")
            },
            STEP,
        )
        .await;
    assert_eq!(end["update"]["status"], "cancelled", "{end}");
    assert!(end["update"]["capabilities"].is_null(), "{end}");
    assert!(
        end["update"]
            .as_object()
            .unwrap()
            .contains_key("capabilities"),
        "the capability is taken back: {end}"
    );
    #[cfg(target_os = "linux")]
    {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while !crate::support::procs::pids_with_cmdline_containing(&marker).is_empty() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the stopped command still runs"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let again = c
        .request(
            "tool_call/cancel",
            json!({"sessionId": id, "toolCallId": call}),
        )
        .await
        .expect_err("an ended call is refused");
    assert_eq!(again.code, -32602, "{again:?}");
    let states = states(&c, &id);
    assert_eq!(
        (
            states.iter().filter(|s| *s == "idle").count(),
            states.last()
        ),
        (1, Some(&"idle".to_owned())),
        "no turn ran for it: {states:?}"
    );
    let violations = v2_violations(&c, &id, &[]);
    assert!(violations.is_empty(), "{violations:#?}");
}
