//! claude for Windows' own `PowerShell` tool (claude.exe without Git Bash offers it in place of
//! Bash), with the real claude.exe behind claude-acp.exe: `.ci/windows` runs these under Wine with
//! the pinned claude for win32-x64 (`CLAUDE_ACP_TEST_CLAUDE`). With an editor that declares
//! `terminal`, the command runs in the editor's terminal with claude.exe's command line for
//! PowerShell; without one, claude.exe runs PowerShell itself. Either way the editor shows a
//! command and asks with claude's `PowerShell(...)` rules.
//!
//! Elsewhere the claude under test is the one for Linux (or macOS), which has Bash and no
//! PowerShell: there each test says so and returns (it is `#[ignore]`d too, so `cargo test`
//! lists it as not run and why).

use serde_json::{Value, json};

use super::editor_tools::{
    adapter_on_mock, asks, assert_builtins_offered_as_ours, assert_rule_saved, turn,
};
use crate::support::acp_client::choose_permission;
use crate::support::editor_terminals::{Terminals, terminal_capabilities};
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::claude_for_windows;
use crate::support::real_editor::{option_names, pick_by_name};
use crate::support::real_session::{RealSession, content_text};

/// claude.exe's PowerShell tool as it sends it to the model, captured under Wine.
const CAPTURED: &str = include_str!("../../../fixtures/windows/claude_2.1.332_tools.json");

/// Whether this run's claude is claude for Windows; if not, says why `test` does not run.
fn runs_here(test: &str) -> bool {
    let windows = claude_for_windows();
    if !windows {
        eprintln!(
            "{test}: not run: only claude for Windows (claude.exe) has a PowerShell tool, and \
             this run's claude has Bash; .ci/windows runs it under Wine"
        );
    }
    windows
}

/// The ask is claude's PowerShell's: a command, titled with it.
fn assert_asked_as_a_command(ask: &Value, command: &str) {
    let title = format!("Run `{command}`");
    assert_eq!(ask["toolCall"]["title"], title.as_str(), "{ask}");
    assert_eq!(ask["toolCall"]["kind"], "execute", "{ask}");
}

/// The model runs `command` with `tool` when given each of `prompts`, and answers its result.
fn script_turns(mock: &MockApi, tool: &str, command: &str, prompts: &[&str]) {
    for prompt in prompts {
        let call = Reply::tool_use(tool, json!({"command": command, "description": "Tests"}));
        mock.push_rule(Rule::on_prompt(*prompt, call));
        mock.push_rule(Rule::on_tool_result(Reply::text("Noted.")).once());
    }
}

#[tokio::test]
#[ignore = "claude for Windows only (claude.exe has PowerShell, claude for Linux Bash): .ci/windows runs it under Wine"]
async fn powershell_runs_in_the_editors_terminal_with_claude_exes_command_line() {
    if !runs_here("powershell_runs_in_the_editors_terminal_with_claude_exes_command_line") {
        return;
    }
    let (mock, env, c) = adapter_on_mock(&[]);
    let terminals = Terminals::default();
    terminals.script("npm test", "> test\r\n3 passing\r\n", 0);
    terminals.serve(&c);
    c.on_request(
        "session/request_permission",
        choose_permission("allow_always"),
    );
    c.initialize_with_capabilities(terminal_capabilities())
        .await;
    let id = c.new_session(env.work_dir()).await;
    script_turns(
        &mock,
        "mcp__acp__PowerShell",
        "npm test",
        &["run the tests", "once more"],
    );

    turn(&c, &id, "run the tests").await;

    // The model's next request carries the terminal's output as the command's result.
    let result = mock.requests()[1].tool_results();
    assert_eq!(result[0].text, "> test\n3 passing", "{result:?}");
    assert!(!result[0].is_error, "{result:?}");
    // The command reached the editor's terminal as claude.exe runs it: Windows PowerShell (Wine
    // has no pwsh) with its flags and ending (the test editor refuses any other command line),
    // in the workspace.
    let work = env.work_dir().display().to_string();
    assert_eq!(terminals.created(), [("npm test".to_owned(), work)]);
    assert_eq!(terminals.programs(), ["powershell"]);
    // The editor shows a command, titled with it, embedding its terminal.
    let card = c
        .tool_calls(&id)
        .into_iter()
        .find(|call| call["rawInput"]["command"] == "npm test")
        .expect("the PowerShell call's card");
    let card = c
        .tool_call_state(&id, card["toolCallId"].as_str().unwrap())
        .unwrap();
    assert_eq!(card["kind"], "execute", "{card}");
    assert_eq!(card["title"], "Run `npm test`", "{card}");
    assert_eq!(card["status"], "completed", "{card}");
    assert_eq!(
        card["content"],
        json!([{"type": "terminal", "terminalId": "term-1"}])
    );
    // Asked once, as claude's PowerShell; "Always allow" saved claude's PowerShell rule, which
    // then allows the same command unasked.
    let first = asks(&c);
    assert_eq!(first.len(), 1, "{first:#?}");
    assert_asked_as_a_command(&first[0], "npm test");
    let names = option_names(&first[0]);
    let always =
        "Always allow PowerShell(npm test) in this project (saved in .claude/settings.local.json)";
    assert!(names.iter().any(|n| n == always), "{names:?}");
    assert_rule_saved(&env, "PowerShell(npm test)").await;
    turn(&c, &id, "once more").await;
    assert_eq!(terminals.created().len(), 2);
    assert_eq!(asks(&c).len(), 1, "the saved rule allows it");

    // The model sees claude.exe's own PowerShell tool under our name; claude.exe's is off.
    let captured: Value = serde_json::from_str(CAPTURED).unwrap();
    let tools = json!({"tools": [captured["powershell_tool"]]}).to_string();
    assert_builtins_offered_as_ours(&mock, &tools);
    assert!(!mock.requests()[0].tool_names().iter().any(|t| t == "Bash"));
}

