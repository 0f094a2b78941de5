//! The logins offered with the pinned claude installed: an editor that runs terminal logins
//! (`clientCapabilities.auth.terminal`) gets the subscription, Console and SSO logins beside
//! claude's own screen, each a login the pinned claude's `auth login` offers; one that does not
//! gets the screen only, and so does any editor while a key is set.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::MockApi;
use crate::support::real_cli::ClaudeEnv;

fn method_ids(init: &Value) -> Vec<&str> {
    init["authMethods"]
        .as_array()
        .unwrap_or_else(|| panic!("authMethods: {init}"))
        .iter()
        .map(|m| m["id"].as_str().unwrap_or_default())
        .collect()
}

async fn initialize(env: &ClaudeEnv, capabilities: Value) -> Value {
    let c = AcpClient::from_command(env.command(env!("CARGO_BIN_EXE_claude-acp")));
    c.set_timeout(Duration::from_secs(60));
    c.initialize_with_capabilities(capabilities).await
}

#[tokio::test]
async fn the_logins_offered_follow_auth_terminal_and_are_the_pinned_claude_s_own() {
    let mock = MockApi::start(vec![]);
    let env = ClaudeEnv::new(&mock).without_env("ANTHROPIC_API_KEY");
    let terminal = json!({"auth": {"terminal": true}});

    let init = initialize(&env, terminal.clone()).await;
    assert_eq!(
        method_ids(&init),
        [
            "claude-ai-login",
            "console-login",
            "sso-login",
            "claude-login"
        ],
        "{init}"
    );
    assert_eq!(
        init["_meta"]["claudeCode"]["auth"]["loggedIn"], false,
        "{init}"
    );
    let help = env
        .command(env.claude_binary())
        .args(["auth", "login", "--help"])
        .output()
        .await
        .expect("claude auth login --help");
    let help = String::from_utf8_lossy(&help.stdout);
    for method in init["authMethods"].as_array().unwrap() {
        let args: Vec<&str> = method["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        if let ["login", flag] = args.as_slice() {
            assert!(
                help.contains(&format!("  {flag} ")),
                "the pinned claude's `auth login` offers {flag}: {help}"
            );
        }
    }

    let init = initialize(&env, json!({})).await;
    assert_eq!(
        method_ids(&init),
        ["claude-login"],
        "no terminal logins: {init}"
    );

    let keyed = ClaudeEnv::new(&mock);
    let init = initialize(&keyed, terminal).await;
    assert_eq!(
        method_ids(&init),
        ["claude-login"],
        "as before with a key: {init}"
    );
}
