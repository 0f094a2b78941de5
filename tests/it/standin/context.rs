//! `/context` in the prompt box: claude's context usage by category, as an agent message, without
//! a prompt reaching claude (so no model request); offered in the command list.

use std::time::Duration;

use crate::support::standin::Standin;

#[tokio::test]
async fn slash_context_shows_the_context_window_without_a_model_turn() {
    let s = Standin::new("context");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let offered = c.wait_for_commands(Duration::from_secs(10)).await;
    assert!(
        offered["update"]["availableCommands"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["name"] == "context"),
        "{offered}"
    );

    let stop = c.prompt(&id, "/context").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    let text = c.agent_text(&id);
    assert!(
        text.starts_with("**Context usage**: 15.5k of 200.0k tokens (8%) · claude-opus-5-5"),
        "{text}"
    );
    assert!(text.contains("| System tools | 12.4k | 6.2% |"), "{text}");
    assert!(text.contains("| Free space | 151.5k | 75.7% |"), "{text}");
    assert!(
        !s.received().iter().any(|l| l["type"] == "user"),
        "no prompt reached claude"
    );

    let stop = c.prompt(&id, "hello").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn", "the next prompt is a turn");
    assert!(c.agent_text(&id).ends_with("Hello from the mock model!"));
}
