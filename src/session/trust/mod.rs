//! Workspace trust: a workspace whose own settings would run code or send the user's requests
//! elsewhere as soon as claude starts (a hook, an `.mcp.json` server, an `apiKeyHelper`, an
//! `env` redirect) gets a claude started with the user's settings only, the project's deny and
//! ask rules kept, until the user trusts it; the user is asked once, after the session opens.
//! claude's own terminal shows a trust dialog for this; claude in stream-json mode shows none
//! and runs them all.
//!
//! The detection ([`detect`]) and the stores ([`store`]) know nothing of sessions; the session
//! calls [`check`] before its first claude, [`restricted`] for each claude it starts while the
//! workspace is untrusted, and [`ask`] once the session is open.

mod ask;
mod detect;
mod store;
#[cfg(test)]
mod tests;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use self::ask::ask;
pub(crate) use self::detect::Guard;
use self::detect::{LOCAL_SETTINGS, MCP_FILE, PROJECT_SETTINGS, SettingsFile};
pub(crate) use self::store::Stores;
use super::spawn::SessionFlags;
use crate::domain::{AnswerWritten, EditorClient};

/// claude's setting sources, in its order.
const ALL_SOURCES: &[&str] = &["user", "project", "local"];

/// The only source an untrusted workspace's claude loads: the user's own settings.
const TRUSTED_SOURCE: &str = "user";

const SOURCES_FLAG: &str = "--setting-sources";
const SETTINGS_FLAG: &str = "--settings";

/// A workspace not trusted yet, and what its settings would run once it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Untrusted {
    pub(crate) cwd: PathBuf,
    /// What the user is shown: one line per thing that would run or redirect.
    pub(crate) shown: Vec<String>,
    /// The project's deny and ask rules, in force all the same.
    pub(crate) guard: Guard,
    /// Where the answer is kept (`None` without a home directory: then it holds for the session).
    pub(crate) stores: Option<Stores>,
}

/// The setting sources claude loads with these flags: the last `--setting-sources`, else all.
pub(crate) fn sources(flags: &SessionFlags) -> Vec<String> {
    match last_value(&flags.extra_args, SOURCES_FLAG) {
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        None => ALL_SOURCES.iter().map(|s| (*s).to_owned()).collect(),
    }
}

/// Whether the session's claude may start in `cwd` with its project's settings, and if not what
/// they would run. Reads the project's settings files (those of the sources `flags` load),
/// every `.mcp.json` from `cwd` up, and the trust stores.
pub(crate) fn check(cwd: &Path, flags: &SessionFlags, stores: Option<Stores>) -> Option<Untrusted> {
    let sources = sources(flags);
    let loads = |source: &str| sources.iter().any(|s| s == source);
    let read = |path: PathBuf| -> Option<Value> {
        let bytes = std::fs::read(path).ok()?;
        // A file claude cannot read as JSON it does not load either.
        serde_json::from_slice(&bytes).ok()
    };
    let mut settings = Vec::new();
    if loads("project")
        && let Some(value) = read(cwd.join(PROJECT_SETTINGS))
    {
        settings.push((PROJECT_SETTINGS.to_owned(), value));
    }
    if loads("local")
        && let Some(value) = read(cwd.join(LOCAL_SETTINGS))
    {
        settings.push((LOCAL_SETTINGS.to_owned(), value));
    }
    let mut mcp = Vec::new();
    if loads("project") {
        for dir in cwd.ancestors() {
            if let Some(value) = read(dir.join(MCP_FILE)) {
                let name = match dir == cwd {
                    true => MCP_FILE.to_owned(),
                    false => dir.join(MCP_FILE).display().to_string(),
                };
                mcp.push((name, value));
            }
        }
    }
    let (settings, mcp) = (as_files(&settings), as_files(&mcp));
    let shown = detect::what_runs(&settings, &mcp);
    if shown.is_empty() {
        return None;
    }
    if let Some(stores) = &stores
        && stores.claude_trusts(cwd)
    {
        match stores.shown(cwd) {
            Some(before) if before == shown => return None,
            // Trusted in claude's terminal: what runs now is what it trusted.
            None => {
                if let Err(e) = stores.record(cwd, &shown) {
                    tracing::warn!(
                        "could not record what this trusted workspace runs ({e}): you may be asked to trust it again"
                    );
                }
                return None;
            }
            Some(_) => {}
        }
    }
    Some(Untrusted {
        cwd: cwd.to_path_buf(),
        shown,
        guard: Guard::of(&settings),
        stores,
    })
}

