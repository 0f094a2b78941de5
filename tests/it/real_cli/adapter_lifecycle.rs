//! claude-acp with the real pinned Claude Code CLI over a session's life: cancel mid-stream, a crash of
//! claude and the resume after it, and two sessions at once in one adapter. Offline against the
//! scripted mock API; every test has its own mock, environment and adapter.

use std::time::Duration;

use crate::support::mock_api::{Reply, Rule};
use crate::support::real_session::RealSession;
// The crash tests find claude, to kill it, in /proc: they are Linux-only.
#[cfg(target_os = "linux")]
use crate::support::{
    liveness, procs,
    real_session::{
        claude_pid, keep_only_what_holds_no_conversation, kill_claude, wait_until_stored,
    },
};

#[tokio::test]
async fn cancel_mid_stream_returns_cancelled_once_and_the_next_prompt_works() {
    let s = RealSession::start(vec![
        Rule::on_prompt(
            "long story",
            Reply::text("Once upon a time there was a mock that never finished its story.")
                .chunk_chars(4)
                .stall_after(6),
        ),
        Rule::on_prompt("hello again", Reply::text("Back after the cancel.")),
    ])
    .await;

    let (stop, ()) = tokio::join!(s.client.prompt(&s.id, "tell me a long story"), async {
        s.client
            .wait_for_update(
                |u| u["update"]["sessionUpdate"] == "agent_message_chunk",
                Duration::from_secs(20),
            )
            .await;
        s.client.cancel(&s.id).await;
    });
    let stop = stop.unwrap_or_else(|e| panic!("{e}\n{}", s.client.diagnostics()));
    assert_eq!(stop["stopReason"], "cancelled");
    let shown_before = s.client.agent_text(&s.id);
    assert!(shown_before.starts_with("Once"), "{shown_before}");

    let stop = s.prompt("hello again").await;
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        s.client
            .agent_text(&s.id)
            .ends_with("Back after the cancel."),
        "{}",
        s.client.agent_text(&s.id)
    );
    // A late second answer to either prompt would be recorded by the time the output ends.
    s.client.quit(Duration::from_secs(10)).await;
    assert_eq!(s.prompt_responses(), 2, "exactly one answer per prompt");
    assert_eq!(s.mock.requests().len(), 2);
    s.assert_quick();
}

#[cfg(target_os = "linux")]
fn crash_rules() -> Vec<Rule> {
    vec![
        Rule::on_prompt(
            "remember the word pelican",
            Reply::text("Noted, I will remember the pelican for later.")
                .chunk_chars(4)
                .stall_after(6),
        ),
        Rule::on_prompt("which word", Reply::text("The word was pelican.")),
    ]
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_crash_mid_turn_is_an_error_and_the_next_prompt_resumes_with_history() {
    let s = RealSession::start(crash_rules()).await;

    let (result, killed) =
        tokio::join!(s.client.prompt(&s.id, "remember the word pelican"), async {
            s.mock.wait_for_requests(1, Duration::from_secs(20)).await;
            wait_until_stored(&s.env, &s.id, "remember the word pelican").await;
            kill_claude(s.client.pid())
        });
    let err = result.expect_err("a crashed claude ends the prompt with an error");
    assert!(
        err.message.contains("killed by signal 9"),
        "names the exit status: {}",
        err.message
    );
    assert!(liveness::wait_until_gone(&[killed], Duration::from_secs(2)).await);

    let stop = s.prompt("which word did I ask you to remember?").await;
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        s.client
            .agent_text(&s.id)
            .ends_with("The word was pelican."),
        "{}",
        s.client.agent_text(&s.id)
    );
    let respawned = claude_pid(s.client.pid()).expect("a new claude runs");
    assert_ne!(respawned, killed);
    assert!(
        procs::cmdline(respawned)
            .unwrap()
            .contains(&format!("--resume {}", s.id)),
        "{:?}",
        procs::cmdline(respawned)
    );
    let requests = s.mock.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1].contains("remember the word pelican"),
        "the resumed conversation carries the earlier prompt: {:#}",
        requests[1].body["messages"]
    );
    s.assert_quick();
}

