//! AskUserQuestion: each question reaches the user, and the answers reach the model as
//! `updatedInput.answers` (question text -> label; several labels joined by ", ").
//!
//! With form elicitation the questions are one form, a field each. Otherwise each question is a
//! permission prompt whose options are its labels plus "Dismiss". A multiple-choice question is
//! asked as toggles: the prompt comes back with the labels not yet picked and a "Done" option
//! naming the picks so far, until the user picks "Done" or every label.

use serde_json::{Map, Value};

use super::decision::{allowed_input, deny};
use super::reply::failed;
use crate::claude::wire::{CanUseTool, PermissionDecision};
use crate::domain::{
    EditorClient, EditorError, ElicitationField, ElicitationOutcome, ElicitationRequest,
    PermissionAsk, PermissionOption, PermissionOptionKind, PermissionOutcome, ToolCallUpdate,
    ToolContent, ToolKind,
};

pub const DISMISS: &str = "dismiss";
pub const DONE: &str = "done";

#[derive(Debug, Clone, PartialEq)]
struct Question {
    text: String,
    header: Option<String>,
    /// Label and description of each answer.
    options: Vec<(String, Option<String>)>,
    multiple: bool,
}

/// Why there are no answers.
enum Unanswered {
    Dismissed(String),
    Cancelled,
    Failed(String),
    /// The editor turned the form down as unsupported: ask with prompts instead.
    NoForm,
}

pub async fn ask(
    editor: &dyn EditorClient,
    session_id: &str,
    req: &CanUseTool,
) -> PermissionDecision {
    let questions = questions(&req.input);
    if questions.is_empty() {
        return deny("Denied: AskUserQuestion came without any question the user could answer.");
    }
    let answered = if editor.supports_elicitation() {
        match by_form(editor, session_id, req, &questions).await {
            Err(Unanswered::NoForm) => by_prompts(editor, session_id, req, &questions).await,
            other => other,
        }
    } else {
        by_prompts(editor, session_id, req, &questions).await
    };
    match answered {
        Ok(answers) => {
            let mut input = allowed_input(req);
            let map: Map<String, Value> = answers
                .into_iter()
                .map(|(q, a)| (q, Value::String(a)))
                .collect();
            input["answers"] = Value::Object(map);
            PermissionDecision::Allow {
                updated_input: input,
                updated_permissions: Vec::new(),
            }
        }
        Err(Unanswered::Dismissed(question)) => deny(format!(
            "The user dismissed the question \"{question}\" without answering. Do not assume an answer."
        )),
        Err(Unanswered::Cancelled) => {
            deny("The user cancelled the questions without answering. Do not assume an answer.")
        }
        Err(Unanswered::Failed(why)) => deny(why),
        Err(Unanswered::NoForm) => deny("Denied: the editor could not show the questions."),
    }
}

fn questions(input: &Value) -> Vec<Question> {
    let Some(list) = input.get("questions").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|q| {
            let text = q.get("question")?.as_str()?.to_owned();
            let options: Vec<(String, Option<String>)> = q
                .get("options")?
                .as_array()?
                .iter()
                .filter_map(|o| {
                    let label = o.get("label")?.as_str()?.to_owned();
                    let description = o
                        .get("description")
                        .and_then(Value::as_str)
                        .filter(|d| !d.is_empty())
                        .map(str::to_owned);
                    Some((label, description))
                })
                .collect();
            (!options.is_empty()).then(|| Question {
                text,
                header: q.get("header").and_then(Value::as_str).map(str::to_owned),
                options,
                multiple: q
                    .get("multiSelect")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            })
        })
        .collect()
}

async fn by_form(
    editor: &dyn EditorClient,
    session_id: &str,
    req: &CanUseTool,
    questions: &[Question],
) -> Result<Vec<(String, String)>, Unanswered> {
    let key = |i: usize| format!("question_{}", i + 1);
    let request = ElicitationRequest {
        session_id: session_id.to_owned(),
        tool_call_id: req.tool_use_id.clone(),
        message: match questions {
            [one] => one.text.clone(),
            many => format!("Claude has {} questions for you.", many.len()),
        },
        fields: questions
            .iter()
            .enumerate()
            .map(|(i, q)| ElicitationField {
                key: key(i),
                title: q.text.clone(),
                description: q.header.clone(),
                options: q.options.clone(),
                multiple: q.multiple,
            })
            .collect(),
    };
    let accepted = match editor.elicit(request).await {
        Ok(ElicitationOutcome::Accepted(fields)) => fields,
        Ok(ElicitationOutcome::Declined) => {
            return Err(Unanswered::Dismissed(questions[0].text.clone()));
        }
        Ok(ElicitationOutcome::Cancelled) => return Err(Unanswered::Cancelled),
        Err(EditorError::Unsupported(_)) => return Err(Unanswered::NoForm),
        Err(e) => return Err(Unanswered::Failed(failed("AskUserQuestion", &e))),
    };
    let mut answers = Vec::new();
    for (i, q) in questions.iter().enumerate() {
        let labels = accepted
            .iter()
            .find(|(k, _)| *k == key(i))
            .map(|(_, labels)| labels.as_slice())
            .unwrap_or_default();
        let known = labels.iter().all(|l| q.options.iter().any(|(o, _)| o == l));
        let count_ok = if q.multiple {
            !labels.is_empty()
        } else {
            labels.len() == 1
        };
        if !known || !count_ok {
            return Err(Unanswered::Failed(failed(
                "AskUserQuestion",
                &EditorError::Malformed(format!(
                    "the form's answer to \"{}\" is not among its choices: {labels:?}",
                    q.text
                )),
            )));
        }
        answers.push((q.text.clone(), labels.join(", ")));
    }
    Ok(answers)
}

