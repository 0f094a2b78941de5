//! The stand-in as a launcher: each start of claude plays the script inside this process over
//! in-memory pipes, with claude's arguments and cwd, and the arguments of every start are kept.
//! Lets tests drive a whole session, restarts included, without starting a process.

use std::sync::{Arc, Mutex};

use tokio::io::BufReader;

use super::{Runtime, Script, run_with_runtime};
use crate::claude::launch::{Launch, Launched, in_process};
use crate::claude::{ClaudeError, SpawnOptions};

#[derive(Debug, Clone)]
pub struct StandinLauncher {
    script: Script,
    starts: Arc<Mutex<Vec<Vec<String>>>>,
}

impl StandinLauncher {
    pub fn new(script: Script) -> Self {
        Self {
            script,
            starts: Arc::default(),
        }
    }

    /// claude's arguments at each start so far, in order.
    pub fn starts(&self) -> Vec<Vec<String>> {
        self.starts.lock().expect("starts lock").clone()
    }
}

impl Launch for StandinLauncher {
    fn launch(&self, opts: SpawnOptions) -> Result<Launched, ClaudeError> {
        self.starts
            .lock()
            .expect("starts lock")
            .push(opts.args.clone());
        let script = self.script.clone();
        let runtime = Runtime {
            log_path: None,
            cwd: opts.cwd,
            pid: std::process::id(),
        };
        Ok(in_process(move |pipes| async move {
            run_with_runtime(
                script,
                opts.args,
                runtime,
                BufReader::new(pipes.stdin),
                pipes.stdout,
                pipes.stderr,
            )
            .await
        }))
    }
}
