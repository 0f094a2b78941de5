//! Compaction with the stand-in as claude playing `/compact` as the 2.1.332 CLI does: an editor that
//! declared `session.compaction` gets `compaction_update`s (in progress, completed); any other gets
//! a short agent message instead; and the context figure of the turn's `usage_update` drops to what
//! claude says is left.

use crate::support::acp_client::AcpClient;
use crate::support::standin::Standin;
use serde_json::{Value, json};

async fn initialize(c: &AcpClient, compaction: bool) {
    let mut capabilities = json!({"fs": {"readTextFile": false, "writeTextFile": false}});
    if compaction {
        capabilities["session"] = json!({"compaction": {}});
    }
    c.request(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": capabilities}),
    )
    .await
    .unwrap();
}

fn used(c: &AcpClient, id: &str) -> Vec<u64> {
    c.updates_of_kind(id, "usage_update")
        .iter()
        .map(|u| u["used"].as_u64().unwrap())
        .collect()
}

async fn compact(compaction: bool) -> (Standin, AcpClient, String) {
    let s = Standin::new("compact");
    let c = s.adapter(&[]);
    initialize(&c, compaction).await;
    let id = c.new_session(&s.work).await;
    c.prompt(&id, "hello").await.unwrap();
    let stop = c.prompt(&id, "/compact").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    (s, c, id)
}

#[tokio::test]
async fn an_editor_that_declared_compaction_gets_compaction_updates() {
    let (_s, c, id) = compact(true).await;
    let updates: Vec<Value> = c
        .updates_of_kind(&id, "compaction_update")
        .into_iter()
        .map(|u| json!([u["compactionId"], u["status"]]))
        .collect();
    assert_eq!(
        updates,
        vec![
            json!(["compaction-1", "in_progress"]),
            json!(["compaction-1", "completed"])
        ]
    );
    assert!(
        !c.agent_text(&id).contains("ompact"),
        "no text as well: {}",
        c.agent_text(&id)
    );
    assert_eq!(used(&c, &id), vec![2575, 2556], "the context drops");
}

#[tokio::test]
async fn other_editors_get_a_short_message() {
    let (_s, c, id) = compact(false).await;
    assert!(c.updates_of_kind(&id, "compaction_update").is_empty());
    let text = c.agent_text(&id);
    assert!(
        text.ends_with("Compacting the conversation…\n\nConversation compacted.\n\n"),
        "{text:?}"
    );
    assert_eq!(used(&c, &id), vec![2575, 2556], "the context drops");
}
