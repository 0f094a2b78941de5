//! The stand-in as a launcher: each start of claude plays the script inside this process over
//! in-memory pipes, with claude's arguments and cwd, and the arguments of every start are kept.
//! Lets tests drive a whole session, restarts included, without starting a process.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::BufReader;

use super::{Runtime, Script, run_with_runtime};
use crate::claude::launch::{Launch, Launched, in_process};
use crate::claude::{ClaudeError, SpawnOptions};

#[derive(Debug, Clone)]
pub(crate) struct StandinLauncher {
    script: Script,
    starts: Arc<Mutex<Vec<Vec<String>>>>,
    /// How many of the claudes started still run (their task not ended nor aborted).
    running: Arc<AtomicUsize>,
}

/// Counts one running claude for as long as its task lives.
struct Running(Arc<AtomicUsize>);

impl Running {
    fn new(count: Arc<AtomicUsize>) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        Self(count)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl StandinLauncher {
    pub(crate) fn new(script: Script) -> Self {
        Self {
            script,
            starts: Arc::default(),
            running: Arc::default(),
        }
    }

    /// claude's arguments at each start so far, in order.
    pub(crate) fn starts(&self) -> Vec<Vec<String>> {
        self.starts.lock().expect("starts lock").clone()
    }

    /// How many of the claudes it started still run: the in-process form of "no process left".
    pub(crate) fn running(&self) -> usize {
        self.running.load(Ordering::SeqCst)
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
        // Moved into the claude's task: dropped when it ends or is aborted (killed).
        let running = Running::new(self.running.clone());
        Ok(in_process(move |pipes| async move {
            let _running = running;
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
