//! Tests of the history module: replay and listing of real CLI transcripts (`fixtures/history/`,
//! written by the pinned CLI via `tests/it/real_cli/history_fixture.rs`), and of hand-made transcripts in temp dirs.

mod editor_edits;
mod list;
mod replay;
mod rewind;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

/// `fixtures/history`: laid out as a claude config dir (`projects/<slug>/<id>.jsonl`).
pub(crate) fn fixture_config_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/history")
}

fn fixture_paths() -> Value {
    let text = fs::read_to_string(fixture_config_dir().join("paths.json")).expect("paths.json");
    serde_json::from_str(&text).expect("paths.json is JSON")
}

/// The cwd the fixture sessions ran in.
pub(crate) fn fixture_cwd() -> PathBuf {
    PathBuf::from(fixture_paths()["cwd"].as_str().expect("cwd"))
}

/// The session with text, thinking, Write, Bash, Edit and a denied Bash, resumed once.
pub(crate) fn fixture_session() -> String {
    fixture_paths()["session_id"]
        .as_str()
        .expect("id")
        .to_owned()
}

/// The session with an image prompt, `/cost` and `/compact`.
pub(crate) fn fixture_extras_session() -> String {
    fixture_paths()["extras_session_id"]
        .as_str()
        .expect("id")
        .to_owned()
}

/// A user prompt line as claude writes it.
pub(crate) fn user_line(uuid: &str, parent: Option<&str>, cwd: &Path, text: &str) -> Value {
    json!({"type": "user", "uuid": uuid, "parentUuid": parent, "isSidechain": false,
           "cwd": cwd, "message": {"role": "user", "content": text}})
}

/// An assistant line with one text block.
pub(crate) fn assistant_line(uuid: &str, parent: &str, text: &str) -> Value {
    json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "isSidechain": false,
           "message": {"id": format!("msg_{uuid}"), "role": "assistant",
                       "content": [{"type": "text", "text": text}]}})
}

/// Writes `<config>/projects/<slug of cwd>/<id>.jsonl` with `lines`, last modified `age_secs`
/// seconds after a fixed instant (so ordering by age is deterministic).
pub(crate) fn write_session(
    config: &Path,
    cwd: &Path,
    id: &str,
    lines: &[Value],
    age_secs: u64,
) -> PathBuf {
    let dir = config
        .join("projects")
        .join(crate::history::project_slug(cwd));
    fs::create_dir_all(&dir).expect("project dir");
    let file = dir.join(format!("{id}.jsonl"));
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(&file, text).expect("write transcript");
    let modified = UNIX_EPOCH + Duration::from_secs(1_800_000_000 + age_secs);
    set_modified(&file, modified);
    file
}

pub(crate) fn set_modified(file: &Path, time: SystemTime) {
    fs::File::options()
        .write(true)
        .open(file)
        .and_then(|f| f.set_modified(time))
        .expect("set mtime");
}
