//! Logs: stdout carries only ACP, logs go to stderr or `--log-file`, and secrets (API keys, the
//! account e-mail in claude's initialize reply) never reach them, even at the most verbose level; a
//! claude older than the tested versions is named in one warning, a newer one at info (the drift
//! canary).

use std::time::Duration;

use crate::support::acp_client::AcpClient;
use crate::support::standin::Standin;

#[tokio::test]
async fn secrets_never_reach_the_log_even_at_trace_level() {
    let s = Standin::new("account_secrets");
    let log = s.dir().join("adapter.log");
    let c = AcpClient::spawn(
        &[
            "--claude-path",
            s.claude.to_str().unwrap(),
            "--log-file",
            log.to_str().unwrap(),
        ],
        &[&[("RUST_LOG", "trace")], s.env().as_slice()].concat(),
        s.dir(),
    );
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    c.prompt(&id, "say hello").await.unwrap();
    // The initialize reply was received and used: commands reached the editor.
    c.wait_for_commands(Duration::from_secs(5)).await;
    c.close_stdin().await;
    // Waited for so that all of stderr is in; how soon the adapter exits is process_hygiene's
    // check, and 2 s was not always enough on a loaded machine.
    c.wait_exit(Duration::from_secs(20)).await.expect("exited");

    let logged = std::fs::read_to_string(&log).expect("the log file was written");
    assert!(
        logged.contains("claude started"),
        "the log file has the adapter's log: {logged:.300}"
    );
    // Masked, not dropped: the lines that held them are logged with the masks in place.
    for masked in ["sk-ant-[REDACTED]", "[EMAIL]"] {
        assert!(
            logged.contains(masked),
            "`{masked}` is not in the log: {logged:.2000}"
        );
    }
    for secret in [
        "ada.lovelace@example.com",
        "Analytical Engines",
        "TOPSECRETKEY",
    ] {
        let leak: Vec<&str> = logged.lines().filter(|l| l.contains(secret)).collect();
        assert!(
            leak.is_empty(),
            "`{secret}` leaked into the log file: {leak:?}"
        );
        assert!(
            !c.stderr_text().contains(secret),
            "`{secret}` leaked into stderr"
        );
    }
    assert!(
        c.invalid_lines().is_empty(),
        "only ACP on stdout: {:?}",
        c.invalid_lines()
    );
    let transcript = serde_json::to_string(&c.transcript()).unwrap();
    assert!(
        !transcript.contains("ada.lovelace@example.com"),
        "the e-mail is not sent to the editor either"
    );
}

/// claude updates itself, so users run releases newer than the tested range within days: such a
/// claude works and says nothing in the conversation (an editor without a notice surface would
/// show a notice as the agent's text in every new thread); its version is in the log, at info.
#[tokio::test]
async fn a_claude_newer_than_the_tested_range_says_nothing_in_the_conversation() {
    let s = Standin::new("untested_version");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    assert_eq!(
        c.prompt(&id, "say hello").await.unwrap()["stopReason"],
        "end_turn"
    );
    assert_eq!(c.agent_text(&id), "Hello from the mock model!");
    c.close_stdin().await;
    // Waited for so that all of stderr is in; how soon the adapter exits is process_hygiene's
    // check, and 2 s was not always enough on a loaded machine.
    c.wait_exit(Duration::from_secs(20)).await.expect("exited");
    let stderr = c.stderr_text();
    let named: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("9.9.9") && !l.contains("DEBUG"))
        .collect();
    assert_eq!(named.len(), 1, "{stderr}");
    assert!(
        named[0].contains("INFO") && named[0].contains("newer than"),
        "{}",
        named[0]
    );
    assert!(!stderr.contains("WARN"), "{stderr}");
}

#[tokio::test]
async fn a_claude_older_than_the_tested_range_is_told_to_update_once() {
    let s = Standin::new("too_old_version");
    let c = s.adapter(&[]);
    c.initialize().await;
    for _ in 0..2 {
        let id = c.new_session(&s.work).await;
        assert_eq!(
            c.prompt(&id, "say hello").await.unwrap()["stopReason"],
            "end_turn"
        );
    }
    c.close_stdin().await;
    // Waited for so that all of stderr is in; how soon the adapter exits is process_hygiene's
    // check, and 2 s was not always enough on a loaded machine.
    c.wait_exit(Duration::from_secs(20)).await.expect("exited");
    let warnings: Vec<String> = c
        .stderr_text()
        .lines()
        .filter(|l| l.contains("too old"))
        .map(str::to_owned)
        .collect();
    assert_eq!(warnings.len(), 1, "{:?}", c.stderr_text());
    assert!(
        warnings[0].contains("2.1.100") && warnings[0].contains("update claude"),
        "{}",
        warnings[0]
    );
}
