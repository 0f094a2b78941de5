//! An editor that declares none of schema 1.20's capabilities (`session.promptSuggestions`,
//! `session.commands.skill`, `session.cursors`) gets what it got before claude-acp served them,
//! byte for byte: claude's skills as commands, Fast mode as a `model_config` option, and no prompt
//! suggestion (the stand-in sends one anyway). The whole stdout of two turns is the snapshot.

use serde_json::Value;

use crate::support::standin::Standin;

/// `text` with the run's own values (the session's id, times) named instead.
fn normalised(text: String, session: &str) -> String {
    let text = text.replace(session, "<session>");
    // RFC 3339 times (`updatedAt`): "2026-12-06T20:41:32.123Z" and the like.
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("\"20") {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let end = from[1..].find('"').map_or(from.len(), |e| e + 2);
        let value = &from[..end];
        if value.len() > 20 && value.as_bytes().get(11) == Some(&b'T') {
            out.push_str("\"<time>\"");
        } else {
            out.push_str(value);
        }
        rest = &from[end..];
    }
    out.push_str(rest);
    out
}

#[tokio::test]
async fn an_editor_without_1_20s_capabilities_sees_what_it_saw_before() {
    let s = Standin::new("schema_1_20_unused");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    for text in ["hello", "again"] {
        let answer = c.prompt(&id, text).await.unwrap();
        assert_eq!(answer["stopReason"], "end_turn", "{}", c.diagnostics());
    }
    let lines: Vec<String> = c.transcript().iter().map(Value::to_string).collect();
    insta::assert_snapshot!(normalised(lines.join("\n"), &id));
}
