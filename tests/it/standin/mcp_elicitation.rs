//! An MCP server's question (claude's `elicitation` control request), with the stand-in playing
//! claude: a form and a page become the editor's `elicitation/create` (the server's schema and URL
//! as sent), the editor's accept (with the form's content), decline and a pending ask cancelled
//! reach claude as MCP's `ElicitResult`; an editor without elicitation gets a notice and the
//! server a `decline`.

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::standin::Standin;

/// One prompt whose elicitation the editor answers with `result`; returns the editor's request.
async fn answered(c: &AcpClient, id: &str, prompt: &str, result: Value) -> Value {
    let (stop, params) = tokio::join!(c.prompt(id, prompt), async {
        let ask = c.next_request("elicitation/create").await;
        c.respond(&ask.id, result).await;
        ask.params
    });
    assert_eq!(stop.unwrap()["stopReason"], "end_turn", "{prompt}");
    params
}

#[tokio::test]
async fn an_mcp_server_s_form_and_page_are_asked_of_the_editor() {
    let s = Standin::new("mcp_elicitation");
    let c = s.adapter(&[]);
    c.initialize_with_capabilities(json!({"elicitation": {"form": {}, "url": {}}}))
        .await;
    let id = c.new_session(&s.work).await;
    c.hold_requests("elicitation/create");

    let form = answered(
        &c,
        &id,
        "ask my name",
        json!({"action": "accept", "content": {"name": "Ada"}}),
    )
    .await;
    assert_eq!(form["mode"], "form", "{form}");
    assert_eq!(form["sessionId"], id.as_str());
    assert_eq!(form["message"], "MCP server echo asks: What is your name?");
    assert_eq!(
        form["requestedSchema"],
        json!({"type": "object", "properties": {"name": {"type": "string", "title": "Name"}},
               "required": ["name"]}),
        "the server's own schema"
    );

    let page = answered(&c, &id, "sign me in", json!({"action": "accept"})).await;
    assert_eq!(page["mode"], "url", "{page}");
    assert_eq!(page["url"], "https://example.com/echo-login");
    assert_eq!(page["elicitationId"], "echo-login-1");

    answered(&c, &id, "ask again", json!({"action": "decline"})).await;

    // A question still open when the user cancels the turn: the server hears `cancel`.
    let (stop, ()) = tokio::join!(c.prompt(&id, "ask and wait"), async {
        c.next_request("elicitation/create").await;
        c.cancel(&id).await;
    });
    assert_eq!(stop.unwrap()["stopReason"], "cancelled");
}

#[tokio::test]
async fn without_elicitation_the_server_hears_no_and_the_user_why() {
    let s = Standin::new("mcp_elicitation_unsupported");
    let c = s.adapter(&[]);
    c.initialize_with_capabilities(json!({"session": {"notices": {}}}))
        .await;
    let id = c.new_session(&s.work).await;
    let stop = c.prompt(&id, "ask my name").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    assert!(
        !c.requests()
            .iter()
            .any(|r| r.method == "elicitation/create"),
        "nothing asked of an editor that cannot show it"
    );
    let notices = c.updates_of_kind(&id, "notice");
    let told: Vec<(&str, &str)> = notices
        .iter()
        .map(|n| {
            (
                n["title"].as_str().unwrap_or_default(),
                n["description"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        told,
        [
            (
                "MCP server echo asked for your input; declined",
                "This editor cannot show MCP forms (it did not declare `elicitation.form`)."
            ),
            (
                "MCP server echo asked for your input; declined",
                "This editor cannot open MCP pages (it did not declare `elicitation.url`)."
            ),
        ]
    );
    assert_eq!(
        notices[0]["_meta"]["claudeCode"]["kind"],
        "mcp_elicitation_declined"
    );
}
