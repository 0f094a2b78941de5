//! What claude offered last time (its models and their effort levels), kept per claude executable
//! so that the answer to `session/new` carries every option without waiting for claude to start.
//!
//! One small JSON file per executable in the user's cache dir (`<cache>/claude-acp/`), written
//! atomically and readable by its owner only. An entry counts only for the executable it was made
//! from: its resolved path, size and modification time (an upgrade replaces the file, so the
//! first session after one waits for claude again, once). A file that does not parse, belongs to
//! another executable or has another format is ignored and rewritten.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::claude::locate::ClaudeCommand;
use crate::claude::wire::ModelInfo;

/// How long the first session after installing or upgrading claude may wait for claude's models.
pub(crate) const OPTIONS_WAIT: std::time::Duration = std::time::Duration::from_millis(1800);

/// Bumped when the file's shape changes: older files are then ignored (2: Fast and Auto mode).
const FORMAT: u32 = 2;

/// The cache, shared by every session of this process.
#[derive(Debug)]
pub(crate) struct OptionsCache {
    /// `None`: no cache dir known; only this process's memory is used.
    dir: Option<PathBuf>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// What this process knows, by executable key (from disk or from a claude it ran).
    models: HashMap<String, Vec<ModelInfo>>,
    /// Whether a session already waited for claude: only the first one may.
    waited: bool,
}

#[derive(Debug, Serialize, Deserialize)]
struct CacheFile {
    format: u32,
    /// The executable this was made from ([`executable_key`]).
    executable: String,
    claude_code_version: Option<String>,
    models: Vec<ModelInfo>,
}

impl OptionsCache {
    /// A cache in `dir` (created when first written).
    pub(crate) fn new(dir: Option<PathBuf>) -> Self {
        Self {
            dir,
            state: Mutex::new(State::default()),
        }
    }

    /// The cache in the user's cache directory.
    pub(crate) fn from_env() -> Self {
        Self::new(crate::platform::dirs::user_cache_dir().map(|d| d.join("claude-acp")))
    }

    /// The models `command`'s claude offered last time, if they are known and still its own.
    pub(crate) fn models(&self, command: &ClaudeCommand) -> Option<Vec<ModelInfo>> {
        let key = executable_key(command)?;
        if let Some(models) = self.lock().models.get(&key) {
            return Some(models.clone());
        }
        let file = self.file_for(&key)?;
        let cached: CacheFile = serde_json::from_slice(&std::fs::read(&file).ok()?)
            .inspect_err(|e| tracing::debug!("ignoring the options cache {}: {e}", file.display()))
            .ok()?;
        if cached.format != FORMAT || cached.executable != key || cached.models.is_empty() {
            return None;
        }
        self.lock().models.insert(key, cached.models.clone());
        Some(cached.models)
    }

    /// Whether this session may wait for claude's answer: true once per process, for the first
    /// session that finds nothing cached.
    pub(crate) fn may_wait(&self) -> bool {
        !std::mem::replace(&mut self.lock().waited, true)
    }

    /// Keeps what `command`'s claude just offered, on disk when it differs from what was there.
    pub(crate) fn remember(
        &self,
        command: &ClaudeCommand,
        version: Option<&str>,
        models: &[ModelInfo],
    ) {
        let Some(key) = executable_key(command) else {
            return;
        };
        if models.is_empty() {
            return;
        }
        let previous = self.lock().models.insert(key.clone(), models.to_vec());
        if previous.as_deref() == Some(models) {
            return;
        }
        let Some(file) = self.file_for(&key) else {
            return;
        };
        let cached = CacheFile {
            format: FORMAT,
            executable: key,
            claude_code_version: version.map(str::to_owned),
            models: models.to_vec(),
        };
        let bytes = serde_json::to_vec_pretty(&cached).expect("the options cache serializes");
        if let Err(e) = write(&file, &bytes) {
            tracing::debug!("could not write the options cache {}: {e}", file.display());
        }
    }

    fn file_for(&self, key: &str) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(dir.join(format!("options-{:016x}.json", fnv1a(key.as_bytes()))))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn write(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    crate::platform::files::replace_private(file, bytes)
}

/// What identifies one claude install: the executable's resolved path, size and modification
/// time, and the arguments it is started with. `None` when the executable cannot be read.
fn executable_key(command: &ClaudeCommand) -> Option<String> {
    let path = std::fs::canonicalize(&command.program).ok()?;
    let meta = std::fs::metadata(&path).ok()?;
    let modified = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some(format!(
        "{}|{}|{modified}|{}",
        path.display(),
        meta.len(),
        command.prefix_args.join("\u{1f}")
    ))
}

/// A hash that stays the same across builds and Rust versions (file names depend on it).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(value: &str) -> ModelInfo {
        ModelInfo {
            value: value.into(),
            supports_effort: true,
            supported_effort_levels: vec!["low".into(), "high".into()],
            ..ModelInfo::default()
        }
    }

    fn setup() -> (tempfile::TempDir, ClaudeCommand) {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("claude");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        (dir, ClaudeCommand::new(program))
    }

    #[test]
    fn what_one_process_remembers_the_next_one_reads() {
        let (dir, command) = setup();
        let cache_dir = dir.path().join("cache");
        OptionsCache::new(Some(cache_dir.clone())).remember(
            &command,
            Some("2.1.332"),
            &[model("opus")],
        );
        let next = OptionsCache::new(Some(cache_dir.clone()));
        assert_eq!(next.models(&command), Some(vec![model("opus")]));
        let file = std::fs::read_dir(&cache_dir)
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        assert!(crate::platform::files::is_owner_only(
            &file.metadata().unwrap()
        ));
    }

    #[test]
    fn a_corrupt_or_stale_file_is_ignored() {
        let (dir, command) = setup();
        let cache_dir = dir.path().join("cache");
        OptionsCache::new(Some(cache_dir.clone())).remember(&command, None, &[model("opus")]);
        let file = std::fs::read_dir(&cache_dir)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        std::fs::write(&file, "{not json").unwrap();
        assert_eq!(
            OptionsCache::new(Some(cache_dir.clone())).models(&command),
            None
        );

        OptionsCache::new(Some(cache_dir.clone())).remember(&command, None, &[model("opus")]);
        // claude upgraded in place: a new executable at the same path.
        std::fs::write(&command.program, "#!/bin/sh\n# a newer claude\n").unwrap();
        assert_eq!(OptionsCache::new(Some(cache_dir)).models(&command), None);
    }

    #[test]
    fn only_the_first_session_may_wait() {
        let cache = OptionsCache::new(None);
        assert!(cache.may_wait());
        assert!(!cache.may_wait());
    }
}