fn as_files(list: &[(String, Value)]) -> Vec<SettingsFile<'_>> {
    list.iter()
        .map(|(name, value)| SettingsFile { name, value })
        .collect()
}

/// [`check`] off the async threads, with the stores claude's environment names. A failure to
/// check (a bug) opens no session rather than trust the workspace.
pub(crate) async fn check_workspace(
    cwd: &Path,
    flags: &SessionFlags,
) -> Result<Option<Untrusted>, String> {
    let (cwd, flags) = (cwd.to_path_buf(), flags.clone());
    tokio::task::spawn_blocking(move || check(&cwd, &flags, Stores::find()))
        .await
        .map_err(|e| format!("could not read the workspace's settings: {e}"))
}

/// Asks the user in the background once the session is open, after its answer (`answered`, where
/// the transport tells: an editor knows the session only from it on); on trust, keeps the
/// answer, runs `apply` (true once the session's next claude loads the project's settings) and
/// then settles the ask's tool call.
pub(crate) fn ask_in_background(
    editor: Arc<dyn EditorClient>,
    session_id: &str,
    untrusted: Untrusted,
    answered: Option<AnswerWritten>,
    apply: impl Future<Output = bool> + Send + 'static,
) {
    let id = session_id.to_owned();
    tokio::spawn(async move {
        if let Some(answered) = answered {
            // Resolves (or fails, when it never can be) once the answer is queued.
            let _ = answered.await;
        }
        let answer = ask(&*editor, &id, &untrusted.cwd, &untrusted.shown).await;
        if answer.trusted {
            if let Some(stores) = untrusted.stores.clone() {
                let (cwd, shown) = (untrusted.cwd.clone(), untrusted.shown.clone());
                let kept = tokio::task::spawn_blocking(move || stores.trust(&cwd, &shown)).await;
                if let Ok(Err(e)) = kept {
                    tracing::warn!(
                        session = %id,
                        "the workspace's trust was not saved ({e}): you will be asked again in the next session"
                    );
                }
            }
            if !apply.await {
                return;
            }
        }
        answer.settle(&*editor, &id);
    });
}

/// The flags of a claude started in an untrusted workspace: the user's settings only (within
/// the sources the editor asked for), and the project's deny and ask rules added to the
/// `--settings` claude gets (whose last one wins). Fails if the editor's own `--settings` file
/// cannot be read, rather than start claude without the project's rules.
pub(crate) fn restricted(
    flags: &SessionFlags,
    untrusted: &Untrusted,
) -> Result<SessionFlags, String> {
    let mut flags = flags.clone();
    let kept: Vec<String> = sources(&flags)
        .into_iter()
        .filter(|s| s == TRUSTED_SOURCE)
        .collect();
    flags.set(SOURCES_FLAG, &kept.join(","));
    if untrusted.guard.is_empty() {
        return Ok(flags);
    }
    let from_files = flags
        .secret_files
        .iter()
        .rev()
        .find(|(flag, _)| flag == SETTINGS_FLAG)
        .map(|(_, json)| json.clone());
    let given = match from_files {
        Some(json) => Some(json),
        None => match last_value(&flags.extra_args, SETTINGS_FLAG) {
            Some(text) if text.trim_start().starts_with('{') => Some(text.to_owned()),
            Some(path) => Some(
                std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read the settings file {path}: {e}"))?,
            ),
            None => None,
        },
    };
    let mut settings = match given {
        Some(text) => serde_json::from_str::<Value>(&text)
            .map_err(|e| format!("the session's --settings are not JSON: {e}"))?,
        None => Value::Object(Default::default()),
    };
    untrusted.guard.add_to(&mut settings);
    flags.remove(SETTINGS_FLAG);
    flags.secret_files.retain(|(flag, _)| flag != SETTINGS_FLAG);
    flags
        .secret_files
        .push((SETTINGS_FLAG.to_owned(), settings.to_string()));
    Ok(flags)
}

/// The value of the last `flag` in `args`.
fn last_value<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    args.windows(2)
        .rev()
        .find(|pair| pair[0] == flag)
        .map(|pair| pair[1].as_str())
}
