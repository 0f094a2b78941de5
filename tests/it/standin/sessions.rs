//! Stored sessions through the adapter, with the stand-in as claude: `session/load` replays claude's
//! transcript then resumes claude, `session/resume` resumes without replay, `session/fork` branches,
//! `session/list` pages through the stored sessions, `session/close` ends claude, and a session is
//! never run by two claude processes at once.

use std::path::Path;
use std::time::Duration;

use crate::support::acp_client::AcpClient;
use crate::support::argv::argv_value;
use crate::support::history::{
    FIXTURE_SESSION_ID, install_fixture, write_long_session, write_session,
};
use crate::support::liveness;
use crate::support::standin::Standin;
use serde_json::{Value, json};

/// The kinds of update a loaded thread is made of.
const HISTORY_KINDS: [&str; 5] = [
    "user_message_chunk",
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
];

/// An adapter whose claude is the stand-in playing `fixture`, reading transcripts from a temporary
/// claude config dir.
fn adapter(s: &Standin) -> AcpClient {
    let config = config_dir(s);
    s.adapter_with_env(&[], &[("CLAUDE_CONFIG_DIR", config.to_str().unwrap())])
}

fn config_dir(s: &Standin) -> std::path::PathBuf {
    s.dir().join("claude-config")
}

async fn open(c: &AcpClient, method: &str, id: &str, cwd: &Path) -> Result<Value, String> {
    c.request(
        method,
        json!({"sessionId": id, "cwd": cwd, "mcpServers": []}),
    )
    .await
    .map_err(|e| format!("{} ({})", e.message, e.code))
}

/// Position of the response to the request `method` in the adapter's output: the request ids are
/// counted by the client, so find the id of the line we sent.
fn response_index(c: &AcpClient, method: &str, nth: usize) -> usize {
    let ids: Vec<Value> = c
        .sent()
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["method"] == method)
        .map(|l| l["id"].clone())
        .collect();
    let id = &ids[nth];
    c.transcript()
        .iter()
        .position(|l| l["id"] == *id && l.get("method").is_none())
        .expect("response recorded")
}

/// The kinds of the history updates of `session` among the adapter's first `end` output lines.
fn history_kinds_before(c: &AcpClient, session: &str, end: usize) -> Vec<String> {
    c.transcript()[..end]
        .iter()
        .filter(|l| l["method"] == "session/update" && l["params"]["sessionId"] == session)
        .filter_map(|l| l["params"]["update"]["sessionUpdate"].as_str())
        .filter(|k| HISTORY_KINDS.contains(k))
        .map(str::to_owned)
        .collect()
}

/// The stand-in claudes started that still run.
fn live_claudes(s: &Standin) -> Vec<u32> {
    s.pids()
        .into_iter()
        .filter(|&p| liveness::is_alive(p))
        .collect()
}

#[tokio::test]
async fn load_replays_the_whole_thread_before_answering_then_resumes_claude() {
    let s = Standin::new("text");
    install_fixture(&config_dir(&s), &s.work, FIXTURE_SESSION_ID);
    let c = adapter(&s);
    let init = c.initialize().await;
    assert_eq!(init["agentCapabilities"]["loadSession"], true, "{init}");

    open(&c, "session/load", FIXTURE_SESSION_ID, &s.work)
        .await
        .unwrap();
    let answered_at = response_index(&c, "session/load", 0);
    let kinds = history_kinds_before(&c, FIXTURE_SESSION_ID, answered_at);
    let expected = [
        "user_message_chunk",
        "agent_thought_chunk",
        "agent_message_chunk",
        "tool_call",
        "tool_call_update",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
        "user_message_chunk",
        "tool_call",
        "tool_call_update",
        "tool_call",
        "tool_call_update",
        "agent_thought_chunk",
        "agent_message_chunk",
        "user_message_chunk",
        "agent_message_chunk",
    ];
    assert_eq!(
        kinds, expected,
        "the thread arrives, in order, before the answer"
    );
    let after = history_kinds_before(&c, FIXTURE_SESSION_ID, c.transcript().len());
    assert_eq!(after.len(), kinds.len(), "nothing of the thread comes late");

    let users = c.updates_of_kind(FIXTURE_SESSION_ID, "user_message_chunk");
    assert_eq!(
        users[0]["content"]["text"],
        "Create notes.txt with two lines, then show it."
    );
    let thought = c.thought_text(FIXTURE_SESSION_ID);
    assert!(thought.contains("I will write it"), "{thought}");
    let write = &c.tool_calls(FIXTURE_SESSION_ID)[0];
    assert_eq!(
        write["locations"][0]["path"],
        json!(s.work.join("notes.txt")),
        "tool paths are in the loading cwd: {write}"
    );
    assert!(
        c.agent_text(FIXTURE_SESSION_ID)
            .ends_with("Nothing else: notes.txt is done.")
    );

    let pids = s.wait_started(1, Duration::from_secs(10)).await;
    assert_eq!(pids.len(), 1);
    assert_eq!(
        argv_value(&s.argvs()[0], "--resume"),
        Some(FIXTURE_SESSION_ID)
    );
    assert!(!s.argvs()[0].contains(&"--session-id".to_owned()));
    let stop = c.prompt(FIXTURE_SESSION_ID, "and now?").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        c.agent_text(FIXTURE_SESSION_ID)
            .ends_with("Hello from the mock model!")
    );
}

