//! The stand-in for claude as tests use it: claude-acp itself as the `--claude-path`, which it then
//! starts as `claude-acp standin` playing `fixtures/standin/<name>.jsonl` (named in
//! `CLAUDE_STANDIN_SCRIPT`), the log of what it received, and
//! its verdict: when a [`Standin`] is dropped at the end of a test, every stand-in process it
//! started must have finished clean (no line its script did not expect, no broken script, exit 0
//! unless the script itself exits otherwise), or the test fails there. No test can forget it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::acp_client::AcpClient;
use super::liveness;

/// How long the teardown waits for the stand-ins to finish before reading their verdict.
const VERDICT_WAIT: Duration = Duration::from_secs(5);

pub struct Standin {
    dir: tempfile::TempDir,
    /// What the adapter's `--claude-path` names: claude-acp itself, which then starts its own
    /// executable as `claude-acp standin` (no wrapper script, so alike on every platform). A test
    /// may put its own wrapper here that ends in `exec claude-acp standin "$@"`.
    pub claude: PathBuf,
    /// The scripts, joined like `PATH` (`CLAUDE_STANDIN_SCRIPT`).
    scripts: std::ffi::OsString,
    /// The file counting the stand-ins started (`CLAUDE_STANDIN_STARTS`).
    starts: PathBuf,
    pub log: PathBuf,
    pub work: PathBuf,
}

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/standin")
        .join(format!("{name}.jsonl"))
}

impl Standin {
    /// A stand-in playing `fixtures/standin/<name>.jsonl`, with a fresh work directory.
    pub fn new(name: &str) -> Self {
        Self::with_script(|_| fixture(name))
    }

    /// A stand-in playing the script `write` puts in the stand-in's directory (a test's own script).
    pub fn with_script(write: impl FnOnce(&Path) -> PathBuf) -> Self {
        Self::with_scripts(|dir| vec![write(dir)])
    }

