//! Bash in the editor's terminal (issue 12): with an editor that declares `terminal`, claude's Bash
//! commands run in editor terminals (`terminal/*`), the tool call embeds the terminal, and claude
//! gets the output and exit code in its own Bash format. The scripted editor here serves
//! `terminal/*` from memory.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::config_option;
use crate::support::editor_terminals::{Terminals, terminal_capabilities, write_bash_rules};
use crate::support::real_editor::option_names;
use crate::support::standin::Standin;

#[tokio::test]
async fn commands_run_in_the_editors_terminal_shown_in_the_tool_call() {
    let s = Standin::new("editor_terminal");
    let terminals = Terminals::default();
    terminals.script("cargo test", "running 1 test\r\ntest ok\r\n", 0);
    terminals.script("make lint", "lint: 2 problems\n", 3);
    terminals.script("true", "", 0);
    terminals.script("ls sub", "a.txt\n", 0);
    // claude's rules in the project's settings: `make lint` allowed, `rm -rf` denied.
    write_bash_rules(&s.work);
    let c = s.adapter(&[]);
    terminals.serve(&c);
    c.allow_permissions();
    c.initialize_with_capabilities(terminal_capabilities())
        .await;
    let id = c.new_session(&s.work).await;
    let outcome = c.prompt(&id, "Run the tests").await.unwrap();
    assert_eq!(outcome["stopReason"], "end_turn");
    // The script checked each result claude got: the output, `Exit code 3`, claude's no-output text.
    assert!(s.problems().is_empty(), "{:?}", s.problems());

    // claude's own Bash and TaskStop are off.
    let argv = s.argvs().remove(0).join(" ");
    assert!(argv.contains("--disallowedTools Bash,TaskStop"), "{argv}");

    // The allowed commands ran in the workspace, each in a terminal released afterwards; the
    // denied one never reached the editor.
    let work = s.work.display().to_string();
    let commands: Vec<(String, String)> = ["cargo test", "make lint", "true", "ls sub"]
        .iter()
        .map(|c| (c.to_string(), work.clone()))
        .collect();
    assert_eq!(terminals.created(), commands);
    assert_eq!(
        terminals.released(),
        ["term-1", "term-2", "term-3", "term-4"]
    );

    // The settings' rules were applied without asking, and `ls sub` ran unasked as with claude's
    // own Bash; the asks read as for claude's own Bash:
    // the command as title, an execute call, claude's "always" rule for this command.
    let asks = permission_asks(&c);
    assert_eq!(asks.len(), 2, "{asks:#?}");
    assert_eq!(asks[1]["toolCall"]["title"], "Run `true`");
    assert_eq!(asks[0]["toolCall"]["kind"], "execute");
    assert_eq!(asks[0]["toolCall"]["title"], "Run `cargo test`");
    let names = option_names(&asks[0]);
    assert!(
        names.iter().any(|n| n
            == "Always allow Bash(cargo test) in this project (saved in .claude/settings.local.json)"),
        "{names:?}"
    );

    // The cards embed the terminal, and keep it once claude reports the result.
    let card = c
        .tool_call_state(&id, "toolu_bash1")
        .expect("the Bash card");
    assert_eq!(card["kind"], "execute");
    assert_eq!(card["status"], "completed");
    assert_eq!(
        card["content"],
        json!([{"type": "terminal", "terminalId": "term-1"}])
    );
    let failed = c
        .tool_call_state(&id, "toolu_bash2")
        .expect("the failed card");
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["content"][0]["terminalId"], "term-2");
    let rejected = c
        .tool_call_state(&id, "toolu_bash3")
        .expect("the rejected card");
    assert_eq!(rejected["status"], "failed");
    assert_ne!(rejected["content"][0]["type"], "terminal");
}

