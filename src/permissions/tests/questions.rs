//! AskUserQuestion: as a form, and as one prompt per question (multiple choice as toggles).

use std::sync::Arc;

use serde_json::{Value, json};

use super::{pick, request, run, wire};
use crate::claude::wire::CanUseTool;
use crate::domain::{EditorError, ElicitationOutcome, PermissionOptionKind, PermissionOutcome};
use crate::testing::TestEditor;

fn questions() -> Value {
    json!([
        {"question": "Which color should the button be?", "header": "Color",
         "options": [{"label": "Blue", "description": "A calm blue"},
                     {"label": "Red", "description": "A loud red"}], "multiSelect": false},
        {"question": "Which sizes do you need?", "header": "Sizes",
         "options": [{"label": "Small", "description": "s"}, {"label": "Medium"},
                     {"label": "Large", "description": "l"}], "multiSelect": true}
    ])
}

fn ask(questions: Value) -> CanUseTool {
    request(
        json!({"subtype": "can_use_tool", "tool_name": "AskUserQuestion",
        "display_name": "AskUserQuestion", "input": {"questions": questions},
        "tool_use_id": "toolu_q", "requires_user_interaction": true}),
    )
}

fn one_question() -> Value {
    json!([questions()[0].clone()])
}

#[tokio::test]
async fn one_question_is_one_prompt_whose_options_are_its_labels_and_dismiss() {
    let editor = Arc::new(TestEditor::answering(vec![pick("answer_1")]));
    let decision = run(&editor, ask(one_question())).await;

    assert_eq!(editor.option_names(0), ["Blue", "Red", "Dismiss"]);
    let prompt = &editor.asks()[0];
    assert_eq!(prompt.tool_call.id, "toolu_q");
    assert_eq!(
        prompt.tool_call.title.as_deref(),
        Some("Which color should the button be?")
    );
    let body = format!("{:?}", prompt.tool_call.content);
    assert!(body.contains("Red: A loud red"), "{body}");
    assert_eq!(prompt.options[2].kind, PermissionOptionKind::RejectOnce);
    assert_eq!(
        wire(&decision),
        json!({"behavior": "allow", "updatedInput": {"questions": one_question(),
            "answers": {"Which color should the button be?": "Red"}}})
    );
}

#[tokio::test]
async fn several_questions_are_asked_in_turn_and_multiple_choice_works_as_toggles() {
    // Red; then Large, Small, Done (Medium left unpicked).
    let editor = Arc::new(TestEditor::answering(vec![
        pick("answer_1"),
        pick("answer_2"),
        pick("answer_0"),
        pick("done"),
    ]));
    let decision = run(&editor, ask(questions())).await;

    let asks = editor.asks();
    assert_eq!(asks.len(), 4);
    assert_eq!(
        asks[1].tool_call.title.as_deref(),
        Some("Question 2 of 2: Which sizes do you need?")
    );
    assert_eq!(
        editor.option_names(1),
        ["Small", "Medium", "Large", "Dismiss"]
    );
    assert_eq!(
        editor.option_names(2),
        ["Small", "Medium", "Done: Large", "Dismiss"]
    );
    assert_eq!(
        editor.option_names(3),
        ["Medium", "Done: Small, Large", "Dismiss"]
    );
    assert_eq!(
        wire(&decision)["updatedInput"]["answers"],
        json!({"Which color should the button be?": "Red",
               "Which sizes do you need?": "Small, Large"})
    );
}

#[tokio::test]
async fn picking_every_label_of_a_multiple_choice_needs_no_done() {
    let editor = Arc::new(TestEditor::answering(vec![
        pick("answer_0"),
        pick("answer_1"),
        pick("answer_2"),
    ]));
    let decision = run(&editor, ask(json!([questions()[1].clone()]))).await;

    assert_eq!(editor.asks().len(), 3);
    assert_eq!(
        wire(&decision)["updatedInput"]["answers"],
        json!({"Which sizes do you need?": "Small, Medium, Large"})
    );
}

#[tokio::test]
async fn a_dismissed_question_is_a_deny_saying_so_and_nothing_more_is_asked() {
    let editor = Arc::new(TestEditor::answering(vec![
        pick("dismiss"),
        pick("answer_0"),
    ]));
    let reply = wire(&run(&editor, ask(questions())).await);

    assert_eq!(editor.asks().len(), 1);
    assert_eq!(reply["behavior"], "deny");
    let message = reply["message"].as_str().unwrap();
    assert!(
        message.contains("dismissed the question \"Which color should the button be?\""),
        "{message}"
    );
}

