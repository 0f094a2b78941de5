//! `logout` with the stand-in as claude: advertised as `auth.logout`; it runs claude's own
//! `claude auth logout`, ends the session's claude (which holds the old login), and the next prompt
//! answers auth_required.

use std::time::Duration;

use crate::support::liveness;
use crate::support::standin::Standin;
use serde_json::json;

#[tokio::test]
async fn logout_then_the_next_prompt_is_auth_required() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    let init = c.initialize().await;
    assert_eq!(init["agentCapabilities"]["auth"]["logout"], json!({}));
    let id = c.new_session(&s.work).await;
    let first = c.prompt(&id, "hello").await.unwrap();
    assert_eq!(first["stopReason"], "end_turn");
    let pid = s.wait_started(1, Duration::from_secs(10)).await[0];

    c.request("logout", json!({})).await.unwrap();

    assert!(
        s.config_dir().join(".standin-logged-out").exists(),
        "claude's own logout did not run"
    );
    assert!(
        liveness::wait_until_gone(&[pid], Duration::from_secs(5)).await,
        "the claude holding the old login still runs"
    );
    let err = c.prompt(&id, "still there?").await.expect_err("logged out");
    assert_eq!(err.code, -32000, "{}", err.message);
    assert!(err.message.contains("Not logged in"), "{}", err.message);
}

#[tokio::test]
async fn a_failing_logout_says_why() {
    let s = Standin::new("text");
    // A config dir that cannot be created: the stand-in's logout fails as claude's would.
    let blocker = s.dir().join("file");
    std::fs::write(&blocker, "").unwrap();
    let config = blocker.join("claude-config");
    let c = s.adapter_with_env(&[], &[("CLAUDE_CONFIG_DIR", config.to_str().unwrap())]);
    c.initialize().await;
    let err = c.request("logout", json!({})).await.expect_err("fails");
    assert_eq!(err.code, -32603);
    assert!(
        err.message.contains("claude could not log out"),
        "{}",
        err.message
    );
}