/// claude for Windows offers PowerShell instead of Bash (here chosen with the setting, as
/// Windows chooses it): PowerShell is served with claude.exe's own definition, runs in the
/// editor's terminal with claude.exe's command line, and is ruled on by `PowerShell(...)` rules.
#[tokio::test]
async fn powershell_commands_run_in_the_editors_terminal_with_claudes_command_line() {
    let s = Standin::new("editor_terminal_powershell");
    let terminals = Terminals::default();
    terminals.script("cargo test", "running 1 test\r\ntest ok\r\n", 0);
    terminals.script("make lint", "lint: 2 problems\n", 3);
    terminals.script("git add .", "", 0);
    terminals.script("Get-ChildItem sub", "a.txt\n", 0);
    let settings = s.work.join(".claude");
    std::fs::create_dir_all(&settings).unwrap();
    std::fs::write(
        settings.join("settings.local.json"),
        r#"{"permissions": {"allow": ["PowerShell(make lint)", "Bash(git add .)"],
            "deny": ["PowerShell(Remove-Item:*)"]}}"#,
    )
    .unwrap();
    let c = s.adapter_with_env(&[], &[("CLAUDE_ACP_TERMINAL_SHELL", "powershell")]);
    terminals.serve(&c);
    c.allow_permissions();
    c.initialize_with_capabilities(terminal_capabilities())
        .await;
    let id = c.new_session(&s.work).await;
    let outcome = c.prompt(&id, "Run the tests").await.unwrap();
    assert_eq!(outcome["stopReason"], "end_turn");
    // The script checked the tool list (PowerShell, TaskStop) and each result claude got:
    // the output, `Exit code 3`, `(PowerShell completed with no output)`, the rule's deny.
    assert!(s.problems().is_empty(), "{:?}", s.problems());

    // claude's own command tools and TaskStop are off.
    let argv = s.argvs().remove(0).join(" ");
    assert!(
        argv.contains("--disallowedTools Bash,PowerShell,TaskStop"),
        "{argv}"
    );
    // Every allowed command ran through `powershell` in the workspace; the denied one never
    // reached the editor.
    let work = s.work.display().to_string();
    let commands: Vec<(String, String)> =
        ["cargo test", "make lint", "git add .", "Get-ChildItem sub"]
            .iter()
            .map(|c| (c.to_string(), work.clone()))
            .collect();
    assert_eq!(terminals.created(), commands);
    assert_eq!(terminals.programs(), ["powershell"; 4]);

    // `make lint` was allowed by its PowerShell rule, not the Bash one for `git add .`; every other
    // command was asked about (none is run unasked), each as claude's own PowerShell.
    let asks = permission_asks(&c);
    let titles: Vec<&str> = asks
        .iter()
        .filter_map(|a| a["toolCall"]["title"].as_str())
        .collect();
    assert_eq!(
        titles,
        [
            "Run `cargo test`",
            "Run `git add .`",
            "Run `Get-ChildItem sub`"
        ]
    );
    assert_eq!(asks[0]["toolCall"]["kind"], "execute");
    let names = option_names(&asks[0]);
    assert!(
        names.iter().any(|n| n
            == "Always allow PowerShell(cargo test) in this project (saved in .claude/settings.local.json)"),
        "{names:?}"
    );
    let card = c
        .tool_call_state(&id, "toolu_ps1")
        .expect("the PowerShell card");
    assert_eq!(card["kind"], "execute");
    assert_eq!(card["status"], "completed");
    assert_eq!(
        card["content"],
        json!([{"type": "terminal", "terminalId": "term-1"}])
    );
    let rejected = c
        .tool_call_state(&id, "toolu_ps3")
        .expect("the rejected card");
    assert_eq!(rejected["status"], "failed");
}

#[tokio::test]
async fn a_command_past_its_timeout_is_killed_and_claude_is_told_so() {
    let s = Standin::new("editor_terminal_timeout");
    let terminals = Terminals::default();
    let c = s.adapter(&[]);
    terminals.serve(&c);
    // `npm run serve` never ends: the editor holds its wait_for_exit.
    c.hold_requests("terminal/wait_for_exit");
    c.allow_permissions();
    c.initialize_with_capabilities(terminal_capabilities())
        .await;
    let id = c.new_session(&s.work).await;
    let outcome = c.prompt(&id, "Start the server").await.unwrap();
    assert_eq!(outcome["stopReason"], "end_turn");
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    assert_eq!(terminals.killed(), ["term-1"]);
    assert_eq!(terminals.released(), ["term-1"]);
}

