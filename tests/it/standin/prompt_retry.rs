//! ACP v2's `idempotencyKey` on `session/prompt`: a prompt sent again under its key is answered
//! with the first one's `messageId` and never reaches claude twice (the stand-in's script takes
//! each prompt once: a second copy of one is a line it does not expect), whether the first is
//! still waiting its turn or long taken in; a key that is not 1 to 255 characters is `-32602`.

use std::time::Duration;

use serde_json::{Value, json};

use super::acp_v2::{prompt, v2_session, wait_idle};
use crate::support::json_schema::violations;
use crate::support::standin::Standin;
use crate::support::v2_schema::{schema_1_20_v2, v2_violations};

fn keyed(session: &str, text: &str, key: Value) -> Value {
    let mut params = prompt(session, text);
    params["idempotencyKey"] = key;
    params
}

fn message_id(answer: &Value) -> String {
    answer["messageId"]
        .as_str()
        .unwrap_or_else(|| panic!("a messageId: {answer}"))
        .to_owned()
}

#[tokio::test]
async fn a_prompt_sent_again_under_its_key_gets_the_first_ones_message_and_claude_gets_it_once() {
    let s = Standin::new("queued_two");
    let c = s.adapter(&[]);
    let (_, session) = v2_session(&c, &s).await;
    let id = session["sessionId"].as_str().unwrap().to_owned();
    let sent = |text: &str, key: &str| keyed(&id, text, json!(key));

    let one = c
        .request("session/prompt", sent("prompt one", "key-1"))
        .await
        .unwrap();
    c.wait_for_update(
        |u| u["update"]["sessionUpdate"] == "agent_message_chunk",
        Duration::from_secs(10),
    )
    .await;
    // Prompt one runs: prompt two waits its turn while its retry comes, and prompt one's retry
    // is answered at once.
    let two = c.request("session/prompt", sent("prompt two", "key-2"));
    let two_again = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c.request("session/prompt", sent("prompt two", "key-2"))
            .await
    };
    let one_again = async {
        tokio::time::sleep(Duration::from_millis(400)).await;
        c.request("session/prompt", sent("prompt one", "key-1"))
            .await
    };
    let three = async {
        tokio::time::sleep(Duration::from_millis(600)).await;
        c.request("session/prompt", sent("prompt three", "key-3"))
            .await
    };
    let (two, two_again, one_again, three) = tokio::join!(two, two_again, one_again, three);
    let answers = [
        &one,
        &two.unwrap(),
        &two_again.unwrap(),
        &one_again.unwrap(),
        &three.unwrap(),
    ];
    wait_idle(&c, &id, 3).await;
    let three_again = c
        .request("session/prompt", sent("prompt three", "key-3"))
        .await
        .unwrap();

    let ids: Vec<String> = answers.iter().map(|a| message_id(a)).collect();
    assert_eq!(
        ids[1], ids[2],
        "the retry of a waiting prompt is answered with it"
    );
    assert_eq!(
        ids[0], ids[3],
        "the retry of a prompt taken in gets its message"
    );
    assert_eq!(ids[4], message_id(&three_again));
    let inserted: Vec<String> = c
        .updates_of_kind(&id, "user_message")
        .iter()
        .map(|u| u["messageId"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        inserted,
        [ids[0].clone(), ids[1].clone(), ids[4].clone()],
        "each prompt is in the conversation once"
    );
    let response = schema_1_20_v2("PromptResponse");
    let request = schema_1_20_v2("PromptRequest");
    for answer in answers.iter().copied().chain([&three_again]) {
        assert_eq!(violations(&response, answer), Vec::<String>::new());
    }
    assert_eq!(
        violations(&request, &sent("prompt one", "key-1")),
        Vec::<String>::new()
    );
    let faults = v2_violations(&c, &id, &[("session/prompt", &three_again)]);
    assert!(faults.is_empty(), "{faults:#?}");
}

#[tokio::test]
async fn a_key_that_is_not_1_to_255_characters_is_invalid_params_and_nothing_is_sent() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    let (_, session) = v2_session(&c, &s).await;
    let id = session["sessionId"].as_str().unwrap().to_owned();
    let request = schema_1_20_v2("PromptRequest");
    for key in [json!(""), json!("k".repeat(256)), json!(42)] {
        let params = keyed(&id, "hello", key.clone());
        assert!(
            !violations(&request, &params).is_empty(),
            "1.20 refuses {key}"
        );
        let refused = c
            .request("session/prompt", params)
            .await
            .expect_err("refused");
        assert_eq!(refused.code, -32602, "{key}: {refused:?}");
    }
    let longest = keyed(&id, "hello", json!("é".repeat(255)));
    let answer = c.request("session/prompt", longest).await.unwrap();
    wait_idle(&c, &id, 1).await;
    let inserted = c.updates_of_kind(&id, "user_message");
    assert_eq!(
        inserted.len(),
        1,
        "only the prompt with a valid key: {inserted:?}"
    );
    assert_eq!(inserted[0]["messageId"], answer["messageId"]);
}
