//! AskUserQuestion through the adapter: with form elicitation one `elicitation/create` form
//! carries every question; without it, one permission prompt per question. Either way the
//! answers reach claude.

use std::sync::{Arc, Mutex};

use crate::support::standin::Standin;
use serde_json::{Value, json};

#[tokio::test]
async fn questions_become_one_form_and_its_answers_reach_claude() {
    let s = Standin::new("ask_user_question");
    let c = s.adapter(&[]);
    c.initialize_with(true).await;
    let id = c.new_session(&s.work).await;
    let forms = Arc::new(Mutex::new(Vec::<Value>::new()));
    let seen = forms.clone();
    c.on_request("elicitation/create", move |params| {
        seen.lock().unwrap().push(params.clone());
        Ok(json!({"action": "accept",
                  "content": {"question_1": "Red", "question_2": ["Small", "Large"]}}))
    });

    let stop = c.prompt(&id, "ask me").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");

    let forms = forms.lock().unwrap().clone();
    assert_eq!(forms.len(), 1, "one form for both questions");
    let form = &forms[0];
    assert_eq!(form["mode"], "form");
    assert_eq!(form["sessionId"], id);
    assert_eq!(form["toolCallId"], "toolu_47e07ba1098e4277a0263dc6");
    let fields = &form["requestedSchema"]["properties"];
    assert_eq!(
        fields["question_1"]["title"],
        "Which color should the button be?"
    );
    assert_eq!(
        fields["question_1"]["oneOf"][0],
        json!({"const": "Blue", "title": "Blue", "description": "A calm blue"})
    );
    assert_eq!(fields["question_2"]["type"], "array");
    assert_eq!(fields["question_2"]["items"]["anyOf"][1]["const"], "Large");
    assert_eq!(
        form["requestedSchema"]["required"],
        json!(["question_1", "question_2"])
    );
    assert!(
        c.requests()
            .iter()
            .all(|r| r.method != "session/request_permission"),
        "no permission prompt when the form is answered"
    );

    let reply = s
        .received()
        .into_iter()
        .find(|l| l["type"] == "control_response")
        .map(|l| l["response"]["response"].clone())
        .expect("claude got an answer");
    assert_eq!(reply["behavior"], "allow");
    assert_eq!(
        reply["updatedInput"]["answers"],
        json!({"Which color should the button be?": "Red",
               "Which sizes do you need?": "Small, Large"})
    );
}

#[tokio::test]
async fn without_forms_each_question_is_a_prompt_and_the_answers_reach_claude() {
    let s = Standin::new("ask_user_question");
    let c = s.adapter(&[]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    // Red; then Small and Large (every label picked ends the multiple choice).
    let picks = Mutex::new(vec!["answer_1", "answer_0", "answer_1"].into_iter());
    c.on_request("session/request_permission", move |_| {
        let pick = picks
            .lock()
            .unwrap()
            .next()
            .expect("no more prompts expected");
        Ok(json!({"outcome": {"outcome": "selected", "optionId": pick}}))
    });

    let stop = c.prompt(&id, "ask me").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    let prompts: Vec<Value> = c
        .requests()
        .into_iter()
        .filter(|r| r.method == "session/request_permission")
        .map(|r| r.params)
        .collect();
    assert_eq!(prompts.len(), 3);
    let names = |n: usize| -> Vec<String> {
        prompts[n]["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(0), ["Blue", "Red", "Dismiss"]);
    assert_eq!(names(2), ["Large", "Done: Small", "Dismiss"]);
    let reply = s
        .received()
        .into_iter()
        .find(|l| l["type"] == "control_response")
        .map(|l| l["response"]["response"].clone())
        .expect("claude got an answer");
    assert_eq!(
        reply["updatedInput"]["answers"],
        json!({"Which color should the button be?": "Red",
               "Which sizes do you need?": "Small, Large"})
    );
}