/// A long thread loaded by an editor that takes its time: the session's claude starts while the
/// thread is still on its way (its start-up, and for the first session ever the wait for its
/// models, overlap the replay instead of following it), the replay waits for the editor instead
/// of piling up, and the answer comes after the whole thread.
#[tokio::test]
async fn a_loads_claude_starts_while_a_long_thread_is_still_on_its_way() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let s = Standin::new("text");
    let id = "7c1d2f3a-0b4e-4f5a-9c6d-1e2f3a4b5c6d";
    // 64 answers of 128 KiB: 8 MiB of updates, far more than the pipe and the queue hold.
    write_long_session(&config_dir(&s), &s.work, id, 64, 128 * 1024);
    let mut adapter = s
        .adapter_command(&[])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn the adapter");
    let mut stdin = adapter.stdin.take().unwrap();
    let mut lines = BufReader::new(adapter.stdout.take().unwrap()).lines();
    let send = |line: Value| format!("{line}\n");
    stdin
        .write_all(
            send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": 1, "clientCapabilities": {}}}))
            .as_bytes(),
        )
        .await
        .unwrap();
    while let Some(line) = lines.next_line().await.unwrap() {
        if serde_json::from_str::<Value>(&line).unwrap()["id"] == 1 {
            break;
        }
    }
    stdin
        .write_all(
            send(json!({"jsonrpc": "2.0", "id": 2, "method": "session/load",
            "params": {"sessionId": id, "cwd": s.work, "mcpServers": []}}))
            .as_bytes(),
        )
        .await
        .unwrap();
    // Nothing read: the thread waits in the pipe, and claude starts all the same.
    let pids = s.wait_started(1, Duration::from_secs(20)).await;
    assert_eq!(pids.len(), 1, "one claude for the load");
    let mut replayed = 0;
    let answer = loop {
        let line = lines.next_line().await.unwrap().expect("the load's answer");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 2 {
            break message;
        }
        if message["params"]["update"]["sessionUpdate"] == "agent_message_chunk" {
            assert_eq!(
                message["params"]["update"]["content"]["text"]
                    .as_str()
                    .map(str::len),
                Some(128 * 1024)
            );
            replayed += 1;
        }
    };
    assert!(answer["result"].is_object(), "{answer}");
    assert_eq!(
        replayed, 64,
        "every answer of the thread, before the load's answer"
    );
    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(20), adapter.wait())
        .await
        .expect("the adapter ends with its stdin")
        .unwrap();
    assert!(status.success(), "{status}");
}

