//! claude's permission asks reach the editor as `session/request_permission`, and the answer is
//! what happens: allowed writes land on disk, rejected ones do not, and any doubt is a deny.

use crate::support::acp_client::{AcpClient, choose_permission};
use crate::support::standin::Standin;
use serde_json::Value;

/// A session on `fixture` whose editor answers every permission ask with `option`.
async fn session_answering(fixture: &str, option: &'static str) -> (Standin, AcpClient, String) {
    let s = Standin::new(fixture);
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    c.on_request("session/request_permission", choose_permission(option));
    (s, c, id)
}

fn permission_reply(s: &Standin) -> Value {
    s.received()
        .into_iter()
        .find(|l| l["type"] == "control_response")
        .map(|l| l["response"]["response"].clone())
        .expect("claude got an answer to its permission request")
}

#[tokio::test]
async fn an_allowed_write_lands_on_disk() {
    let (s, c, id) = session_answering("write_allow", "allow_once").await;
    let stop = c.prompt(&id, "Please create hello.txt").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert_eq!(
        std::fs::read_to_string(s.work.join("hello.txt")).unwrap(),
        "Hello, world!\n"
    );

    let asks = c.requests();
    let ask = asks
        .iter()
        .find(|r| r.method == "session/request_permission")
        .unwrap();
    assert_eq!(ask.params["sessionId"], id);
    assert_eq!(ask.params["toolCall"]["title"], "Write hello.txt");
    assert_eq!(ask.params["toolCall"]["kind"], "edit");
    let tool_call_id = ask.params["toolCall"]["toolCallId"].as_str().unwrap();
    assert!(
        c.tool_calls(&id)
            .iter()
            .any(|t| t["toolCallId"] == tool_call_id),
        "the ask names a tool call the editor saw"
    );
    let reply = permission_reply(&s);
    assert_eq!(reply["behavior"], "allow");
    assert_eq!(reply["updatedInput"]["content"], "Hello, world!\n");

    // A new file: the diff says so with the key present and null (Toad shows its diff review
    // only then), in the ask and in the tool call card.
    let diff_has_null_old_text = |content: &Value| {
        let diff = &content[0];
        diff["type"] == "diff" && diff.as_object().unwrap().get("oldText") == Some(&Value::Null)
    };
    assert!(
        diff_has_null_old_text(&ask.params["toolCall"]["content"]),
        "{}",
        ask.params["toolCall"]
    );
    let card = c
        .tool_calls(&id)
        .into_iter()
        .find(|t| t["toolCallId"] == tool_call_id)
        .unwrap();
    assert!(diff_has_null_old_text(&card["content"]), "{card}");
}

#[tokio::test]
async fn a_rejected_write_does_not_happen_and_the_model_is_told() {
    let (s, c, id) = session_answering("write_deny", "reject_once").await;
    c.prompt(&id, "Please create hello.txt").await.unwrap();
    assert!(!s.work.join("hello.txt").exists());
    let reply = permission_reply(&s);
    assert_eq!(reply["behavior"], "deny");
    assert!(
        reply["message"].as_str().unwrap().contains("rejected"),
        "{reply}"
    );
}

#[tokio::test]
async fn an_editor_error_is_a_deny_that_says_why() {
    let s = Standin::new("write_deny");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    c.on_request("session/request_permission", |_| {
        Err((-32603, "the dialog crashed".to_string()))
    });
    c.prompt(&id, "Please create hello.txt").await.unwrap();
    assert!(!s.work.join("hello.txt").exists());
    let reply = permission_reply(&s);
    assert_eq!(reply["behavior"], "deny");
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("the dialog crashed"),
        "{reply}"
    );
}

#[tokio::test]
async fn a_write_too_large_for_one_buffered_line_reaches_the_editor_whole_and_its_answer_reaches_claude()
 {
    // Each of claude's lines is 2 MiB: the ask is over the 1 MiB above which it is serialised
    // while written, past the SDK.
    let (s, c, id) = session_answering("big_write_permission", "allow_once").await;
    let stop = c.prompt(&id, "Please create big.txt").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");

    let asks = c.requests();
    let ask = asks
        .iter()
        .find(|r| r.method == "session/request_permission")
        .unwrap();
    let tool_call = &ask.params["toolCall"];
    assert_eq!(tool_call["title"], "Write big.txt");
    // The stand-in fills the content with `x` up to the line's size.
    let content = tool_call["rawInput"]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(
        content.len() > 2_000_000,
        "rawInput's content: {} bytes",
        content.len()
    );
    assert!(
        content.bytes().all(|b| b == b'x'),
        "rawInput's content is claude's"
    );
    assert!(
        tool_call["content"][0]["newText"] == content,
        "the diff whole"
    );
    let reply = permission_reply(&s);
    assert_eq!(reply["behavior"], "allow");
    assert!(
        reply["updatedInput"]["content"] == content,
        "claude gets the input back whole"
    );
    // All three of claude's 2 MiB lines passed, one at a time (the reader waits after each big
    // one until it has gone to the editor): the tool call with its diff, and the tool result
    // whose `rawOutput` holds the file again.
    let call = c.updates_of_kind(&id, "tool_call");
    let diff = &call[0]["content"][0];
    assert!(
        diff["newText"]
            .as_str()
            .is_some_and(|t| t.len() > 2_000_000 && t.bytes().all(|b| b == b'x')),
        "the tool call's diff is the whole file"
    );
    let results = c.updates_of_kind(&id, "tool_call_update");
    let written = results
        .iter()
        .find_map(|u| u["rawOutput"]["content"].as_str())
        .unwrap_or_default();
    assert!(
        written.len() > 2_000_000 && written.bytes().all(|b| b == b'x'),
        "the tool result's file reached the editor whole ({} bytes)",
        written.len()
    );
}

/// claude keeps who answered a permission ask in the call's record: an "always allow" is a
/// person's answer for good (`decisionClassification: "user_permanent"`), which the stand-in's
/// script expects before it writes the file.
#[tokio::test]
async fn an_always_allow_tells_claude_a_person_allowed_it_for_good() {
    let s = Standin::new("write_allow_always_classified");
    let c = s.adapter(&[]);
    c.on_request(
        "session/request_permission",
        crate::support::acp_client::choose_permission("allow_always"),
    );
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let stop = c
        .prompt(&id, "Please create hello.txt")
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", c.stderr_text()));
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(s.work.join("hello.txt").exists(), "the Write ran");
}