    /// A stand-in whose n-th claude plays the n-th script `write` returns, and every later one
    /// the last: a claude that fails one way, then the one a restart finds.
    pub fn with_scripts(write: impl FnOnce(&Path) -> Vec<PathBuf>) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let scripts = write(dir.path());
        for script in &scripts {
            assert!(
                script.exists(),
                "missing stand-in script {}",
                script.display()
            );
        }
        let log = dir.path().join("standin.log");
        let starts = dir.path().join("starts");
        let scripts = std::env::join_paths(&scripts).expect("script paths join like PATH");
        let work = dir.path().join("work");
        std::fs::create_dir(&work).expect("work dir");
        Self {
            dir,
            claude: PathBuf::from(crate::support::adapter()),
            scripts,
            starts,
            log,
            work,
        }
    }

    /// The environment that makes claude-acp's own executable, named as claude, the stand-in
    /// playing these scripts and logging to [`Standin::log`]. Whoever starts the adapter (or a
    /// wrapper around the stand-in) passes it on, so every stand-in logs and gets its verdict read.
    pub fn env(&self) -> [(&'static str, &str); 3] {
        [
            ("CLAUDE_STANDIN_SCRIPT", self.scripts.to_str()),
            ("CLAUDE_STANDIN_STARTS", self.starts.to_str()),
            ("CLAUDE_STANDIN_LOG", self.log.to_str()),
        ]
        .map(|(key, value)| (key, value.expect("utf-8 path")))
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The `CLAUDE_CONFIG_DIR` the adapter (and so claude) is given.
    pub fn config_dir(&self) -> PathBuf {
        self.dir.path().join("claude-config")
    }

    /// The user cache dir (`XDG_CACHE_HOME`) the adapter is given: the options cache is under it.
    pub fn cache_dir(&self) -> PathBuf {
        self.dir.path().join("cache")
    }

    /// Writes the transcript claude would have stored for `session_id` (the stand-in stores none),
    /// as claude does once its first turn reached the model.
    pub fn store_conversation(&self, session_id: &str, prompt: &str) {
        let slug = claude_acp::history::project_slug(&self.work);
        let dir = self.config_dir().join("projects").join(slug);
        std::fs::create_dir_all(&dir).expect("projects dir");
        let line = serde_json::json!({
            "type": "user", "cwd": self.work, "sessionId": session_id,
            "uuid": "00000000-0000-4000-8000-000000000001", "parentUuid": null,
            "timestamp": "2026-12-02T10:00:00.000Z",
            "message": {"role": "user", "content": prompt},
        });
        std::fs::write(dir.join(format!("{session_id}.jsonl")), format!("{line}\n"))
            .expect("transcript");
    }

    /// claude-acp with this stand-in as its claude; `extra_args` go to claude-acp.
    pub fn adapter(&self, extra_args: &[&str]) -> AcpClient {
        self.adapter_with_env(extra_args, &[])
    }

    /// Like [`Standin::adapter`], with extra environment for the adapter (e.g. `CLAUDE_CONFIG_DIR`).
    pub fn adapter_with_env(&self, extra_args: &[&str], env: &[(&str, &str)]) -> AcpClient {
        let (args, vars) = self.adapter_args_and_env(extra_args, env);
        let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let client = AcpClient::spawn(&args, &vars, self.dir.path());
        // Ended like an editor quits, so claude reads every line sent to it before it goes.
        client.end_gracefully_on_drop();
        client
    }

    /// The adapter as [`Standin::adapter_with_env`] starts it, as a bare command whose stdio the
    /// test drives itself (an editor that stops reading, say).
    pub fn adapter_command(&self, env: &[(&str, &str)]) -> tokio::process::Command {
        let (args, vars) = self.adapter_args_and_env(&[], env);
        let mut command = tokio::process::Command::new(crate::support::acp_client::adapter());
        command.args(&args).current_dir(self.dir.path());
        for (key, value) in vars {
            command.env(key, value);
        }
        command.kill_on_drop(true);
        command
    }

    fn adapter_args_and_env<'a>(
        &'a self,
        extra_args: &[&'a str],
        env: &[(&'a str, &'a str)],
    ) -> (Vec<&'a str>, Vec<(&'a str, String)>) {
        let mut args = vec!["--claude-path", self.claude.to_str().expect("utf-8 path")];
        args.extend_from_slice(extra_args);
        let utf8 = |path: PathBuf| path.to_str().expect("utf-8 path").to_owned();
        let mut vars = vec![
            // Hermetic: the options cache lives here, not in the user's ~/.cache.
            ("XDG_CACHE_HOME", utf8(self.cache_dir())),
            // The first session waits for the stand-in's models however loaded the machine is
            // (1.8 s otherwise), so its answer always holds them.
            ("CLAUDE_ACP_OPTIONS_WAIT_MS", "30000".to_owned()),
            ("RUST_LOG", "claude_acp=debug,info".to_owned()),
            // Hermetic: claude's stored conversations live here, not in the user's ~/.claude.
            // A caller's own CLAUDE_CONFIG_DIR, set later, wins.
            ("CLAUDE_CONFIG_DIR", utf8(self.config_dir())),
        ];
        vars.extend(env.iter().map(|(k, v)| (*k, (*v).to_owned())));
        // Last, so they win: every stand-in logs and gets its verdict read, whatever env a test
        // gives the adapter.
        vars.extend(self.env().into_iter().map(|(k, v)| (k, v.to_owned())));
        (args, vars)
    }

    /// What went wrong in the stand-ins so far, one line each: mismatches and script errors
    /// (`error` events) and exits with a status their script did not ask for. Empty when clean.
    pub fn problems(&self) -> Vec<String> {
        let events = self.events();
        // An `error` already explains its exit; a scripted crash is no problem.
        let explained = |pid: &Value, code: &Value| {
            events.iter().any(|e| {
                e["pid"] == *pid
                    && (e["event"] == "error"
                        || (e["event"] == "scripted_exit" && e["code"] == *code))
            })
        };
        events
            .iter()
            .filter_map(|e| match e["event"].as_str() {
                Some("error") => Some(format!(
                    "stand-in {} failed (exit {}): {}",
                    e["pid"], e["code"], e["message"]
                )),
                Some("exit") if e["code"] != 0 && !explained(&e["pid"], &e["code"]) => Some(
                    format!("stand-in {} exited with {} unasked", e["pid"], e["code"]),
                ),
                _ => None,
            })
            .collect()
    }

    /// Whether stand-in `pid` has logged its exit.
    fn exited(&self, pid: u32) -> bool {
        self.events()
            .iter()
            .any(|e| e["event"] == "exit" && e["pid"] == pid)
    }

    /// Waits (blocking: it runs in `Drop`) until every stand-in started has exited or is gone.
    fn wait_all_done(&self) {
        let deadline = std::time::Instant::now() + VERDICT_WAIT;
        while std::time::Instant::now() < deadline
            && self
                .pids()
                .into_iter()
                .any(|pid| liveness::is_alive(pid) && !self.exited(pid))
        {
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Every event the stand-in processes logged, in order.
    pub fn events(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// The argv of each stand-in process started, in order.
    pub fn argvs(&self) -> Vec<Vec<String>> {
        self.events()
            .iter()
            .filter(|e| e["event"] == "start")
            .map(|e| {
                e["argv"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|a| a.as_str().map(String::from))
                    .collect()
            })
            .collect()
    }

    /// Every line the stand-in received from the adapter.
    pub fn received(&self) -> Vec<Value> {
        self.events()
            .into_iter()
            .filter(|e| e["event"] == "recv")
            .map(|e| e["line"].clone())
            .collect()
    }

    /// The pids of stand-in processes started so far.
    pub fn pids(&self) -> Vec<u32> {
        self.events()
            .iter()
            .filter(|e| e["event"] == "start")
            .filter_map(|e| e["pid"].as_u64().map(|p| p as u32))
            .collect()
    }

    /// Waits until the stand-ins received a line satisfying `pred` and returns it.
    pub async fn wait_received(&self, pred: impl Fn(&Value) -> bool, timeout: Duration) -> Value {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(line) = self.received().into_iter().find(|l| pred(l)) {
                return line;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the stand-in did not receive the line waited for: {:?}",
                self.events()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits until `n` stand-in processes have started.
    pub async fn wait_started(&self, n: usize, timeout: Duration) -> Vec<u32> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let pids = self.pids();
            if pids.len() >= n {
                return pids;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "stand-in not started: {:?}",
                self.events()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for Standin {
    /// The stand-in's verdict, read by every test that uses one.
    fn drop(&mut self) {
        if std::thread::panicking() {
            // The test failed already; what the stand-in saw often says why.
            for problem in self.problems() {
                eprintln!("{problem}");
            }
            return;
        }
        self.wait_all_done();
        let problems = self.problems();
        assert!(
            problems.is_empty(),
            "the stand-in did not finish clean:\n{}\n--- its log ---\n{}",
            problems.join("\n"),
            std::fs::read_to_string(&self.log).unwrap_or_default()
        );
    }
}
