//! Session cursors (ACP 1.20) with the pinned claude on the mock API: an editor that declares
//! `session.cursors` gets a cursor after each answer, the same one again when the session is
//! loaded in another adapter process (with one before each prompt), and `session/fork` at a
//! cursor gives a conversation that holds the thread up to it and nothing after: the model, asked
//! in the fork, is sent the first exchange and not the second.

use std::time::Duration;

use serde_json::json;

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::{ClaudeEnv, pinned_version};
use crate::support::v2_schema::{v2_violations, violations_1_20_v1};

const FIRST_PROMPT: &str = "Remember the word apple.";
const FIRST_ANSWER: &str = "Noted: apple.";
const SECOND_PROMPT: &str = "Now remember the word banana.";
const SECOND_ANSWER: &str = "Noted: banana.";
const IN_THE_FORK: &str = "Which words do you remember?";

/// An adapter process, initialized by an editor that declares cursors or not.
async fn adapter(env: &ClaudeEnv, cursors: bool) -> AcpClient {
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(Duration::from_secs(60));
    let mut caps =
        json!({"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false});
    if cursors {
        caps["session"] = json!({"cursors": {}});
    }
    c.initialize_with_capabilities(caps).await;
    c
}

/// The `cursor_update`s of `session`, each checked (valid 1.20, anchored to a message the editor
/// was given before it): `(cursorId, anchor type)` in order.
fn cursors(c: &AcpClient, session: &str) -> Vec<(String, String)> {
    let mut held = Vec::new();
    let mut found = Vec::new();
    for update in c.updates(session) {
        let kind = update["sessionUpdate"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if let Some(id) = update["messageId"].as_str() {
            held.push((kind.replace("_chunk", ""), id.to_owned()));
        }
        if kind != "cursor_update" {
            continue;
        }
        let params = json!({"sessionId": session, "update": update});
        let faults = violations_1_20_v1("SessionNotification", &params);
        assert!(faults.is_empty(), "{update}: {faults:?}");
        let anchor = (
            update["anchor"]["type"].as_str().unwrap().to_owned(),
            update["anchor"]["messageId"].as_str().unwrap().to_owned(),
        );
        assert!(
            held.contains(&anchor),
            "{update} anchors to no message held: {held:?}"
        );
        found.push((update["cursorId"].as_str().unwrap().to_owned(), anchor.0));
    }
    found
}

async fn fork_at(
    c: &AcpClient,
    env: &ClaudeEnv,
    session: &str,
    cursor: &str,
) -> Result<String, String> {
    let params = json!({
        "sessionId": session, "cwd": env.work_dir(), "mcpServers": [], "cursorId": cursor,
    });
    c.request("session/fork", params)
        .await
        .map(|answer| answer["sessionId"].as_str().unwrap().to_owned())
        .map_err(|e| format!("{} ({})", e.message, e.code))
}

/// The fork, asked, sends the model the first exchange and not the second.
async fn asked_in_the_fork(c: &AcpClient, mock: &MockApi, fork: &str) {
    let stop = c.prompt(fork, IN_THE_FORK).await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    let last = mock.requests().last().unwrap().clone();
    // What the model was sent, each message's text cut short (the system prompt is long).
    let sent: Vec<String> = last
        .messages()
        .iter()
        .map(|m| {
            let text = m["content"].to_string();
            format!(
                "{}: {}",
                m["role"],
                text.chars()
                    .rev()
                    .take(120)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect::<String>()
            )
        })
        .collect();
    assert_eq!(
        last.prompt_text().as_deref(),
        Some(IN_THE_FORK),
        "{sent:#?}"
    );
    assert!(
        last.contains(FIRST_PROMPT) && last.contains(FIRST_ANSWER),
        "{sent:#?}"
    );
    assert!(
        !last.contains(SECOND_PROMPT) && !last.contains(SECOND_ANSWER),
        "{sent:#?}"
    );
}

#[tokio::test]
async fn a_fork_at_a_cursor_holds_the_conversation_up_to_it_and_nothing_after() {
    let mock = MockApi::start(vec![
        Rule::on_prompt("apple", Reply::text(FIRST_ANSWER)),
        Rule::on_prompt("banana", Reply::text(SECOND_ANSWER)),
        Rule::always(Reply::text("apple")),
    ]);
    let env = ClaudeEnv::for_version(&mock, pinned_version());
    let c = adapter(&env, true).await;
    let id = c.new_session(env.work_dir()).await;
    for prompt in [FIRST_PROMPT, SECOND_PROMPT] {
        let stop = c.prompt(&id, prompt).await.unwrap();
        assert_eq!(stop["stopReason"], "end_turn", "{}", c.diagnostics());
    }
    let live = cursors(&c, &id);
    let kinds: Vec<&str> = live.iter().map(|(_, kind)| kind.as_str()).collect();
    assert_eq!(kinds, ["agent_message", "agent_message"], "{live:?}");

    // A cursor it does not know is refused, never a fork of the whole session.
    let err = fork_at(&c, &env, &id, "after:00000000-0000-4000-8000-000000000000")
        .await
        .unwrap_err();
    assert!(err.contains("(-32602)"), "{err}");

    let fork = fork_at(&c, &env, &id, &live[0].0).await.unwrap();
    assert_ne!(fork, id);
    asked_in_the_fork(&c, &mock, &fork).await;
    let asked: Vec<String> = c.requests().iter().map(|r| r.method.clone()).collect();
    assert!(!asked.iter().any(|m| m.starts_with("fs/")), "{asked:?}");
    c.close_stdin().await;
    c.wait_exit(Duration::from_secs(20)).await;

    // Another adapter process: the loaded thread has the same cursors after each answer, and
    // one before each prompt; before the second prompt is the same point as after the first
    // answer.
    let c = adapter(&env, true).await;
    c.load_session(&id, env.work_dir()).await;
    let replayed = cursors(&c, &id);
    let kinds: Vec<&str> = replayed.iter().map(|(_, kind)| kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "user_message",
            "agent_message",
            "user_message",
            "agent_message"
        ],
        "{replayed:?}"
    );
    assert_eq!(
        replayed[1].0, live[0].0,
        "the live cursor is the replayed one"
    );
    assert_eq!(
        replayed[3].0, live[1].0,
        "the live cursor is the replayed one"
    );
    let fork = fork_at(&c, &env, &id, &replayed[2].0).await.unwrap();
    asked_in_the_fork(&c, &mock, &fork).await;
}

#[tokio::test]
async fn an_editor_without_cursors_gets_chunks_as_before() {
    let mock = MockApi::start(vec![Rule::always(Reply::text(FIRST_ANSWER))]);
    let env = ClaudeEnv::for_version(&mock, pinned_version());
    let c = adapter(&env, false).await;
    let id = c.new_session(env.work_dir()).await;
    c.prompt(&id, FIRST_PROMPT).await.unwrap();
    assert_eq!(c.agent_text(&id), FIRST_ANSWER);
    for update in c.updates(&id) {
        assert_ne!(update["sessionUpdate"], "cursor_update", "{update}");
        assert!(update.get("messageId").is_none(), "{update}");
    }
}

/// A v2 editor's turn: the prompt's message id, once the turn is `idle`.
async fn v2_turn(c: &AcpClient, session: &str, text: &str) -> String {
    let start = c.update_count();
    let params = json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]});
    let answer = c.request("session/prompt", params).await.unwrap();
    let session = session.to_owned();
    c.wait_for_update_from(
        start,
        move |u| {
            u["sessionId"] == session.as_str()
                && u["update"]["sessionUpdate"] == "state_update"
                && u["update"]["state"] == "idle"
        },
        Duration::from_secs(60),
    )
    .await;
    answer["messageId"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_v2_editor_gets_a_cursor_before_each_prompt_and_forks_at_one() {
    let mock = MockApi::start(vec![
        Rule::on_prompt("apple", Reply::text(FIRST_ANSWER)),
        Rule::on_prompt("banana", Reply::text(SECOND_ANSWER)),
        Rule::always(Reply::text("apple")),
    ]);
    let env = ClaudeEnv::for_version(&mock, pinned_version());
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(Duration::from_secs(60));
    let init = json!({"protocolVersion": 2, "info": {"name": "v2-editor", "version": "1"}});
    c.request("initialize", init).await.unwrap();
    let new = json!({"cwd": env.work_dir()});
    let session = c.request("session/new", new).await.unwrap();
    let id = session["sessionId"].as_str().unwrap().to_owned();
    let first = v2_turn(&c, &id, FIRST_PROMPT).await;
    let second = v2_turn(&c, &id, SECOND_PROMPT).await;

    let faults = v2_violations(&c, &id, &[]);
    assert!(faults.is_empty(), "{faults:#?}");
    let updates = c.updates(&id);
    let held = |kind: &str, message: &str| {
        updates
            .iter()
            .any(|u| u["sessionUpdate"] == kind && u["messageId"] == message)
    };
    let mut cursors = Vec::new();
    for update in updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "cursor_update")
    {
        let anchor = &update["anchor"];
        let kind = anchor["type"].as_str().unwrap();
        let message = anchor["messageId"].as_str().unwrap();
        assert!(
            held(kind, message) || held(&format!("{kind}_chunk"), message),
            "{update}"
        );
        cursors.push((
            kind.to_owned(),
            update["cursorId"].as_str().unwrap().to_owned(),
        ));
    }
    let kinds: Vec<&str> = cursors.iter().map(|(kind, _)| kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "user_message",
            "agent_message",
            "user_message",
            "agent_message"
        ],
        "{cursors:?}"
    );
    // Each prompt's cursor is anchored to the message id its `session/prompt` was answered with.
    let anchored: Vec<&str> = updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "cursor_update" && u["anchor"]["type"] == "user_message")
        .map(|u| u["anchor"]["messageId"].as_str().unwrap())
        .collect();
    assert_eq!(anchored, [first.as_str(), second.as_str()]);

    // Before the second prompt: the first exchange, and not the second.
    let fork = json!({
        "sessionId": id, "cwd": env.work_dir(), "cursorId": cursors[2].1,
    });
    let forked = c.request("session/fork", fork).await.unwrap();
    let fork_id = forked["sessionId"].as_str().unwrap().to_owned();
    v2_turn(&c, &fork_id, IN_THE_FORK).await;
    let last = mock.requests().last().unwrap().clone();
    assert_eq!(last.prompt_text().as_deref(), Some(IN_THE_FORK));
    assert!(last.contains(FIRST_PROMPT) && last.contains(FIRST_ANSWER));
    assert!(!last.contains(SECOND_PROMPT) && !last.contains(SECOND_ANSWER));

    let unknown = json!({"sessionId": id, "cwd": env.work_dir(), "cursorId": "c1"});
    let err = c.request("session/fork", unknown).await.unwrap_err();
    assert_eq!(err.code, -32602, "{}", err.message);
}