async fn by_prompts(
    editor: &dyn EditorClient,
    session_id: &str,
    req: &CanUseTool,
    questions: &[Question],
) -> Result<Vec<(String, String)>, Unanswered> {
    let id = req
        .tool_use_id
        .clone()
        .unwrap_or_else(|| format!("question-{}", uuid::Uuid::new_v4()));
    let mut answers = Vec::new();
    for (i, q) in questions.iter().enumerate() {
        let title = match questions.len() {
            1 => q.text.clone(),
            n => format!("Question {} of {n}: {}", i + 1, q.text),
        };
        let mut picked: Vec<usize> = Vec::new();
        loop {
            let mut options: Vec<PermissionOption> = q
                .options
                .iter()
                .enumerate()
                .filter(|(j, _)| !picked.contains(j))
                .map(|(j, (label, _))| PermissionOption {
                    id: format!("answer_{j}"),
                    name: label.clone(),
                    kind: PermissionOptionKind::AllowOnce,
                })
                .collect();
            let chosen = || {
                picked
                    .iter()
                    .map(|&j| q.options[j].0.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if !picked.is_empty() {
                options.push(PermissionOption {
                    id: DONE.into(),
                    name: format!("Done: {}", chosen()),
                    kind: PermissionOptionKind::AllowAlways,
                });
            }
            options.push(PermissionOption {
                id: DISMISS.into(),
                name: "Dismiss".into(),
                kind: PermissionOptionKind::RejectOnce,
            });
            let ask = PermissionAsk {
                session_id: session_id.to_owned(),
                tool_call: ToolCallUpdate {
                    id: id.clone(),
                    title: Some(title.clone()),
                    kind: Some(ToolKind::Other),
                    status: None,
                    locations: None,
                    content: Some(vec![ToolContent::Text {
                        text: body(q, &chosen()),
                    }]),
                    raw_input: Some(std::sync::Arc::new(req.input.clone())),
                    raw_output: None,
                    raw_output_shown: None,
                    elapsed_seconds: None,
                    async_task_id: None,
                },
                options: options.clone(),
                reason: None,
            };
            let option_id = match editor.request_permission(ask).await {
                Ok(PermissionOutcome::Selected { option_id }) => option_id,
                Ok(PermissionOutcome::Cancelled) => return Err(Unanswered::Cancelled),
                Err(e) => return Err(Unanswered::Failed(failed("AskUserQuestion", &e))),
            };
            if !options.iter().any(|o| o.id == option_id) {
                return Err(Unanswered::Failed(format!(
                    "Denied: the editor answered with an option this question did not offer (`{option_id}`)."
                )));
            }
            match option_id.as_str() {
                DISMISS => return Err(Unanswered::Dismissed(q.text.clone())),
                DONE => break,
                answer => {
                    // Offered ids other than Done and Dismiss are all `answer_<index>`.
                    let Some(j) = answer.strip_prefix("answer_").and_then(|j| j.parse().ok())
                    else {
                        return Err(Unanswered::Failed(format!(
                            "Denied: unreadable answer `{answer}`."
                        )));
                    };
                    picked.push(j);
                    // Answers read in the question's order, whatever order they were picked in.
                    picked.sort_unstable();
                    if !q.multiple || picked.len() == q.options.len() {
                        break;
                    }
                }
            }
        }
        let labels: Vec<&str> = picked.iter().map(|&j| q.options[j].0.as_str()).collect();
        answers.push((q.text.clone(), labels.join(", ")));
    }
    Ok(answers)
}

/// The question, its choices with their descriptions, and for several answers how to give them.
fn body(q: &Question, chosen: &str) -> String {
    let mut text = q.text.clone();
    for (label, description) in &q.options {
        match description {
            Some(d) => text.push_str(&format!("\n- {label}: {d}")),
            None => text.push_str(&format!("\n- {label}")),
        }
    }
    if q.multiple {
        text.push_str("\n\nSeveral answers are allowed: pick one at a time, then Done.");
        if !chosen.is_empty() {
            text.push_str(&format!("\nPicked so far: {chosen}"));
        }
    }
    text
}
