//! Where a workspace's trust is kept: claude's own answer in its global config
//! (`~/.claude.json`, or `.claude.json` in `$CLAUDE_CONFIG_DIR`: `projects[<path>]
//! .hasTrustDialogAccepted`), which claude's terminal reads and writes too, and claude-acp's
//! record of what it showed when the user trusted (an owner-only file beside it), so that a
//! change to what the workspace runs is asked again.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::platform::os::Os;

/// claude's global config and claude-acp's record beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stores {
    pub(crate) claude_json: PathBuf,
    pub(crate) record: PathBuf,
}

/// The record's name, beside claude's global config.
const RECORD: &str = ".claude-acp-trust.json";

impl Stores {
    /// Where claude keeps its global config: `.claude.json` in `$CLAUDE_CONFIG_DIR`, else in the
    /// home directory. `None` without either.
    pub(crate) fn find() -> Option<Stores> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let home = match Os::CURRENT {
            Os::Windows => "USERPROFILE",
            _ => "HOME",
        };
        Self::from_vars(var("CLAUDE_CONFIG_DIR"), var(home))
    }

    pub(crate) fn from_vars(
        config_dir: Option<OsString>,
        home: Option<OsString>,
    ) -> Option<Stores> {
        let dir = PathBuf::from(config_dir.or(home)?);
        Some(Stores {
            claude_json: dir.join(".claude.json"),
            record: dir.join(RECORD),
        })
    }

    /// Whether claude counts `cwd` as trusted: its own entry, or a folder above it up to the
    /// repository's root (a `.git` there), says `hasTrustDialogAccepted: true`.
    pub(crate) fn claude_trusts(&self, cwd: &Path) -> bool {
        let Some(config) = read_json(&self.claude_json) else {
            return false;
        };
        let trusted = |dir: &Path| {
            config
                .get("projects")
                .and_then(|p| p.get(project_key(dir)))
                .and_then(|p| p.get("hasTrustDialogAccepted"))
                .and_then(Value::as_bool)
                == Some(true)
        };
        for dir in cwd.ancestors() {
            if trusted(dir) {
                return true;
            }
            if dir.join(".git").exists() {
                return false;
            }
        }
        false
    }

    /// What the user was shown when they last trusted `cwd` here, if they did.
    pub(crate) fn shown(&self, cwd: &Path) -> Option<Vec<String>> {
        let record: Record = serde_json::from_value(read_json(&self.record)?).ok()?;
        record
            .projects
            .get(&project_key(cwd))
            .map(|p| p.shown.clone())
    }

    /// The user trusts `cwd`, having been shown `shown`: claude's answer and claude-acp's record,
    /// each written whole at once (the other entries of claude's config kept as they are).
    pub(crate) fn trust(&self, cwd: &Path, shown: &[String]) -> io::Result<()> {
        let key = project_key(cwd);
        let mut config = match std::fs::read(&self.claude_json) {
            Ok(bytes) => serde_json::from_slice::<Value>(&bytes).map_err(|e| {
                io::Error::other(format!("{} is not JSON: {e}", self.claude_json.display()))
            })?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Value::Object(Default::default()),
            Err(e) => return Err(e),
        };
        let root = config
            .as_object_mut()
            .ok_or_else(|| io::Error::other("claude's config is not a JSON object"))?;
        let projects = root
            .entry("projects")
            .or_insert_with(|| Value::Object(Default::default()));
        if !projects.is_object() {
            *projects = Value::Object(Default::default());
        }
        let project = projects
            .as_object_mut()
            .expect("an object")
            .entry(key.clone())
            .or_insert_with(|| Value::Object(Default::default()));
        if !project.is_object() {
            *project = Value::Object(Default::default());
        }
        project
            .as_object_mut()
            .expect("an object")
            .insert("hasTrustDialogAccepted".into(), Value::Bool(true));
        let text = serde_json::to_vec_pretty(&config).map_err(io::Error::other)?;
        crate::platform::files::replace_private(&self.claude_json, &text)?;
        self.record(cwd, shown)
    }

    /// Records that the user trusts `cwd` having been shown `shown` (claude's answer untouched).
    pub(crate) fn record(&self, cwd: &Path, shown: &[String]) -> io::Result<()> {
        let key = project_key(cwd);
        let mut record: Record = read_json(&self.record)
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default();
        record.projects.insert(
            key,
            Shown {
                shown: shown.to_vec(),
            },
        );
        let text = serde_json::to_vec_pretty(&record).map_err(io::Error::other)?;
        crate::platform::files::replace_private(&self.record, &text)
    }
}

/// claude-acp's record: per workspace, what it showed the user who trusted it.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Record {
    #[serde(default)]
    projects: BTreeMap<String, Shown>,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Shown {
    shown: Vec<String>,
}

/// A folder as claude keys it in its config: its path, with `/` separators on Windows too.
pub(crate) fn project_key(dir: &Path) -> String {
    project_key_on(Os::CURRENT, dir)
}

pub(crate) fn project_key_on(os: Os, dir: &Path) -> String {
    let text = dir.to_string_lossy();
    match os {
        Os::Windows => text.replace('\\', "/"),
        _ => text.into_owned(),
    }
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}