#[tokio::test]
async fn loading_a_session_twice_leaves_one_claude() {
    // Its claude does not exit when its stdin closes: only a kill ends the first one.
    let s = Standin::new("text_ignoring_eof");
    install_fixture(&config_dir(&s), &s.work, FIXTURE_SESSION_ID);
    let c = adapter(&s);
    c.initialize().await;
    open(&c, "session/load", FIXTURE_SESSION_ID, &s.work)
        .await
        .unwrap();
    let first = s.wait_started(1, Duration::from_secs(10)).await[0];
    assert!(liveness::is_alive(first));

    open(&c, "session/load", FIXTURE_SESSION_ID, &s.work)
        .await
        .unwrap();
    let pids = s.wait_started(2, Duration::from_secs(10)).await;
    assert!(
        !liveness::is_alive(first),
        "the first claude ({first}) still runs after the second load"
    );
    assert_eq!(live_claudes(&s), vec![pids[1]]);
    let users = c.updates_of_kind(FIXTURE_SESSION_ID, "user_message_chunk");
    assert_eq!(users.len(), 6, "the thread was replayed once per load");
    let stop = c.prompt(FIXTURE_SESSION_ID, "still there?").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
}

/// The most stand-in claudes alive at once, from the order of their start and exit events.
fn most_alive_at_once(s: &Standin) -> usize {
    let mut alive = std::collections::HashSet::new();
    let mut most = 0;
    for event in s.events() {
        match event["event"].as_str() {
            Some("start") => {
                alive.insert(event["pid"].clone());
                most = most.max(alive.len());
            }
            Some("exit") => {
                alive.remove(&event["pid"]);
            }
            _ => {}
        }
    }
    most
}

#[tokio::test]
async fn concurrent_loads_of_an_open_session_never_run_two_claudes_at_once() {
    // Its claude exits when its stdin closes and logs it: the log shows whether two overlapped.
    let s = Standin::new("text");
    install_fixture(&config_dir(&s), &s.work, FIXTURE_SESSION_ID);
    let c = adapter(&s);
    c.initialize().await;
    open(&c, "session/load", FIXTURE_SESSION_ID, &s.work)
        .await
        .unwrap();
    s.wait_started(1, Duration::from_secs(10)).await;

    let (first, second) = tokio::join!(
        open(&c, "session/load", FIXTURE_SESSION_ID, &s.work),
        open(&c, "session/load", FIXTURE_SESSION_ID, &s.work),
    );
    first.expect("the first load is answered");
    second.expect("the second load is answered");
    let pids = s.wait_started(3, Duration::from_secs(10)).await;
    assert_eq!(
        most_alive_at_once(&s),
        1,
        "two claudes ran the conversation at once: {:?}",
        s.events()
    );
    assert_eq!(live_claudes(&s), vec![pids[2]], "one claude is left");
    let stop = c.prompt(FIXTURE_SESSION_ID, "still there?").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
}

#[tokio::test]
async fn close_ends_claude_and_the_session_loads_again_with_one_claude() {
    // Its claude does not exit when its stdin closes: only a kill ends it.
    let s = Standin::new("text_ignoring_eof");
    install_fixture(&config_dir(&s), &s.work, FIXTURE_SESSION_ID);
    let c = adapter(&s);
    c.initialize().await;
    open(&c, "session/load", FIXTURE_SESSION_ID, &s.work)
        .await
        .unwrap();
    let first = s.wait_started(1, Duration::from_secs(10)).await[0];

    c.request("session/close", json!({"sessionId": FIXTURE_SESSION_ID}))
        .await
        .unwrap();
    assert!(
        liveness::wait_until_gone(&[first], Duration::from_secs(5)).await,
        "claude still runs after session/close"
    );
    let err = c.prompt(FIXTURE_SESSION_ID, "hello?").await.unwrap_err();
    assert!(err.message.contains(FIXTURE_SESSION_ID), "{}", err.message);

    open(&c, "session/load", FIXTURE_SESSION_ID, &s.work)
        .await
        .unwrap();
    let pids = s.wait_started(2, Duration::from_secs(10)).await;
    assert_eq!(live_claudes(&s), vec![pids[1]]);
    let stop = c.prompt(FIXTURE_SESSION_ID, "back again").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
}

