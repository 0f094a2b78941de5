//! The editor's gateway with the real CLI through claude-acp: `authenticate` with
//! `_meta.gateway` moves the open session's claude onto it at the next turn (resumed: the
//! conversation goes on), its header reaches the API, and the header's secret is in no process's
//! command line and not in the log; bad input is refused naming the field, and nothing changes.

use std::time::Duration;

use serde_json::json;

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{MockApi, Reply, Rule};
// Every process's command line is read from /proc: that the secret is in none is checked on Linux.
#[cfg(target_os = "linux")]
use crate::support::procs::command_lines_holding;
use crate::support::real_cli::ClaudeEnv;

const SECRET: &str = "gw-secret-5f0c9e";

#[tokio::test]
async fn a_gateway_set_by_authenticate_carries_its_header_and_the_session_goes_on() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Hi."))]);
    let env = ClaudeEnv::new(&mock);
    let log = env.home_dir().join("claude-acp.log");
    let mut command = env.command(env!("CARGO_BIN_EXE_claude-acp"));
    command.arg("--log-file").arg(&log);
    let c = AcpClient::from_command(command);
    c.set_timeout(Duration::from_secs(60));
    let init = c
        .initialize_with_capabilities(json!({"auth": {"_meta": {"gateway": true}}}))
        .await;
    let offered = init["authMethods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "gateway")
        .cloned()
        .unwrap_or_else(|| panic!("the gateway method is offered: {init}"));
    assert_eq!(
        offered["_meta"]["gateway"]["protocol"], "anthropic",
        "{offered}"
    );

    let id = c.new_session(env.work_dir()).await;
    c.prompt_to_end_turn(&id, "Remember the word pineapple.")
        .await;
    let first = mock.requests().last().cloned().unwrap();
    assert!(first.header("x-gateway-secret").is_none());

    let refused = c
        .request(
            "authenticate",
            json!({"methodId": "gateway", "_meta": {"gateway": {
                "baseUrl": "ftp://gateway.example", "headers": {"X-Gateway-Secret": SECRET}}}}),
        )
        .await
        .unwrap_err();
    assert_eq!(refused.code, -32602, "{refused:?}");
    assert!(
        refused.message.contains("`_meta.gateway.baseUrl`"),
        "{refused:?}"
    );
    c.prompt_to_end_turn(&id, "Still there?").await;
    assert!(
        mock.requests()
            .last()
            .unwrap()
            .header("x-gateway-secret")
            .is_none(),
        "a refused gateway changes nothing"
    );

    c.request(
        "authenticate",
        json!({"methodId": "gateway", "_meta": {"gateway": {
            "baseUrl": mock.base_url().to_string(), "headers": {"X-Gateway-Secret": SECRET}}}}),
    )
    .await
    .unwrap_or_else(|e| panic!("authenticate: {e:?}\n{}", c.diagnostics()));
    c.prompt_to_end_turn(&id, "Which word?").await;
    let routed = mock.requests().last().cloned().unwrap();
    assert_eq!(
        routed.header("x-gateway-secret"),
        Some(SECRET),
        "the header reached the API"
    );
    assert!(
        routed
            .body
            .to_string()
            .contains("Remember the word pineapple."),
        "the session's claude was resumed on the gateway: {}",
        routed.body
    );
    #[cfg(target_os = "linux")]
    assert!(
        command_lines_holding(SECRET).is_empty(),
        "the secret is in no argv: {:?}",
        command_lines_holding(SECRET)
    );
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        logged.contains("gateway"),
        "the route change is logged: {logged}"
    );
    assert!(!logged.contains(SECRET), "the secret is not in the log");

    // The Bedrock gateway login: offered beside the Anthropic one, and the route speaks Bedrock.
    let bedrock = init["authMethods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "gateway-bedrock")
        .cloned()
        .unwrap_or_else(|| panic!("the Bedrock gateway method is offered: {init}"));
    assert_eq!(
        bedrock["_meta"]["gateway"]["protocol"], "bedrock",
        "{bedrock}"
    );
    c.request(
        "authenticate",
        json!({"methodId": "gateway-bedrock", "_meta": {"gateway": {"baseUrl": mock.base_url()}}}),
    )
    .await
    .unwrap_or_else(|e| panic!("authenticate gateway-bedrock: {e:?}"));
    let route = main_provider(&c).await;
    assert_eq!(route["current"]["apiType"], "bedrock", "{route}");
}

