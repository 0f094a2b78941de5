//! What a run takes from its surroundings: the log file, cwd, pid, and claude's arguments.

use super::pattern::Vars;
use serde_json::{Value, json};
use std::io::Write as _;
use std::path::PathBuf;

/// The model the real CLI reports when no `--model` is given.
const DEFAULT_MODEL: &str = "claude-opus-5-5";

/// What the engine needs from its surroundings, injectable so that tests run in-process.
#[derive(Debug, Clone)]
pub(crate) struct Runtime {
    /// `CLAUDE_STANDIN_LOG`: a file that gets one JSON line per event, appended.
    pub(crate) log_path: Option<PathBuf>,
    /// Base of `write_file` paths and the value of `${cwd}`.
    pub(crate) cwd: PathBuf,
    pub(crate) pid: u32,
}

impl Runtime {
    pub(crate) fn from_env() -> Runtime {
        Runtime {
            log_path: std::env::var_os("CLAUDE_STANDIN_LOG")
                .filter(|p| !p.is_empty())
                .map(PathBuf::from),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            pid: std::process::id(),
        }
    }
}

/// The value of `--flag value` or `--flag=value` in claude's arguments (last one wins).
fn flag_value(args: &[String], flag: &str) -> Option<String> {
    let mut found = None;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == flag {
            found = iter.next().cloned();
        } else if let Some(v) = arg
            .strip_prefix(flag)
            .and_then(|rest| rest.strip_prefix('='))
        {
            found = Some(v.to_owned());
        }
    }
    found
}

/// Built-in variables, derived from claude's arguments the way the CLI would.
pub(crate) fn builtin_vars(args: &[String], runtime: &Runtime) -> Vars {
    let mut vars = Vars::default();
    let resume = flag_value(args, "--resume").or_else(|| flag_value(args, "-r"));
    let forked = args.iter().any(|a| a == "--fork-session");
    let session_id = flag_value(args, "--session-id")
        .or_else(|| resume.clone().filter(|_| !forked))
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    vars.set("session_id", json!(session_id));
    vars.set("resume_id", resume.map_or(Value::Null, Value::String));
    vars.set("cwd", json!(runtime.cwd.to_string_lossy()));
    vars.set("pid", json!(runtime.pid));
    vars.set(
        "model",
        json!(flag_value(args, "--model").unwrap_or_else(|| DEFAULT_MODEL.to_owned())),
    );
    vars.set(
        "permission_mode",
        json!(flag_value(args, "--permission-mode").unwrap_or_else(|| "default".into())),
    );
    vars
}

/// Appends events to the `CLAUDE_STANDIN_LOG` file; failures to log never stop the script.
pub(super) struct EventLog {
    pub(super) path: Option<PathBuf>,
    pub(super) pid: u32,
}

impl EventLog {
    pub(super) fn record(&self, event: &str, mut fields: serde_json::Map<String, Value>) {
        let Some(path) = &self.path else { return };
        fields.insert("event".into(), json!(event));
        fields.insert("pid".into(), json!(self.pid));
        let mut line = Value::Object(fields).to_string();
        line.push('\n');
        // One write of one line in append mode, so that processes sharing the file do not interleave.
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = file.write_all(line.as_bytes());
        }
    }
}

pub(super) fn fields(pairs: Vec<(&str, Value)>) -> serde_json::Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_id_follows_the_cli_rules() {
        let rt = Runtime {
            log_path: None,
            cwd: "/w".into(),
            pid: 1,
        };
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let sid = |a: &[&str]| {
            builtin_vars(&args(a), &rt)
                .get("session_id")
                .cloned()
                .unwrap()
        };
        assert_eq!(sid(&["--session-id", "a"]), json!("a"));
        assert_eq!(sid(&["--resume", "b"]), json!("b"));
        assert_eq!(sid(&["--resume=c"]), json!("c"));
        let forked = sid(&["--resume", "b", "--fork-session"]);
        assert_ne!(forked, json!("b"));
        assert_eq!(forked.as_str().unwrap().len(), 36, "a fresh uuid");
        assert_eq!(
            builtin_vars(&args(&["--resume", "b"]), &rt).get("resume_id"),
            Some(&json!("b"))
        );
        assert_eq!(
            builtin_vars(&args(&["--permission-mode", "plan"]), &rt).get("permission_mode"),
            Some(&json!("plan"))
        );
    }
}
