//! `/context` with the real claude: its context usage by category, as an agent message, and the
//! mock API sees no request for it.

use std::time::Duration;

use crate::support::mock_api::{Reply, Rule};
use crate::support::real_session::RealSession;

#[tokio::test]
async fn slash_context_answers_from_claude_without_a_model_request() {
    let s = RealSession::start(vec![Rule::always(Reply::text("Hello."))]).await;
    s.client.set_timeout(Duration::from_secs(60));
    let stop = s.prompt("/context").await;
    assert_eq!(stop["stopReason"], "end_turn");
    let text = s.client.agent_text(&s.id);
    assert!(text.starts_with("**Context usage**: "), "{text}");
    assert!(text.contains("| Category | Tokens | Share |"), "{text}");
    assert!(text.contains("System prompt"), "{text}");
    assert!(
        s.mock.requests().is_empty(),
        "no model request for /context: {:?}",
        s.mock.requests().len()
    );
    s.prompt("hi").await;
    assert_eq!(
        s.mock.requests().len(),
        1,
        "the next prompt is a model turn"
    );
}