#[tokio::test]
async fn a_cancel_kills_the_running_command_and_releases_its_terminal() {
    let s = Standin::new("editor_terminal_cancel");
    let terminals = Terminals::default();
    let c = s.adapter(&[]);
    terminals.serve(&c);
    c.hold_requests("terminal/wait_for_exit");
    c.allow_permissions();
    c.initialize_with_capabilities(terminal_capabilities())
        .await;
    let id = c.new_session(&s.work).await;
    let started = std::time::Instant::now();
    let (outcome, _) = tokio::join!(c.prompt(&id, "Start the server"), async {
        c.next_request("terminal/wait_for_exit").await;
        c.cancel(&id).await;
    });
    assert_eq!(outcome.unwrap()["stopReason"], "cancelled");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    // Killed and released from a task of its own.
    terminals.wait_for_a_release().await;
    assert_eq!(terminals.killed(), ["term-1"]);
    assert_eq!(terminals.released(), ["term-1"]);
}

#[tokio::test]
async fn the_terminal_option_and_meta_key_choose_claudes_own_bash() {
    let s = Standin::new("write_allow");
    let c = s.adapter(&[]);
    c.allow_permissions();
    c.initialize_with_capabilities(terminal_capabilities())
        .await;
    let opened = c
        .request(
            "session/new",
            json!({"cwd": s.work, "mcpServers": [], "_meta": {"terminal": "claude"}}),
        )
        .await
        .unwrap();
    let option = config_option(&opened["configOptions"], "terminal").expect("a Terminal option");
    assert_eq!(option["name"], "Terminal");
    assert_eq!(option["currentValue"], "claude");
    let names: Vec<&str> = option["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert_eq!(names, ["Run in editor", "Run in claude"]);
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    c.prompt(&id, "Please create hello.txt").await.unwrap();
    let argv = s.argvs().remove(0).join(" ");
    assert!(!argv.contains("--disallowedTools"), "{argv}");
    assert!(s.problems().is_empty(), "{:?}", s.problems());

    let bad = c
        .request(
            "session/new",
            json!({"cwd": s.work, "mcpServers": [], "_meta": {"terminal": "sometimes"}}),
        )
        .await
        .unwrap_err();
    assert!(bad.message.contains("_meta.terminal"), "{}", bad.message);
}

#[tokio::test]
async fn closing_the_session_kills_the_running_command_and_releases_its_terminal() {
    let s = Standin::new("editor_terminal_cancel");
    let terminals = Terminals::default();
    let c = std::sync::Arc::new(s.adapter(&[]));
    terminals.serve(&c);
    c.hold_requests("terminal/wait_for_exit");
    c.allow_permissions();
    c.initialize_with_capabilities(terminal_capabilities())
        .await;
    let id = c.new_session(&s.work).await;
    let prompt = {
        let (c, id) = (c.clone(), id.clone());
        tokio::spawn(async move { c.prompt(&id, "Start the server").await })
    };
    c.next_request("terminal/wait_for_exit").await;
    c.request("session/close", json!({"sessionId": id}))
        .await
        .unwrap();
    let answered = tokio::time::timeout(Duration::from_secs(5), prompt)
        .await
        .expect("the prompt in flight is answered")
        .unwrap();
    assert_eq!(answered.unwrap()["stopReason"], "cancelled");
    terminals.wait_for_a_release().await;
    assert_eq!(terminals.killed(), ["term-1"]);
    assert_eq!(terminals.released(), ["term-1"]);
}

#[tokio::test]
async fn switching_the_terminal_to_claude_restarts_claude_with_its_own_bash() {
    let s = Standin::new("write_allow");
    let c = s.adapter(&[]);
    c.allow_permissions();
    c.initialize_with_capabilities(terminal_capabilities())
        .await;
    let id = c.new_session(&s.work).await;
    s.wait_started(1, Duration::from_secs(10)).await;
    let options = c
        .request(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "terminal", "value": "claude"}),
        )
        .await
        .unwrap();
    let current =
        config_option(&options["configOptions"], "terminal").map(|o| o["currentValue"].clone());
    assert_eq!(current, Some(json!("claude")));
    c.prompt(&id, "Please create hello.txt").await.unwrap();
    let argvs: Vec<String> = s.argvs().into_iter().map(|a| a.join(" ")).collect();
    assert_eq!(argvs.len(), 2, "{argvs:#?}");
    assert!(
        argvs[0].contains("--disallowedTools Bash,TaskStop"),
        "{}",
        argvs[0]
    );
    assert!(!argvs[1].contains("--disallowedTools"), "{}", argvs[1]);
}

