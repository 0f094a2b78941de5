//! The stand-in for claude as tests use it: a wrapper executable that runs
//! `claude-acp standin --script fixtures/standin/<name>.jsonl`, and the log of what it received.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::acp_client::AcpClient;

pub struct Standin {
    dir: tempfile::TempDir,
    pub wrapper: PathBuf,
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
        let script = fixture(name);
        assert!(
            script.exists(),
            "missing stand-in script {}",
            script.display()
        );
        let dir = tempfile::tempdir().expect("temp dir");
        let wrapper = dir.path().join("claude");
        let body = format!(
            "#!/bin/sh\nexec '{}' standin --script '{}' \"$@\"\n",
            env!("CARGO_BIN_EXE_claude-acp"),
            script.display()
        );
        std::fs::write(&wrapper, body).expect("write wrapper");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let work = dir.path().join("work");
        std::fs::create_dir(&work).expect("work dir");
        let log = dir.path().join("standin.log");
        Self {
            dir,
            wrapper,
            log,
            work,
        }
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// claude-acp with this stand-in as its claude; `extra_args` go to claude-acp.
    pub fn adapter(&self, extra_args: &[&str]) -> AcpClient {
        self.adapter_with_env(extra_args, &[])
    }

    /// Like [`Standin::adapter`], with extra environment for the adapter (e.g. `CLAUDE_CONFIG_DIR`).
    pub fn adapter_with_env(&self, extra_args: &[&str], env: &[(&str, &str)]) -> AcpClient {
        let mut args = vec!["--claude-path", self.wrapper.to_str().expect("utf-8 path")];
        args.extend_from_slice(extra_args);
        let mut vars = vec![
            ("CLAUDE_STANDIN_LOG", self.log.to_str().expect("utf-8 path")),
            ("RUST_LOG", "claude_acp=debug,info"),
        ];
        vars.extend_from_slice(env);
        AcpClient::spawn(&args, &vars, self.dir.path())
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
