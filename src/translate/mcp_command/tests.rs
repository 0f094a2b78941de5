use serde_json::json;

use super::*;

fn prompt(text: &str) -> Vec<PromptBlock> {
    vec![PromptBlock::Text(text.into())]
}

#[test]
fn prompts_read_as_commands() {
    let act = |action, name: &str| Some(McpCommand::Act(action, name.into()));
    let cases: &[(&str, Option<McpCommand>)] = &[
        ("/mcp", Some(McpCommand::List)),
        ("  /mcp  ", Some(McpCommand::List)),
        ("/mcp reconnect echo", act(McpAction::Reconnect, "echo")),
        ("/mcp enable  echo ", act(McpAction::Enable, "echo")),
        (
            "/mcp disable `my server`",
            act(McpAction::Disable, "my server"),
        ),
        ("/mcpx", None),
        ("/model", None),
        ("tell me about /mcp", None),
    ];
    for (text, expected) in cases {
        assert_eq!(&mcp_command(&prompt(text)), expected, "{text:?}");
    }
    let Some(McpCommand::Bad(why)) = mcp_command(&prompt("/mcp disable")) else {
        panic!("a missing name is bad input")
    };
    assert_eq!(
        why,
        "`/mcp disable` needs the name of a server: `/mcp disable NAME`."
    );
    let Some(McpCommand::Bad(why)) = mcp_command(&prompt("/mcp restart echo")) else {
        panic!("an unknown subcommand is bad input")
    };
    assert!(why.starts_with("`/mcp restart` is not a command"), "{why}");
}

#[test]
fn actions_are_claude_s_control_requests() {
    let wire = |action: McpAction| serde_json::to_value(action.request("echo")).unwrap();
    assert_eq!(
        wire(McpAction::Reconnect),
        json!({"subtype": "mcp_reconnect", "serverName": "echo"})
    );
    assert_eq!(
        wire(McpAction::Enable),
        json!({"subtype": "mcp_toggle", "serverName": "echo", "enabled": true})
    );
    assert_eq!(
        wire(McpAction::Disable),
        json!({"subtype": "mcp_toggle", "serverName": "echo", "enabled": false})
    );
}

fn servers() -> Vec<McpServerStatus> {
    McpServerStatus::list_from_reply(&json!({"mcpServers": [
        {"name": "echo", "status": "connected", "tools": [{"name": "echo"}, {"name": "ask"}]},
        {"name": "db|prod", "status": "failed", "error": "spawn\nENOENT"},
        {"name": "docs", "status": "disabled"},
        {"name": "gh", "status": "needs-auth"},
    ]}))
    .unwrap()
}

#[test]
fn answers_say_what_was_done_then_list_the_servers() {
    let table = "## MCP servers\n\n| Server | State | Tools |\n| --- | --- | ---: |\n\
                 | echo | ✔ connected | 2 |\n\
                 | db\\|prod | ✖ failed: spawn ENOENT | – |\n\
                 | docs | ○ disabled | – |\n\
                 | gh | ⚠ needs authentication | – |\n";
    let disable = McpCommand::Act(McpAction::Disable, "docs".into());
    let cases = [
        (
            mcp_text(&McpCommand::List, None, Ok(servers())),
            format!("{table}\n{USAGE}\n"),
        ),
        (
            mcp_text(&disable, Some(Ok(())), Ok(servers())),
            format!("Disabled **docs**.\n\n{table}"),
        ),
        (
            mcp_text(
                &McpCommand::Act(McpAction::Reconnect, "nope".into()),
                Some(Err("Server not found: nope".into())),
                Ok(servers()),
            ),
            format!("Could not reconnect **nope**: Server not found: nope\n\n{table}"),
        ),
        (
            mcp_text(&McpCommand::Bad("Needs a name.".into()), None, Ok(vec![])),
            "Needs a name.\n\n## MCP servers\n\nclaude has no MCP servers in this session.\n"
                .into(),
        ),
        (
            mcp_text(&McpCommand::List, None, Err("timed out".into())),
            format!("## MCP servers\n\nclaude did not list its servers: timed out\n\n{USAGE}\n"),
        ),
    ];
    for (got, expected) in cases {
        assert_eq!(got, expected);
    }
}

#[test]
fn the_prompt_box_offers_mcp_with_its_subcommands() {
    let commands = with_mcp_command(vec![SlashCommand {
        name: "mcp".into(),
        description: "Manage MCP servers".into(),
        input_hint: None,
        skill: false,
    }]);
    assert_eq!(commands.len(), 1);
    assert_eq!(
        commands[0].input_hint.as_deref(),
        Some("[reconnect|enable|disable NAME]")
    );
    assert_eq!(with_mcp_command(vec![]).len(), 1);
}
