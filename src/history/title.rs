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

/// A `custom-title` line longer than this is not read (a name is a line of text).
const NAME_LINE_BYTES: usize = 1024 * 1024;

/// Names `session_id` `title` in its transcript, unless its last name is that already (claude
/// wrote it, told through `rename_session`: one record per naming); `false` when claude stored no
/// conversation under it (no transcript is made for a name alone: claude refuses to resume one
/// holding no conversation).
pub(crate) fn write_title(
    config_dir: &Path,
    session_id: &str,
    title: &str,
) -> Result<bool, HistoryError> {
    super::check_session_id(session_id)?;
    let Some((file, _)) = super::find(config_dir, session_id) else {
        return Ok(false);
    };
    if last_name(&file).as_deref() == Some(title) {
        return Ok(true);
    }
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

/// The last name given in the transcript `file` (its last `custom-title` record).
fn last_name(file: &Path) -> Option<String> {
    let marker = memchr::memmem::Finder::new("\"type\":\"custom-title\"");
    let mut name = None;
    let _ = super::lines::for_each_wanted_line(
        file,
        || NAME_LINE_BYTES,
        |line| marker.find(line).is_some(),
        |line| {
            let value = super::lines::parse(line);
            if let Some(title) = value.as_ref().and_then(|v| v.get("customTitle")) {
                name = title.as_str().map(str::to_owned);
            }
            std::ops::ControlFlow::Continue(())
        },
    );
    name
}
