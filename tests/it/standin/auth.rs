//! Not logged in: the editor is offered claude's own login, and a prompt fails with ACP's
//! auth_required error rather than a generic one, so the editor can start that login.

use crate::support::standin::Standin;
use serde_json::json;

#[tokio::test]
async fn initialize_offers_a_terminal_login_method() {
    let s = Standin::new("not_logged_in");
    let c = s.adapter(&[]);
    let init = c.initialize().await;
    let methods = init["authMethods"].as_array().expect("authMethods");
    let login = methods
        .iter()
        .find(|m| m["id"] == "claude-login")
        .expect("the claude login method");
    assert_eq!(login["type"], "terminal");
    assert_eq!(
        login["args"],
        json!(["login"]),
        "the editor runs `claude-acp login`"
    );
}

#[tokio::test]
async fn a_prompt_without_login_fails_with_auth_required() {
    let s = Standin::new("not_logged_in");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let err = c.prompt(&id, "hi").await.unwrap_err();
    assert_eq!(err.code, -32000, "ACP auth_required: {err:?}");
    assert!(err.message.contains("Not logged in"), "{}", err.message);
    assert!(
        err.message.contains("claude-acp login"),
        "says how to log in: {}",
        err.message
    );
}

/// No key or token from the machine running the tests: the adapter sees none.
const NO_KEY: [(&str, &str); 3] = [
    ("ANTHROPIC_API_KEY", ""),
    ("ANTHROPIC_AUTH_TOKEN", ""),
    ("CLAUDE_CODE_OAUTH_TOKEN", ""),
];

fn method_ids(init: &serde_json::Value) -> Vec<String> {
    init["authMethods"]
        .as_array()
        .expect("authMethods")
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_owned())
        .collect()
}

/// An editor that runs terminal logins gets the subscription, Console and SSO logins besides
/// claude's own screen; one that does not, and any editor when a key is set, only the screen.
#[tokio::test]
async fn the_logins_offered_follow_the_client_and_the_environment() {
    let s = Standin::new("not_logged_in");
    let c = s.adapter_with_env(&[], &NO_KEY);
    let init = c
        .initialize_with_capabilities(json!({"auth": {"terminal": true}}))
        .await;
    assert_eq!(
        method_ids(&init),
        [
            "claude-ai-login",
            "console-login",
            "sso-login",
            "claude-login"
        ]
    );
    let methods = init["authMethods"].as_array().unwrap();
    assert_eq!(methods[0]["args"], json!(["login", "--claudeai"]));
    assert_eq!(methods[1]["args"], json!(["login", "--console"]));
    assert_eq!(methods[2]["args"], json!(["login", "--sso"]));
    assert!(methods[0].get("_meta").is_none(), "{init}");
    assert_eq!(
        init["_meta"]["claudeCode"]["auth"]["loggedIn"], false,
        "{init}"
    );

    let c = s.adapter_with_env(&[], &NO_KEY);
    let init = c
        .initialize_with_capabilities(json!({"_meta": {"terminal-auth": true}}))
        .await;
    let console = &init["authMethods"][1];
    let launch = &console["_meta"]["terminal-auth"];
    assert!(
        launch["command"].as_str().unwrap().ends_with("claude-acp"),
        "{launch}"
    );
    let args: Vec<&str> = launch["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        args[0], "--claude-path",
        "its own arguments first: {args:?}"
    );
    assert!(args.ends_with(&["login", "--console"]), "{args:?}");

    let c = s.adapter_with_env(&[], &NO_KEY);
    let init = c.initialize().await;
    assert_eq!(method_ids(&init), ["claude-login"], "no terminal logins");

    let mut keyed = NO_KEY.to_vec();
    keyed[0] = ("ANTHROPIC_API_KEY", "sk-ant-api03-testkey");
    let c = s.adapter_with_env(&[], &keyed);
    let init = c
        .initialize_with_capabilities(json!({"auth": {"terminal": true}}))
        .await;
    assert_eq!(method_ids(&init), ["claude-login"], "as before with a key");
    let auth = &init["_meta"]["claudeCode"]["auth"];
    assert_eq!(auth["method"], "api_key", "{auth}");
    assert!(
        !init.to_string().contains("testkey"),
        "the key is not shown"
    );
}

/// `claude-acp login --console` runs `claude auth login --console`; `authenticate` then asks
/// claude whether the login took and tells the editor the new login, its e-mail masked.
#[tokio::test]
async fn a_terminal_login_runs_claude_s_login_and_authenticate_checks_it() {
    let s = Standin::new("not_logged_in");
    let config = s.config_dir();
    let login = |kind: &str, extra: &[(&str, &str)]| {
        let mut command = std::process::Command::new(crate::support::adapter());
        command
            .args(["--claude-path", s.claude.to_str().unwrap(), "login", kind])
            .env("CLAUDE_CONFIG_DIR", &config)
            .envs(NO_KEY)
            .envs(extra.iter().copied())
            .envs(s.env());
        command.status().unwrap()
    };
    let c = s.adapter_with_env(&[], &NO_KEY);
    c.initialize_with_capabilities(json!({"auth": {"terminal": true}}))
        .await;

    // Abandoned: nothing changes, and authenticate says the login did not take.
    assert!(!login("--claudeai", &[("CLAUDE_STANDIN_LOGIN", "abandon")]).success());
    let err = c
        .request("authenticate", json!({"methodId": "claude-ai-login"}))
        .await
        .unwrap_err();
    assert_eq!(err.code, -32000, "auth_required: {err:?}");
    assert!(err.message.contains("did not complete"), "{}", err.message);

    assert!(login("--console", &[]).success());
    c.request("authenticate", json!({"methodId": "console-login"}))
        .await
        .unwrap_or_else(|e| panic!("authenticate: {e}\n{}", c.diagnostics()));
    let argvs = s.argvs();
    assert!(
        argvs.contains(&vec!["auth".into(), "login".into(), "--claudeai".into()]),
        "{argvs:?}"
    );
    assert!(
        argvs.contains(&vec!["auth".into(), "login".into(), "--console".into()]),
        "{argvs:?}"
    );
    assert!(
        argvs.contains(&vec!["auth".into(), "status".into(), "--json".into()]),
        "{argvs:?}"
    );
    let told = c
        .notifications()
        .into_iter()
        .find(|n| n["method"] == "_claude/authStatus")
        .unwrap_or_else(|| panic!("no auth status: {:?}", c.notifications()));
    let auth = &told["params"]["auth"];
    assert_eq!(auth["method"], "console", "{auth}");
    assert_eq!(auth["email"], "[EMAIL]", "{auth}");
    assert!(!told.to_string().contains("ada@"), "{told}");

    let err = c
        .request("authenticate", json!({"methodId": "no-such-login"}))
        .await
        .unwrap_err();
    assert_eq!(err.code, -32602, "{err:?}");
}

/// claude that refuses to start because its sign-in ended (a typed start-up failure) fails the
/// prompt with ACP's auth_required, naming the reason, so the editor can offer its login.
#[tokio::test]
async fn a_claude_refusing_to_start_for_an_ended_sign_in_is_auth_required() {
    let s = Standin::new("startup_signin_ended");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let err = c.prompt(&id, "hi").await.unwrap_err();
    assert_eq!(err.code, -32000, "ACP auth_required: {err:?}");
    assert!(
        err.message.starts_with(
            "claude could not start (org_signin_ended): Your organization sign-in has ended"
        ) && err.message.contains("claude-acp login"),
        "{}",
        err.message
    );
}
