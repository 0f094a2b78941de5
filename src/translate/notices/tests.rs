use serde_json::{Value, json};

use super::*;

fn system(v: Value) -> SystemMessage {
    serde_json::from_value(v).unwrap()
}

/// (title, kind, severity) of each notice.
fn told(notices: Vec<Notice>) -> Vec<(String, &'static str, NoticeSeverity)> {
    notices
        .into_iter()
        .map(|n| (n.title, n.kind, n.severity))
        .collect()
}

fn init(servers: Value) -> SystemMessage {
    system(
        json!({"type": "system", "subtype": "init", "claude_code_version": "2.1.332",
        "mcp_servers": servers}),
    )
}

/// A notice's title, kind and severity.
type Told<'a> = (&'a str, &'a str, NoticeSeverity);

/// Each system line claude prints and the notice it gives; `None`: no notice.
#[test]
fn each_line_and_its_notice() {
    use NoticeSeverity::*;
    let table: Vec<(Value, Option<Told>)> = vec![
        (
            json!({"subtype": "init", "mcp_servers": [{"name": "db", "status": "failed", "error": "spawn ENOENT"}]}),
            Some((
                "MCP server db failed to start",
                kind::MCP_SERVER_FAILED,
                Error,
            )),
        ),
        (
            json!({"subtype": "init", "mcp_servers": [{"name": "gh", "status": "needs-auth"}]}),
            Some((
                "MCP server gh needs authentication",
                kind::MCP_SERVER_NEEDS_AUTH,
                Warning,
            )),
        ),
        (
            json!({"subtype": "init", "mcp_servers": [{"name": "x", "status": "disabled"}]}),
            Some(("MCP server x is disabled", kind::MCP_SERVER_DISABLED, Info)),
        ),
        (
            json!({"subtype": "init", "mcp_servers": [{"name": "ok", "status": "connected"},
                {"name": "later", "status": "pending"}]}),
            None,
        ),
        (
            json!({"subtype": "init", "claude_code_version": "2.0.1"}),
            Some((
                "claude 2.0.1 is older than claude-acp supports",
                kind::CLAUDE_VERSION,
                Warning,
            )),
        ),
        (
            json!({"subtype": "init", "claude_code_version": "9.9.9"}),
            // Newer than the tested range: nothing in the conversation.
            None,
        ),
        (
            json!({"subtype": "init", "claude_code_version": "2.1.332"}),
            None,
        ),
        (
            json!({"subtype": "model_refusal_fallback", "fallback_model": "claude-sonnet-4-5"}),
            Some((
                "Switched to claude-sonnet-4-5",
                kind::MODEL_FALLBACK,
                Warning,
            )),
        ),
        (
            json!({"subtype": "informational", "level": "warning",
                "content": "Switched to Sonnet due to high demand for Opus"}),
            Some((
                "Switched to Sonnet due to high demand for Opus",
                kind::MODEL_FALLBACK,
                Warning,
            )),
        ),
        (
            json!({"subtype": "informational", "level": "warning", "prevent_continuation": true,
                "content": "Stop hook prevented continuation\nnot on Fridays"}),
            Some((
                "Stop hook prevented continuation",
                kind::HOOK_BLOCKED,
                Warning,
            )),
        ),
        (
            json!({"subtype": "informational", "level": "notice", "content": "Prompt cache is cold"}),
            Some(("Prompt cache is cold", kind::CLAUDE_MESSAGE, Info)),
        ),
        (
            json!({"subtype": "informational", "level": "info", "content": "transcript only"}),
            None,
        ),
        (
            json!({"subtype": "notification", "key": "k", "text": "Auto-update failed", "priority": "high"}),
            Some(("Auto-update failed", kind::CLAUDE_MESSAGE, Warning)),
        ),
        (
            json!({"subtype": "hook_response", "hook_name": "PreToolUse:Bash", "hook_event": "PreToolUse",
                "outcome": "error", "exit_code": 2, "stderr": "no rm -rf", "stdout": "", "output": ""}),
            Some((
                "Hook PreToolUse:Bash blocked the action",
                kind::HOOK_BLOCKED,
                Warning,
            )),
        ),
        (
            json!({"subtype": "hook_response", "hook_name": "Stop", "outcome": "error", "exit_code": 1,
                "stderr": "boom"}),
            Some(("Hook Stop failed", kind::HOOK_MESSAGE, Warning)),
        ),
        (
            json!({"subtype": "hook_response", "hook_name": "Stop", "outcome": "success", "exit_code": 0}),
            None,
        ),
        (
            json!({"subtype": "task_notification", "task_id": "b1", "status": "stopped",
                "summary": "npm run dev", "output_file": "/tmp/x"}),
            Some(("A background task was stopped", kind::TASK_STOPPED, Info)),
        ),
        (
            json!({"subtype": "task_notification", "task_id": "b1", "status": "completed",
                "summary": "done", "output_file": "/tmp/x"}),
            None,
        ),
        (json!({"subtype": "status", "status": "requesting"}), None),
        (json!({"subtype": "thinking_tokens"}), None),
    ];
    for (line, expected) in table {
        let mut line = line;
        line["type"] = json!("system");
        let got = told(Notices::default().on_system(&system(line.clone())));
        let expected: Vec<_> = expected
            .into_iter()
            .map(|(t, k, s)| (t.to_owned(), k, s))
            .collect();
        assert_eq!(got, expected, "for {line}");
    }
}

