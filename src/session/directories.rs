//! The workspace's other roots: `additionalDirectories` of the request together with those of
//! `_meta`, each checked (absolute, an existing directory) before claude gets them as `--add-dir`.

use std::path::{Path, PathBuf};

use super::meta;
use super::spawn::SessionFlags;
use crate::domain::{AgentError, NewSession};

/// The session's cwd: absolute, an existing directory.
pub(crate) fn check_cwd(cwd: &Path) -> Result<(), AgentError> {
    if !cwd.is_absolute() {
        return Err(AgentError::InvalidParams(format!(
            "cwd must be an absolute path, got `{}`",
            cwd.display()
        )));
    }
    if !cwd.is_dir() {
        return Err(AgentError::InvalidParams(format!(
            "cwd `{}` is not an existing directory",
            cwd.display()
        )));
    }
    Ok(())
}

/// claude's flags for a session request, its extra roots included and checked.
pub(crate) fn session_flags(req: &NewSession) -> Result<SessionFlags, AgentError> {
    let mut requested = Vec::new();
    for dir in &req.additional_directories {
        let text = dir.to_str().ok_or_else(|| {
            AgentError::InvalidParams(format!(
                "additionalDirectories: `{}` is not valid UTF-8",
                dir.display()
            ))
        })?;
        requested.push(text.to_owned());
    }
    let flags = meta::flags_for_session(req.meta.as_ref(), &requested)
        .map_err(|e| AgentError::InvalidParams(e.to_string()))?;
    for dir in added_directories(&flags) {
        check(Path::new(&dir))?;
    }
    Ok(flags)
}

/// The directories claude is given with `--add-dir`, in order.
pub(crate) fn added_directories(flags: &SessionFlags) -> Vec<PathBuf> {
    flags
        .extra_args
        .windows(2)
        .filter(|pair| pair[0] == "--add-dir")
        .map(|pair| PathBuf::from(&pair[1]))
        .collect()
}

fn check(dir: &Path) -> Result<(), AgentError> {
    if !dir.is_absolute() {
        return Err(AgentError::InvalidParams(format!(
            "additional directory `{}` must be an absolute path",
            dir.display()
        )));
    }
    if !dir.is_dir() {
        return Err(AgentError::InvalidParams(format!(
            "additional directory `{}` is not an existing directory",
            dir.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(dirs: &[&Path], meta: serde_json::Value) -> NewSession {
        NewSession {
            cwd: PathBuf::from("/"),
            additional_directories: dirs.iter().map(|d| d.to_path_buf()).collect(),
            meta: Some(meta),
            ..NewSession::default()
        }
    }

    #[test]
    fn every_root_once_request_first() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let meta = json!({"additionalRoots": [b.path(), a.path()],
            "claudeCode": {"options": {"additionalDirectories": [a.path()]}}});
        let flags = session_flags(&request(&[a.path()], meta)).unwrap();
        assert_eq!(added_directories(&flags), vec![a.path(), b.path()]);
    }

    #[test]
    fn relative_or_missing_roots_are_invalid_params() {
        let missing = Path::new("/nonexistent/claude-acp/root");
        for (dirs, meta, says) in [
            (vec![Path::new("rel/dir")], json!({}), "absolute"),
            (vec![missing], json!({}), "not an existing directory"),
            (vec![], json!({"additionalRoots": ["../up"]}), "absolute"),
        ] {
            match session_flags(&request(&dirs, meta)) {
                Err(AgentError::InvalidParams(m)) => assert!(m.contains(says), "{m}"),
                other => panic!("expected invalid params, got {other:?}"),
            }
        }
    }
}
