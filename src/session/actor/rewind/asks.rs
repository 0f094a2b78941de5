//! What `/undo` and `/rewind` ask the editor: which prompt to go back to (a form where the editor
//! has forms, else a permission prompt with an option per prompt), and whether to go ahead given
//! what will change. Anything but a clear "go ahead" changes nothing: an error, a dismissal or a
//! cancel keeps everything as it is.

use std::path::Path;

use crate::claude::wire::RewindFilesResult;
use crate::domain::{
    EditorClient, EditorError, ElicitationField, ElicitationOutcome, ElicitationRequest,
    PermissionAsk, PermissionOption, PermissionOptionKind, PermissionOutcome, ToolCallUpdate,
    ToolContent, ToolKind, ToolLocation,
};
use crate::history::StoredPrompt;

/// The option that goes ahead.
pub(crate) const GO_AHEAD: &str = "rewind";
/// The option that keeps everything.
pub(crate) const KEEP: &str = "keep";
/// The form field of the prompt list.
const FIELD: &str = "prompt";
/// How many of the latest prompts `/rewind` offers.
const OFFERED: usize = 10;

/// How a prompt is named in a list: its number in the thread and its first line, shortened.
pub(crate) fn label(number: usize, prompt: &StoredPrompt) -> String {
    format!("{number}. {}", short(&prompt.text))
}

/// A prompt's first line, cut at 60 characters.
pub(crate) fn short(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or_default().trim();
    let short: String = line.chars().take(60).collect();
    let more = if short.len() < line.len() { "…" } else { "" };
    format!("{short}{more}")
}

/// The prompt `/rewind` goes back to before, picked by the user from the latest ones; `Ok(None)`
/// when the user picked none.
pub(crate) async fn choose(
    editor: &dyn EditorClient,
    session_id: &str,
    tool_call_id: &str,
    prompts: &[StoredPrompt],
) -> Result<Option<StoredPrompt>, EditorError> {
    let first = prompts.len().saturating_sub(OFFERED);
    let offered: Vec<(String, &StoredPrompt)> = prompts[first..]
        .iter()
        .enumerate()
        .rev()
        .map(|(i, p)| (label(first + i + 1, p), p))
        .collect();
    let message = "Rewind to before which prompt? Its turn and every later one are undone.";
    if editor.supports_elicitation() {
        let request = ElicitationRequest {
            session_id: session_id.to_owned(),
            tool_call_id: Some(tool_call_id.to_owned()),
            message: message.to_owned(),
            fields: vec![ElicitationField {
                key: FIELD.into(),
                title: "Prompt".into(),
                description: None,
                options: offered.iter().map(|(l, _)| (l.clone(), None)).collect(),
                multiple: false,
            }],
        };
        match editor.elicit(request).await {
            Ok(ElicitationOutcome::Accepted(fields)) => {
                let picked = fields
                    .iter()
                    .find(|(key, _)| key == FIELD)
                    .and_then(|(_, labels)| labels.first());
                let found = offered.iter().find(|(l, _)| Some(l) == picked);
                return match (picked, found) {
                    (None, _) => Ok(None),
                    (Some(_), Some((_, prompt))) => Ok(Some((*prompt).clone())),
                    (Some(other), None) => Err(EditorError::Malformed(format!(
                        "the form answered {other:?}, which was not offered"
                    ))),
                };
            }
            Ok(ElicitationOutcome::Declined | ElicitationOutcome::Cancelled) => return Ok(None),
            Err(EditorError::Unsupported(_)) => {}
            Err(e) => return Err(e),
        }
    }
    let mut options: Vec<PermissionOption> = offered
        .iter()
        .enumerate()
        .map(|(i, (l, _))| PermissionOption {
            id: format!("prompt-{i}"),
            name: l.clone(),
            kind: PermissionOptionKind::AllowOnce,
        })
        .collect();
    options.push(PermissionOption {
        id: KEEP.into(),
        name: "Cancel".into(),
        kind: PermissionOptionKind::RejectOnce,
    });
    let ask = ask(
        session_id,
        tool_call_id,
        message.to_owned(),
        vec![],
        options,
    );
    match editor.request_permission(ask).await? {
        PermissionOutcome::Selected { option_id } if option_id == KEEP => Ok(None),
        PermissionOutcome::Selected { option_id } => option_id
            .strip_prefix("prompt-")
            .and_then(|i| i.parse::<usize>().ok())
            .and_then(|i| offered.get(i))
            .map(|(_, p)| Some((*p).clone()))
            .ok_or_else(|| EditorError::Malformed(format!("{option_id:?} was not offered"))),
        PermissionOutcome::Cancelled => Ok(None),
    }
}