/// claude repeats `system/init` at every turn: a failed server is told once, again only after it
/// came back and failed anew.
#[test]
fn a_failed_mcp_server_is_told_once_per_failure() {
    let mut n = Notices::default();
    let failed = json!([{"name": "db", "status": "failed"}]);
    assert_eq!(n.on_system(&init(failed.clone())).len(), 1);
    assert!(n.on_system(&init(failed.clone())).is_empty());
    assert!(
        n.on_system(&init(json!([{"name": "db", "status": "connected"}])))
            .is_empty()
    );
    let again = n.on_system(&init(failed));
    assert_eq!(again.len(), 1);
    assert_eq!(
        again[0].description.as_deref(),
        Some("Its tools are not available; `/mcp` lists the servers.")
    );
}

#[test]
fn the_version_is_told_once_per_session() {
    let mut n = Notices::default();
    let old = system(json!({"type": "system", "subtype": "init", "claude_code_version": "2.0.1"}));
    assert_eq!(n.on_system(&old).len(), 1);
    assert!(n.on_system(&old).is_empty());
}

#[test]
fn fast_mode_is_told_when_it_goes_off() {
    let mut n = Notices::default();
    let state = |s: &str| {
        system(
            json!({"type": "system", "subtype": "status", "fast_mode_state": s,
            "fast_mode_disabled_reason": "extra_usage_disabled"}),
        )
    };
    assert!(
        n.on_system(&state("off")).is_empty(),
        "never on: nothing to say"
    );
    assert!(n.on_system(&state("on")).is_empty());
    let off = n.on_system(&state("off"));
    assert_eq!(
        told(off.clone()),
        vec![(
            "Fast mode is off".into(),
            kind::FAST_MODE_OFF,
            NoticeSeverity::Info
        )]
    );
    assert_eq!(
        off[0].description.as_deref(),
        Some("Fast mode is off until extra usage is turned on for this account.")
    );
    assert!(n.on_system(&state("off")).is_empty());
}

#[test]
fn rate_limits_warn_once_per_status_of_each_window() {
    let mut n = Notices::default();
    let info = |window: &str, status: &str, used: f64| RateLimitInfo {
        status: status.into(),
        resets_at: Some(1_796_371_200.0),
        rate_limit_type: Some(window.into()),
        utilization: Some(used),
        is_using_overage: None,
        unified_windows: Default::default(),
    };
    assert!(
        n.on_rate_limit(&info("five_hour", "allowed", 0.2))
            .is_empty()
    );
    let warn = n.on_rate_limit(&info("five_hour", "allowed_warning", 0.91));
    assert_eq!(
        told(warn.clone()),
        vec![(
            "You have used 91% of your 5-hour limit".into(),
            kind::RATE_LIMIT,
            NoticeSeverity::Warning
        )]
    );
    assert_eq!(
        warn[0].description.as_deref(),
        Some("Resets at 2026-12-04 08:00 UTC.")
    );
    assert!(
        n.on_rate_limit(&info("five_hour", "allowed_warning", 0.93))
            .is_empty()
    );
    assert_eq!(
        told(n.on_rate_limit(&info("seven_day", "rejected", 1.0))),
        vec![(
            "Your weekly limit is reached".into(),
            kind::RATE_LIMIT,
            NoticeSeverity::Error
        )]
    );
}

#[test]
fn a_notice_as_an_agent_line() {
    let n = Notice {
        severity: NoticeSeverity::Error,
        kind: kind::MCP_SERVER_FAILED,
        title: "MCP server db failed to start".into(),
        description: Some("spawn ENOENT".into()),
    };
    assert_eq!(
        n.as_text(),
        "✖ MCP server db failed to start: spawn ENOENT\n\n"
    );
}

/// The pinned claude's event: the top-level fields name the representative window (its status
/// `allowed`), `unifiedWindows` has each window's own.
#[test]
fn each_unified_window_is_read_on_its_own() {
    let event: crate::claude::wire::RateLimitEvent = serde_json::from_value(json!({
        "type": "rate_limit_event", "rate_limit_info": {"status": "allowed", "resetsAt": 1796355754,
        "rateLimitType": "five_hour", "isUsingOverage": false, "unifiedWindows": {
            "five_hour": {"utilization": 0.91, "resetsAt": 1796355754, "status": "allowed_warning"},
            "seven_day": {"utilization": 0.3, "resetsAt": 1796611354, "status": "allowed"}}}}))
    .unwrap();
    assert_eq!(
        told(Notices::default().on_rate_limit(&event.rate_limit_info)),
        vec![(
            "You have used 91% of your 5-hour limit".into(),
            kind::RATE_LIMIT,
            NoticeSeverity::Warning
        )]
    );
}