/// `providers/list`'s one provider, `main`.
async fn main_provider(c: &AcpClient) -> serde_json::Value {
    let listed = c
        .request("providers/list", json!({}))
        .await
        .unwrap_or_else(|e| panic!("providers/list: {e:?}"));
    let providers = listed["providers"].as_array().cloned().unwrap_or_default();
    assert_eq!(providers.len(), 1, "{listed}");
    assert_eq!(providers[0]["providerId"], "main", "{listed}");
    providers[0].clone()
}

#[tokio::test]
async fn providers_set_moves_the_session_onto_the_gateway_and_disable_moves_it_back() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Hi."))]);
    let env = ClaudeEnv::new(&mock);
    let c = AcpClient::from_command(env.command(env!("CARGO_BIN_EXE_claude-acp")));
    c.set_timeout(Duration::from_secs(60));
    let init = c.initialize().await;
    assert_eq!(
        init["agentCapabilities"]["providers"],
        json!({}),
        "providers/* is advertised: {init}"
    );
    let native = main_provider(&c).await;
    assert_eq!(native["current"]["apiType"], "anthropic", "{native}");
    assert_eq!(
        native["current"]["baseUrl"],
        mock.base_url(),
        "the environment's route is shown: {native}"
    );
    assert_eq!(native["required"], false, "{native}");

    let id = c.new_session(env.work_dir()).await;
    c.prompt_to_end_turn(&id, "Remember the word pineapple.")
        .await;
    let set = |provider: &str, api: &str| {
        json!({"providerId": provider, "apiType": api, "baseUrl": mock.base_url(),
               "headers": {"X-Gateway-Secret": SECRET}})
    };
    let unknown = c
        .request("providers/set", set("openai", "anthropic"))
        .await
        .unwrap_err();
    assert_eq!(unknown.code, -32602, "{unknown:?}");
    assert!(
        unknown.message.contains("unknown provider `openai`"),
        "{unknown:?}"
    );

    c.request("providers/set", set("main", "anthropic"))
        .await
        .unwrap_or_else(|e| panic!("providers/set: {e:?}\n{}", c.diagnostics()));
    c.prompt_to_end_turn(&id, "Which word?").await;
    let routed = mock.requests().last().cloned().unwrap();
    assert_eq!(
        routed.header("x-gateway-secret"),
        Some(SECRET),
        "the provider's header reached the API"
    );
    assert!(
        routed
            .body
            .to_string()
            .contains("Remember the word pineapple."),
        "the session's claude was resumed on the provider's route: {}",
        routed.body
    );
    #[cfg(target_os = "linux")]
    assert!(
        command_lines_holding(SECRET).is_empty(),
        "the secret is in no argv"
    );

    c.request("providers/disable", json!({"providerId": "main"}))
        .await
        .unwrap_or_else(|e| panic!("providers/disable: {e:?}"));
    c.prompt_to_end_turn(&id, "And now?").await;
    let back = mock.requests().last().cloned().unwrap();
    assert!(
        back.header("x-gateway-secret").is_none(),
        "after providers/disable claude takes the environment's route again"
    );
    assert!(
        back.body.to_string().contains("Which word?"),
        "{}",
        back.body
    );

    // Bedrock: claude speaks Bedrock's API at the provider's URL (the mock answers it 404).
    c.request("providers/set", set("main", "bedrock"))
        .await
        .unwrap_or_else(|e| panic!("providers/set bedrock: {e:?}"));
    assert_eq!(main_provider(&c).await["current"]["apiType"], "bedrock");
    let before = mock.requests().len();
    let _ = c.prompt(&id, "Through Bedrock?").await;
    let others = mock.other_requests();
    assert!(
        others
            .iter()
            .any(|r| r.starts_with("POST /model/") && r.contains("invoke")),
        "claude called Bedrock's invoke at the provider's URL: {others:?}"
    );
    assert_eq!(
        mock.requests().len(),
        before,
        "nothing went to Anthropic's API"
    );
}
