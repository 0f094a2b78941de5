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