#[tokio::test]
#[ignore = "claude for Windows only (claude.exe has PowerShell, claude for Linux Bash): .ci/windows runs it under Wine"]
async fn without_a_terminal_claude_exe_runs_powershell_itself_shown_as_a_command() {
    if !runs_here("without_a_terminal_claude_exe_runs_powershell_itself_shown_as_a_command") {
        return;
    }
    let s = RealSession::start(Vec::new()).await;
    s.client.on_request(
        "session/request_permission",
        pick_by_name(&[
            "Allow",
            "Always reject PowerShell(npm test) in this session",
        ]),
    );
    let prompts = ["run the tests", "once more", "and again"];
    script_turns(&s.mock, "PowerShell", "npm test", &prompts);

    // Allowed once: claude.exe runs the command itself (no editor terminal). The editor shows a
    // command titled with it, and the card shows the result claude.exe gave the model.
    s.prompt("run the tests").await;
    let calls: Vec<Value> = s
        .client
        .tool_calls(&s.id)
        .iter()
        .map(|call| s.tool_call(call))
        .collect();
    assert_eq!(calls.len(), 1, "{calls:#?}");
    let card = &calls[0];
    assert_eq!(card["kind"], "execute", "{card}");
    assert_eq!(card["title"], "Run `npm test`", "{card}");
    assert_eq!(card["status"], "completed", "{card}");
    let result = s.mock.requests()[1].tool_results();
    assert_eq!(result.len(), 1, "{result:?}");
    assert!(!result[0].is_error, "{result:?}");
    assert!(
        content_text(card).contains(&result[0].text),
        "the card shows what the model got ({:?}): {card:#}",
        result[0].text
    );
    let asked = asks(&s.client);
    assert_eq!(asked.len(), 1, "{asked:#?}");
    assert_asked_as_a_command(&asked[0], "npm test");

    // "Always reject" puts claude's PowerShell rule for the one command in force: the same
    // command is refused, and the next time not asked.
    s.prompt("once more").await;
    s.prompt("and again").await;
    assert_eq!(
        asks(&s.client).len(),
        2,
        "the session's rule refuses it unasked"
    );
    let refused: Vec<_> = s.mock.requests()[2..]
        .iter()
        .flat_map(|r| r.tool_results())
        .collect();
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert!(refused.iter().all(|r| r.is_error), "{refused:?}");
    assert!(
        refused[0].text.contains("(PowerShell(npm test))"),
        "{refused:?}"
    );
    // claude.exe applies the rule to its own tool, and says so in its words.
    assert_eq!(
        refused[1].text, "Permission to use PowerShell with command npm test has been denied.",
        "{refused:?}"
    );
    let cards: Vec<Value> = s
        .client
        .tool_calls(&s.id)
        .iter()
        .map(|call| s.tool_call(call))
        .collect();
    assert_eq!(cards.len(), 3, "{cards:#?}");
    assert!(
        cards[1..].iter().all(|c| c["status"] == "failed"),
        "{cards:#?}"
    );
    s.assert_quick();
}
