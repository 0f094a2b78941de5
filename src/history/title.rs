//! A session's name, as claude's own `/rename` keeps it: a `custom-title` line appended to its
//! transcript, which claude's `/resume` picker, `session/list` in any process and a running claude
//! (it reads what another process appends) all take, the last one winning over any generated title.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

use super::HistoryError;

/// The record claude's `/rename` appends.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct CustomTitle<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    custom_title: &'a str,
    session_id: &'a str,
}

/// Names `session_id` `title` in its transcript; `false` when claude stored no conversation under
/// it (no transcript is made for a name alone: claude refuses to resume one holding no
/// conversation).
pub(crate) fn write_title(
    config_dir: &Path,
    session_id: &str,
    title: &str,
) -> Result<bool, HistoryError> {
    super::check_session_id(session_id)?;
    let Some((file, _)) = super::find(config_dir, session_id) else {
        return Ok(false);
    };
    let record = CustomTitle {
        kind: "custom-title",
        custom_title: title,
        session_id,
    };
    let record = serde_json::to_string(&record).expect("a record of strings serialises");
    // The whole line in one append, as claude appends its own.
    let line = format!("{record}\n");
    OpenOptions::new()
        .append(true)
        .open(&file)
        .and_then(|mut f| f.write_all(line.as_bytes()))
        .map_err(|source| HistoryError::Io { path: file, source })?;
    Ok(true)
}
