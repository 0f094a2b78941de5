//! The prompt's answer carries the turn's tokens (ACP's unstable end-turn `usage`), from claude's
//! `result`, with the stand-in as claude.

use crate::support::standin::Standin;
use serde_json::json;

#[tokio::test]
async fn the_prompt_response_carries_the_turns_tokens() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let answer = c.prompt(&id, "hello").await.unwrap();
    assert_eq!(answer["stopReason"], "end_turn");
    assert_eq!(
        answer["usage"],
        json!({"totalTokens": 2584, "inputTokens": 2574, "outputTokens": 10,
               "thoughtTokens": 0, "cachedReadTokens": 0, "cachedWriteTokens": 0})
    );
}