#[tokio::test]
async fn prompt_failures_deny_with_the_reason() {
    let cases = [
        (
            Err(EditorError::Closed),
            "the connection to the editor is closed",
        ),
        (pick("answer_9"), "did not offer (`answer_9`)"),
        (pick("done"), "did not offer (`done`)"),
        (Ok(PermissionOutcome::Cancelled), "cancelled the questions"),
    ];
    for (answer, reason) in cases {
        let editor = Arc::new(TestEditor::answering(vec![answer]));
        let reply = wire(&run(&editor, ask(questions())).await);
        assert_eq!(reply["behavior"], "deny");
        let message = reply["message"].as_str().unwrap();
        assert!(
            message.contains(reason),
            "{message:?} should name {reason:?}"
        );
    }
}

#[tokio::test]
async fn an_ask_without_questions_is_denied_without_asking() {
    let editor = Arc::new(TestEditor::answering(vec![]));
    let reply = wire(&run(&editor, ask(json!([]))).await);
    assert!(editor.asks().is_empty());
    assert_eq!(reply["behavior"], "deny");
}

#[tokio::test]
async fn with_forms_all_questions_are_one_form_with_a_field_each() {
    let editor = Arc::new(TestEditor::answering(vec![]).with_forms(vec![Ok(
        ElicitationOutcome::Accepted(vec![
            ("question_1".into(), vec!["Blue".into()]),
            ("question_2".into(), vec!["Small".into(), "Large".into()]),
        ]),
    )]));
    let decision = run(&editor, ask(questions())).await;

    assert!(
        editor.asks().is_empty(),
        "no permission prompt when the form works"
    );
    let form = &editor.forms()[0];
    assert_eq!(form.session_id, "sess-1");
    assert_eq!(form.tool_call_id.as_deref(), Some("toolu_q"));
    assert_eq!(form.fields.len(), 2);
    assert_eq!(form.fields[0].title, "Which color should the button be?");
    assert!(!form.fields[0].multiple);
    assert!(form.fields[1].multiple);
    assert_eq!(
        form.fields[0].options,
        [
            ("Blue".into(), Some("A calm blue".into())),
            ("Red".into(), Some("A loud red".into()))
        ]
    );
    assert_eq!(
        wire(&decision)["updatedInput"]["answers"],
        json!({"Which color should the button be?": "Blue",
               "Which sizes do you need?": "Small, Large"})
    );
}

#[tokio::test]
async fn a_declined_form_is_a_dismissal() {
    let editor =
        Arc::new(TestEditor::answering(vec![]).with_forms(vec![Ok(ElicitationOutcome::Declined)]));
    let reply = wire(&run(&editor, ask(one_question())).await);
    assert_eq!(reply["behavior"], "deny");
    assert!(reply["message"].as_str().unwrap().contains("dismissed"));
}

#[tokio::test]
async fn a_form_answer_outside_the_choices_or_missing_a_field_denies() {
    let answers = [
        vec![("question_1".into(), vec!["Green".into()])],
        vec![("question_1".into(), vec!["Blue".into(), "Red".into()])],
        vec![],
    ];
    for fields in answers {
        let editor = Arc::new(
            TestEditor::answering(vec![])
                .with_forms(vec![Ok(ElicitationOutcome::Accepted(fields.clone()))]),
        );
        let reply = wire(&run(&editor, ask(one_question())).await);
        assert_eq!(reply["behavior"], "deny", "{fields:?}");
        assert!(
            reply["message"]
                .as_str()
                .unwrap()
                .contains("not among its choices")
        );
    }
}

#[tokio::test]
async fn a_form_the_editor_cannot_show_falls_back_to_prompts_and_other_errors_deny() {
    let editor = Arc::new(
        TestEditor::answering(vec![pick("answer_0")])
            .with_forms(vec![Err(EditorError::Unsupported("form elicitation"))]),
    );
    let decision = run(&editor, ask(one_question())).await;
    assert_eq!(
        wire(&decision)["updatedInput"]["answers"],
        json!({"Which color should the button be?": "Blue"})
    );

    let editor = Arc::new(
        TestEditor::answering(vec![pick("answer_0")]).with_forms(vec![Err(EditorError::Closed)]),
    );
    let reply = wire(&run(&editor, ask(one_question())).await);
    assert_eq!(reply["behavior"], "deny");
    assert!(editor.asks().is_empty());
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("connection to the editor is closed")
    );
}