#[tokio::test]
async fn resume_continues_without_replaying_and_an_unknown_id_is_invalid() {
    let s = Standin::new("text");
    install_fixture(&config_dir(&s), &s.work, FIXTURE_SESSION_ID);
    let c = adapter(&s);
    let init = c.initialize().await;
    assert!(
        init["agentCapabilities"]["sessionCapabilities"]["resume"].is_object(),
        "{init}"
    );

    open(&c, "session/resume", FIXTURE_SESSION_ID, &s.work)
        .await
        .unwrap();
    s.wait_started(1, Duration::from_secs(10)).await;
    assert_eq!(
        argv_value(&s.argvs()[0], "--resume"),
        Some(FIXTURE_SESSION_ID)
    );
    let stop = c.prompt(FIXTURE_SESSION_ID, "go on").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    let users = c.updates_of_kind(FIXTURE_SESSION_ID, "user_message_chunk");
    assert!(users.is_empty(), "resume replayed history: {users:?}");
    assert_eq!(
        c.agent_text(FIXTURE_SESSION_ID),
        "Hello from the mock model!"
    );

    let unknown = "00000000-0000-4000-8000-000000000000";
    let err = open(&c, "session/resume", unknown, &s.work)
        .await
        .unwrap_err();
    assert!(err.contains("-32602") && err.contains(unknown), "{err}");
    let err = open(&c, "session/load", unknown, &s.work)
        .await
        .unwrap_err();
    assert!(err.contains("-32602"), "{err}");
    assert_eq!(s.pids().len(), 1, "no claude started for unknown ids");
}

#[tokio::test]
async fn fork_starts_a_new_session_branched_from_the_stored_one() {
    let s = Standin::new("text");
    install_fixture(&config_dir(&s), &s.work, FIXTURE_SESSION_ID);
    let c = adapter(&s);
    c.initialize().await;
    let forked = open(&c, "session/fork", FIXTURE_SESSION_ID, &s.work)
        .await
        .unwrap();
    let new_id = forked["sessionId"].as_str().expect("sessionId").to_owned();
    assert_ne!(new_id, FIXTURE_SESSION_ID);

    s.wait_started(1, Duration::from_secs(10)).await;
    let argv = &s.argvs()[0];
    assert_eq!(argv_value(argv, "--resume"), Some(FIXTURE_SESSION_ID));
    assert!(argv.contains(&"--fork-session".to_owned()), "{argv:?}");
    assert_eq!(argv_value(argv, "--session-id"), Some(new_id.as_str()));
    let stop = c.prompt(&new_id, "a branch").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert_eq!(c.agent_text(&new_id), "Hello from the mock model!");
    assert!(c.updates(FIXTURE_SESSION_ID).is_empty());
}

#[tokio::test]
async fn list_pages_through_every_session_of_the_cwd_with_titles() {
    let s = Standin::new("text");
    let config = config_dir(&s);
    let total = 120;
    let mut titles = std::collections::HashMap::new();
    for n in 0..total {
        let id = uuid::Uuid::new_v4().to_string();
        let prompt = format!("prompt number {n}");
        write_session(&config, &s.work, &id, &prompt, "ok");
        titles.insert(id, prompt);
    }
    let elsewhere = s.dir().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    write_session(&config, &elsewhere, "other-session", "not here", "ok");

    let c = adapter(&s);
    let init = c.initialize().await;
    assert!(
        init["agentCapabilities"]["sessionCapabilities"]["list"].is_object(),
        "{init}"
    );
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut page_sizes = Vec::new();
    loop {
        let mut params = json!({"cwd": s.work});
        if let Some(cursor) = &cursor {
            params["cursor"] = json!(cursor);
        }
        let page = c.request("session/list", params).await.unwrap();
        let sessions = page["sessions"].as_array().unwrap();
        page_sizes.push(sessions.len());
        for session in sessions {
            let id = session["sessionId"].as_str().unwrap().to_owned();
            assert_eq!(session["title"], json!(titles[&id]), "{session}");
            assert_eq!(session["cwd"], json!(s.work));
            assert!(session["updatedAt"].is_string(), "{session}");
            seen.push(id);
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
        assert!(page_sizes.len() < 10, "paging does not end");
    }
    assert_eq!(page_sizes, vec![50, 50, 20]);
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), total, "every session once");
    assert!(!seen.contains(&"other-session".to_owned()));
    assert!(s.pids().is_empty(), "listing starts no claude");

    let err = c
        .request("session/list", json!({"cwd": s.work, "cursor": "bogus"}))
        .await
        .unwrap_err();
    assert_eq!(err.code, -32602, "{}", err.message);
}

