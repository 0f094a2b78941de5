//! Slash commands with the real CLI through claude-acp: the prompt box is offered claude's
//! commands, and a prompt starting with `/name` reaches claude as that command.

use std::time::Duration;

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;

#[tokio::test]
async fn a_slash_command_prompt_is_run_by_claude_as_the_command() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Hello, Ada!"))]);
    let env = ClaudeEnv::new(&mock);
    let commands = env.work_dir().join(".claude/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("greet.md"),
        "Greet $ARGUMENTS warmly, in one line.\n",
    )
    .unwrap();

    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(Duration::from_secs(60));
    c.initialize().await;
    let id = c.new_session(env.work_dir()).await;

    let offered = c.wait_for_commands(Duration::from_secs(30)).await;
    let names: Vec<&str> = offered["update"]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(
        names.contains(&"greet"),
        "the project's command is offered: {names:?}"
    );
    assert!(names.contains(&"compact"), "{names:?}");
    assert!(
        !names.contains(&"login"),
        "terminal-only commands are hidden: {names:?}"
    );

    let stop = c.prompt(&id, "/greet Ada").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        mock.any_request_contains("Greet Ada warmly"),
        "claude expanded the command before calling the model: {:?}",
        mock.requests()
            .iter()
            .map(|r| r.latest_prompt_text())
            .collect::<Vec<_>>()
    );
    assert_eq!(c.agent_text(&id), "Hello, Ada!");
}