/// What going back to before `prompt` changes, for the user to confirm: the conversation, the
/// `files` (claude's dry run and the editor's part), and what is never restored.
pub(crate) fn summary(prompt: &StoredPrompt, files: &str) -> String {
    format!(
        "The conversation goes back to before “{}”.\n{files}\nChanges made by shell commands are not restored.",
        prompt.text.trim(),
    )
}

/// What happens to the files, from claude's dry run.
pub(crate) fn files_line(cwd: &Path, files: &Result<RewindFilesResult, String>) -> String {
    match files {
        Ok(dry) if dry.can_rewind && dry.files_changed.is_empty() => {
            "No file changed since then needs putting back.".to_owned()
        }
        Ok(dry) if dry.can_rewind => format!(
            "Files put back as they were: {} ({} line{} back in, {} out).",
            dry.files_changed
                .iter()
                .map(|f| shown(cwd, f))
                .collect::<Vec<_>>()
                .join(", "),
            dry.insertions,
            if dry.insertions == 1 { "" } else { "s" },
            dry.deletions
        ),
        Ok(dry) => format!(
            "Files stay as they are: {}",
            dry.error
                .as_deref()
                .unwrap_or("claude has no checkpoint for them.")
        ),
        Err(e) => format!("Files stay as they are: {e}"),
    }
}

/// A file as the user sees it: relative to the cwd where it is inside it.
pub(crate) fn shown(cwd: &Path, file: &str) -> String {
    Path::new(file)
        .strip_prefix(cwd)
        .map_or_else(|_| file.to_owned(), |p| p.display().to_string())
}

/// Asks the user to go ahead with `summary`; true only for an explicit "go ahead".
pub(crate) async fn confirm(
    editor: &dyn EditorClient,
    session_id: &str,
    tool_call_id: &str,
    summary: String,
    files: &[String],
) -> Result<bool, EditorError> {
    let options = vec![
        PermissionOption {
            id: GO_AHEAD.into(),
            name: "Rewind".into(),
            kind: PermissionOptionKind::AllowOnce,
        },
        PermissionOption {
            id: KEEP.into(),
            name: "Keep everything".into(),
            kind: PermissionOptionKind::RejectOnce,
        },
    ];
    let ask = ask(session_id, tool_call_id, summary, files.to_vec(), options);
    Ok(matches!(
        editor.request_permission(ask).await?,
        PermissionOutcome::Selected { option_id } if option_id == GO_AHEAD
    ))
}

fn ask(
    session_id: &str,
    tool_call_id: &str,
    text: String,
    files: Vec<String>,
    options: Vec<PermissionOption>,
) -> PermissionAsk {
    PermissionAsk {
        session_id: session_id.to_owned(),
        tool_call: ToolCallUpdate {
            id: tool_call_id.to_owned(),
            kind: Some(ToolKind::Edit),
            locations: (!files.is_empty()).then(|| {
                files
                    .into_iter()
                    .map(|path| ToolLocation { path, line: None })
                    .collect()
            }),
            content: Some(vec![ToolContent::Text { text }]),
            ..ToolCallUpdate::default()
        },
        options,
        reason: None,
    }
}