/// The entries of one `session/list` page with id `id`.
async fn listed(c: &AcpClient, params: Value, id: &str) -> Vec<Value> {
    let page = c.request("session/list", params).await.unwrap();
    let sessions = page["sessions"].as_array().unwrap();
    sessions
        .iter()
        .filter(|s| s["sessionId"] == id)
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_session_open_here_is_listed_before_claude_stores_it_and_once_after() {
    let s = Standin::new("text");
    let config = config_dir(&s);
    let c = adapter(&s);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    assert!(
        listed(&c, json!({"cwd": s.work}), &id).await.is_empty(),
        "nothing said yet"
    );
    let stop = c.prompt(&id, "Say hello").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");

    // The stand-in stores nothing: only this process knows the session.
    for params in [json!({"cwd": s.work}), json!({})] {
        let sessions = listed(&c, params.clone(), &id).await;
        assert_eq!(sessions.len(), 1, "{params}: {sessions:?}");
        assert_eq!(sessions[0]["title"], "Say hello");
        assert_eq!(sessions[0]["cwd"], json!(s.work));
        assert!(sessions[0]["updatedAt"].is_string(), "{sessions:?}");
    }
    let elsewhere = s.dir().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    assert!(listed(&c, json!({"cwd": elsewhere}), &id).await.is_empty());

    // Once claude has stored it, it is listed from claude's transcript, still once.
    write_session(&config, &s.work, &id, "Stored title", "ok");
    let sessions = listed(&c, json!({"cwd": s.work}), &id).await;
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(sessions[0]["title"], "Stored title");
}

fn command_names(update: &Value) -> Vec<String> {
    update["update"]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn commands_are_offered_after_new_and_after_load_without_terminal_only_ones() {
    let s = Standin::new("text");
    install_fixture(&config_dir(&s), &s.work, FIXTURE_SESSION_ID);
    let c = adapter(&s);
    c.initialize().await;
    let new_id = c.new_session(&s.work).await;
    let offered = c
        .wait_for_update(
            |u| {
                u["sessionId"] == new_id
                    && u["update"]["sessionUpdate"] == "available_commands_update"
            },
            Duration::from_secs(10),
        )
        .await;
    let names = command_names(&offered);
    assert!(names.contains(&"compact".to_owned()), "{names:?}");
    assert!(names.contains(&"code-review".to_owned()), "{names:?}");
    assert!(
        !names
            .iter()
            .any(|n| n == "__remote-workflow" || n == "workflow-launch-exec"),
        "terminal-only commands are hidden: {names:?}"
    );

    open(&c, "session/load", FIXTURE_SESSION_ID, &s.work)
        .await
        .unwrap();
    let offered = c
        .wait_for_update(
            |u| {
                u["sessionId"] == FIXTURE_SESSION_ID
                    && u["update"]["sessionUpdate"] == "available_commands_update"
            },
            Duration::from_secs(10),
        )
        .await;
    assert_eq!(command_names(&offered), names);
}

#[tokio::test]
async fn a_session_id_that_reads_as_an_option_is_refused_before_claude_starts() {
    let s = Standin::new("text");
    // A transcript by that name is there: only the id's own check stands between it and
    // `claude --resume --dangerously-skip-permissions`.
    let id = "--dangerously-skip-permissions";
    write_session(&config_dir(&s), &s.work, id, "hi", "hello");
    let c = adapter(&s);
    c.initialize().await;
    for method in ["session/load", "session/resume", "session/fork"] {
        let refused = open(&c, method, id, &s.work)
            .await
            .expect_err("the id is refused");
        assert!(
            refused.ends_with("(-32602)") && refused.contains("must not start with '-'"),
            "{method}: {refused}"
        );
    }
    assert!(s.argvs().is_empty(), "claude was started: {:?}", s.argvs());
}