#[tokio::test]
async fn claude_is_not_stopped_as_idle_while_a_background_command_runs() {
    let s = Standin::new("editor_terminal_background");
    let terminals = Terminals::default();
    let c = s.adapter(&["--idle-timeout", "1"]);
    terminals.serve(&c);
    c.hold_requests("terminal/wait_for_exit");
    c.allow_permissions();
    c.initialize_with_capabilities(terminal_capabilities())
        .await;
    let id = c.new_session(&s.work).await;
    let outcome = c.prompt(&id, "Serve it").await.unwrap();
    assert_eq!(outcome["stopReason"], "end_turn");
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    let pid = s.wait_started(1, Duration::from_secs(10)).await[0];
    // Well past the idle timeout: claude, and so the command, still run.
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert!(
        crate::support::liveness::is_alive(pid),
        "claude was stopped"
    );
    assert!(terminals.killed().is_empty(), "{:?}", terminals.killed());
    assert!(
        terminals.released().is_empty(),
        "{:?}",
        terminals.released()
    );
}

/// "Serve it" run to its end with the background command still running in the editor's terminal:
/// its card, still in progress, with the command's id.
async fn served_in_the_background(
    s: &Standin,
    terminals: &Terminals,
) -> (crate::support::acp_client::AcpClient, String, String) {
    let c = s.adapter(&[]);
    terminals.serve(&c);
    c.hold_requests("terminal/wait_for_exit");
    c.allow_permissions();
    c.initialize_with_capabilities(terminal_capabilities())
        .await;
    let id = c.new_session(&s.work).await;
    let outcome = c.prompt(&id, "Serve it").await.unwrap();
    assert_eq!(outcome["stopReason"], "end_turn");
    let card = c.tool_call_state(&id, "toolu_serve").unwrap();
    assert_eq!(card["status"], "in_progress", "{card}");
    assert_eq!(
        card["content"][0]["type"], "terminal",
        "the terminal stays shown: {card}"
    );
    let job = card["_meta"]["claudeCode"]["asyncTaskId"]
        .as_str()
        .unwrap_or_else(|| panic!("no job id: {card}"))
        .to_owned();
    (c, id, job)
}

#[tokio::test]
async fn a_background_command_in_the_editors_terminal_completes_its_card_when_it_ends() {
    let s = Standin::new("editor_terminal_background");
    let terminals = Terminals::default();
    let (c, id, _) = served_in_the_background(&s, &terminals).await;
    // The command ends with exit code 3: its card fails, keeping the terminal.
    terminals.script("npm run dev", "listening\n", 3);
    c.wait_for_update(
        |u| u["update"]["toolCallId"] == "toolu_serve" && u["update"]["status"] == "failed",
        Duration::from_secs(10),
    )
    .await;
    let card = c.tool_call_state(&id, "toolu_serve").unwrap();
    assert_eq!(card["content"][0]["type"], "terminal", "{card}");
    terminals.wait_for_a_release().await;
    assert_eq!(terminals.released(), ["term-1"]);
}

#[tokio::test]
async fn a_background_command_in_the_editors_terminal_is_stopped_by_its_id() {
    let s = Standin::new("editor_terminal_background");
    let terminals = Terminals::default();
    let (c, id, job) = served_in_the_background(&s, &terminals).await;
    let stopped = c
        .request(
            "_session/async_task/stop",
            json!({"sessionId": id, "asyncTaskId": job}),
        )
        .await
        .unwrap();
    assert_eq!(stopped, json!({"stopped": true}));
    assert_eq!(
        c.tool_call_state(&id, "toolu_serve").unwrap()["status"],
        "failed"
    );
    assert_eq!(terminals.killed(), ["term-1"]);
    let again = c
        .request(
            "_session/async_task/stop",
            json!({"sessionId": id, "asyncTaskId": job}),
        )
        .await
        .unwrap();
    assert_eq!(again, json!({"stopped": false}), "it runs no more");
}

/// The editor's permission requests, in order.
fn permission_asks(c: &crate::support::acp_client::AcpClient) -> Vec<Value> {
    c.requests()
        .into_iter()
        .filter(|r| r.method == "session/request_permission")
        .map(|r| r.params)
        .collect()
}