// The crash scenarios on every claude of the range (Linux: they find claude in /proc to kill it).
#[cfg(target_os = "linux")]
crate::on_each_claude! {
    a_crash_before_claude_stored_the_conversation_does_not_break_the_session => crash_before_stored;
}

/// claude writes the conversation only a moment after its first API request, but the transcript
/// `<id>.jsonl` before it (2.1.332 a `queue-operation` line, 2.1.337 an `api-request-route` one):
/// a crash early in the first turn leaves a transcript with no conversation, which claude will
/// neither resume ("No conversation found") nor start afresh under the same id ("Session ID ... is
/// already in use"). The session must stay usable: the next prompt works (the lost turn cannot be
/// recovered). The transcript is cut to the lines without a conversation after the kill, so the
/// test does not depend on how fast claude writes the rest.
#[cfg(target_os = "linux")]
async fn crash_before_stored(version: &str) {
    let s = RealSession::start_on(version, crash_rules()).await;

    let (result, killed) =
        tokio::join!(s.client.prompt(&s.id, "remember the word pelican"), async {
            s.mock.wait_for_requests(1, Duration::from_secs(20)).await;
            kill_claude(s.client.pid())
        });
    result.expect_err("a crashed claude ends the prompt with an error");
    assert!(liveness::wait_until_gone(&[killed], Duration::from_secs(2)).await);
    keep_only_what_holds_no_conversation(&s.env, &s.id);

    let stop = s
        .client
        .prompt(&s.id, "which word did I ask you to remember?")
        .await
        .unwrap_or_else(|e| panic!("claude {version}: {e}\n{}", s.client.diagnostics()));
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        s.client
            .agent_text(&s.id)
            .ends_with("The word was pelican."),
        "{}",
        s.client.agent_text(&s.id)
    );
    s.assert_quick();
}

#[tokio::test]
async fn two_sessions_prompted_at_once_each_get_their_own_answer() {
    let s = RealSession::start(vec![
        Rule::on_prompt(
            "apples",
            Reply::text("Apples are red or green.").chunk_delay(Duration::from_millis(20)),
        ),
        Rule::on_prompt(
            "bananas",
            Reply::text("Bananas are yellow.").chunk_delay(Duration::from_millis(20)),
        ),
    ])
    .await;
    let other = s.client.new_session(s.env.work_dir()).await;
    assert_ne!(other, s.id);

    let (a, b) = tokio::join!(
        s.client.prompt(&s.id, "tell me about apples"),
        s.client.prompt(&other, "tell me about bananas")
    );

    assert_eq!(a.unwrap()["stopReason"], "end_turn");
    assert_eq!(b.unwrap()["stopReason"], "end_turn");
    assert_eq!(s.client.agent_text(&s.id), "Apples are red or green.");
    assert_eq!(s.client.agent_text(&other), "Bananas are yellow.");
    let requests = s.mock.requests();
    assert_eq!(requests.len(), 2);
    let sessions: Vec<_> = requests
        .iter()
        .map(|r| r.header("x-claude-code-session-id").map(str::to_owned))
        .collect();
    assert!(sessions.contains(&Some(s.id.clone())), "{sessions:?}");
    assert!(sessions.contains(&Some(other.clone())), "{sessions:?}");
    s.assert_quick();
}

/// claude that refuses to start says why in a typed result (the adapter asks for it with
/// CLAUDE_CODE_STARTUP_FAILURE_RESULTS): the prompt's error names the reason beside claude's
/// own words, here a proxy setting that is not a URL.
#[tokio::test]
async fn a_claude_that_refuses_to_start_is_an_error_naming_the_reason() {
    let s = RealSession::start_with_env(
        vec![Rule::on_prompt("hello", Reply::text("unreachable"))],
        &[("HTTPS_PROXY", "not-a-url")],
    )
    .await;
    let err = s
        .client
        .prompt(&s.id, "hello")
        .await
        .expect_err("claude did not start");
    assert!(
        err.message.starts_with(
            "claude could not start (proxy_invalid): Invalid proxy URL in HTTPS_PROXY"
        ),
        "{}",
        err.message
    );
    assert_eq!(s.mock.requests().len(), 0);
}
