//! The model picker on a gateway's route, with the real CLI through claude-acp: `providers/set`
//! lists the gateway's models (`GET /v1/models`, with the provider's header) and the `model`
//! option then offers only claude's models the gateway lists, in the open session and in a new
//! one; the header's secret is in no process's command line and not in the log; a listing that
//! fails fails `providers/set`, naming the path, and changes nothing. An https gateway is listed
//! through the system's curl, with the trust the system's configuration gives it.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt as _;

// Every process's command line is read from /proc: that the secret is in none is checked on Linux.
use crate::support::acp_client::{AcpClient, config_option};
use crate::support::mock_api::{MockApi, Reply, Rule};
#[cfg(target_os = "linux")]
use crate::support::procs::command_lines_holding;
use crate::support::real_cli::ClaudeEnv;

const SECRET: &str = "gw-listing-secret-81d2";
const OTHER_SECRET: &str = "gw-listing-secret-rotated-07aa";

/// The values the `model` option of `options` offers.
fn offered(options: &Value) -> Vec<String> {
    let model =
        config_option(options, "model").unwrap_or_else(|| panic!("a model option: {options}"));
    model["options"]
        .as_array()
        .unwrap_or_else(|| panic!("the model option's values: {model}"))
        .iter()
        .map(|v| v["value"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn current(options: &Value) -> String {
    config_option(options, "model").unwrap()["currentValue"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn providers_set_narrows_the_model_picker_to_the_models_the_gateway_lists() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Hi."))]);
    mock.serve_model_listing(
        200,
        json!({"data": [{"id": "claude-sonnet-5-5-20260101", "type": "model"},
                        {"id": "claude-haiku-5-5", "type": "model"},
                        {"id": "some-other-model", "type": "model"}],
               "has_more": false, "last_id": "some-other-model"}),
    );
    let env = ClaudeEnv::new(&mock);
    let log = env.home_dir().join("claude-acp.log");
    let mut command = env.command(env!("CARGO_BIN_EXE_claude-acp"));
    command.arg("--log-file").arg(&log);
    let c = AcpClient::from_command(command);
    c.set_timeout(Duration::from_secs(60));
    c.initialize().await;
    let opened = c.open_session(env.work_dir()).await;
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    let before = offered(&c.options_holding(&opened, "model").await);
    assert!(
        before.iter().any(|m| m == "opus") && before.iter().any(|m| m == "sonnet"),
        "claude's own models are offered first: {before:?}"
    );
    c.prompt_to_end_turn(&id, "Remember the word pineapple.")
        .await;

    let updates = c.update_count();
    c.request(
        "providers/set",
        json!({"providerId": "main", "apiType": "anthropic", "baseUrl": mock.base_url(),
               "headers": {"X-Gateway-Secret": SECRET}}),
    )
    .await
    .unwrap_or_else(|e| panic!("providers/set: {e:?}\n{}", c.diagnostics()));
    let listing = mock.listing_requests();
    assert_eq!(listing.len(), 1, "the gateway is listed once: {listing:?}");
    assert_eq!(listing[0].header("x-gateway-secret"), Some(SECRET));
    assert_eq!(listing[0].header("authorization"), Some("Bearer acp-proxy"));
    assert_eq!(listing[0].header("anthropic-version"), Some("2023-06-01"));

    // A new session on the route offers only those, on the first of them.
    let second = c.open_session(env.work_dir()).await;
    assert_eq!(offered(&second["configOptions"]), ["sonnet", "haiku"]);
    assert_eq!(current(&second["configOptions"]), "sonnet");

    // The open session: its options narrowed at once, moved off the model the gateway lacks.
    let update = c
        .wait_for_update_from(
            updates,
            |u| {
                u["sessionId"] == id.as_str()
                    && u["update"]["sessionUpdate"] == "config_option_update"
            },
            Duration::from_secs(30),
        )
        .await;
    let options = &update["update"]["configOptions"];
    assert_eq!(offered(options), ["sonnet", "haiku"], "{options}");
    assert_eq!(current(options), "sonnet", "{options}");
    c.prompt_to_end_turn(&id, "Which word?").await;
    let routed = mock.requests().last().cloned().unwrap();
    assert_eq!(routed.header("x-gateway-secret"), Some(SECRET));
    assert!(
        routed.body["model"]
            .as_str()
            .is_some_and(|m| m.starts_with("claude-sonnet-5-5")),
        "claude asks the gateway for a model it lists: {}",
        routed.body["model"]
    );

    // A listing that fails: providers/set fails naming the path, and nothing changes.
    mock.serve_model_listing(500, json!({"error": "the gateway is down"}));
    let failed = c
        .request(
            "providers/set",
            json!({"providerId": "main", "apiType": "anthropic", "baseUrl": mock.base_url(),
                   "headers": {"X-Gateway-Secret": OTHER_SECRET}}),
        )
        .await
        .unwrap_err();
    assert_eq!(failed.code, -32603, "{failed:?}");
    assert!(
        failed.message.contains("GET /v1/models returned 500"),
        "{failed:?}"
    );
    assert!(!failed.message.contains(OTHER_SECRET), "{failed:?}");
    c.prompt_to_end_turn(&id, "Still there?").await;
    assert_eq!(
        mock.requests().last().unwrap().header("x-gateway-secret"),
        Some(SECRET),
        "the failed providers/set left the route as it was"
    );
    let third = c.open_session(env.work_dir()).await;
    assert_eq!(offered(&third["configOptions"]), ["sonnet", "haiku"]);

    #[cfg(target_os = "linux")]
    for secret in [SECRET, OTHER_SECRET] {
        assert!(
            command_lines_holding(secret).is_empty(),
            "the secret is in no argv: {:?}",
            command_lines_holding(secret)
        );
    }
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        logged.contains("/v1/models"),
        "the listing is logged: {logged}"
    );
    assert!(!logged.contains(SECRET) && !logged.contains(OTHER_SECRET));
}

/// The authority that signed the certificate `tests/it/support/tls/front.mjs` serves.
fn test_authority() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/support/tls/ca.crt")
}

/// An https front for `mock` (`tests/it/support/tls/front.mjs`), where claude-acp's processes
/// reach it (the mock's network namespace, when it has one); it ends when the child is dropped.
async fn https_front(env: &ClaudeEnv, mock: &MockApi) -> (tokio::process::Child, String) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/support/tls/front.mjs");
    let port = mock.base_url().rsplit(':').next().unwrap().to_owned();
    let mut front = env.command("node").arg(script).arg(port).spawn().unwrap();
    let stdout = front.stdout.take().unwrap();
    let mut line = String::new();
    tokio::time::timeout(
        Duration::from_secs(30),
        tokio::io::BufReader::new(stdout).read_line(&mut line),
    )
    .await
    .expect("the https front prints its port")
    .unwrap();
    (front, format!("https://127.0.0.1:{}", line.trim()))
}

/// The system's curl lists an https gateway: a certificate the system's configuration does not
/// trust fails `providers/set` with curl's reason and changes nothing; once trusted (here by
/// `CURL_CA_BUNDLE`, and `NODE_EXTRA_CA_CERTS` for claude), the header reaches the gateway, the
/// picker narrows and claude's own requests go there.
#[tokio::test]
#[ignore = "needs curl"]
async fn an_https_gateway_is_listed_through_curl_with_the_trust_the_system_gives_it() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("Hi over https."))]);
    mock.serve_model_listing(
        200,
        json!({"data": [{"id": "claude-haiku-5-5", "type": "model"}], "has_more": false}),
    );
    let env = ClaudeEnv::new(&mock);
    let (_front, gateway) = https_front(&env, &mock).await;
    let set = json!({"providerId": "main", "apiType": "anthropic", "baseUrl": gateway,
                     "headers": {"X-Gateway-Secret": SECRET}});

    let untrusting = AcpClient::from_command(env.command(env!("CARGO_BIN_EXE_claude-acp")));
    untrusting.initialize().await;
    let failed = untrusting
        .request("providers/set", set.clone())
        .await
        .expect_err("a gateway whose certificate the system does not trust is refused");
    assert_eq!(failed.code, -32603, "{failed:?}");
    assert!(
        failed.message.contains("GET /v1/models failed") && failed.message.contains("certificate"),
        "curl's reason is given: {failed:?}"
    );
    assert!(!failed.message.contains(SECRET), "{failed:?}");
    assert!(
        mock.listing_requests().is_empty(),
        "nothing reached the gateway"
    );
    let providers = untrusting
        .request("providers/list", json!({}))
        .await
        .unwrap();
    assert!(
        !providers.to_string().contains(&gateway),
        "the route is unchanged: {providers}"
    );
    drop(untrusting);

    let mut command = env.command(env!("CARGO_BIN_EXE_claude-acp"));
    command
        .env("CURL_CA_BUNDLE", test_authority())
        .env("NODE_EXTRA_CA_CERTS", test_authority());
    let c = AcpClient::from_command(command);
    c.set_timeout(Duration::from_secs(60));
    c.initialize().await;
    c.request("providers/set", set)
        .await
        .unwrap_or_else(|e| panic!("providers/set over https: {e:?}\n{}", c.diagnostics()));
    let listing = mock.listing_requests();
    assert_eq!(listing.len(), 1, "the gateway is listed once: {listing:?}");
    assert_eq!(listing[0].header("x-gateway-secret"), Some(SECRET));
    let opened = c.open_session(env.work_dir()).await;
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(
        offered(&c.options_holding(&opened, "model").await),
        ["haiku"]
    );
    c.prompt_to_end_turn(&id, "Over https?").await;
    let text = c.agent_text(&id);
    assert!(text.contains("Hi over https."), "{text}");
    let routed = mock.requests().last().cloned().unwrap();
    assert_eq!(routed.header("x-gateway-secret"), Some(SECRET));
}
