//! A terminal program driven as its user drives it: run in a pane of a tmux server of the test's
//! own (its socket in the test's directory), typed at with `send-keys`, read with `capture-pane`.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A tmux server running one program in one pane, killed (with the program) when dropped.
pub struct Tmux {
    socket: String,
    pane: String,
}

impl Tmux {
    /// Starts `line` (a `/bin/sh` command line) in a `width` x `height` pane named `pane`.
    /// `tmux` is the tmux command to start the server with, so that the server and the program
    /// get its environment, working directory and network namespace.
    pub async fn start(
        mut tmux: tokio::process::Command,
        socket: &Path,
        pane: &str,
        (width, height): (u16, u16),
        line: &str,
    ) -> Tmux {
        let this = Tmux {
            socket: socket.display().to_string(),
            pane: pane.to_owned(),
        };
        let (width, height) = (width.to_string(), height.to_string());
        tmux.args(["-S", &this.socket, "new-session", "-d", "-s", pane])
            .args(["-x", &width, "-y", &height, line]);
        let started = tmux
            .output()
            .await
            .unwrap_or_else(|e| panic!("tmux: {e}. This test needs tmux (apt-get install tmux)."));
        assert!(started.status.success(), "tmux new-session: {started:?}");
        this
    }

    pub fn command(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-S", &self.socket])
            .args(args)
            .env_remove("TMUX")
            .output()
            .unwrap_or_else(|e| panic!("tmux: {e}. This test needs tmux (apt-get install tmux)."))
    }

    /// Presses `keys` in tmux's key names (`Enter`, `Escape`, `C-c`, `M-x`; a longer word is
    /// typed as its letters).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.pane];
        args.extend_from_slice(keys);
        self.command(&args);
    }

    /// Types `text` as it is (no key names).
    pub fn type_text(&self, text: &str) {
        self.command(&["send-keys", "-t", &self.pane, "-l", text]);
    }

    /// What the pane shows, its scrollback included.
    pub fn screen(&self) -> String {
        let out = self.command(&["capture-pane", "-p", "-J", "-S", "-2000", "-t", &self.pane]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen once `done` holds for it, polled every 100 ms for up to `timeout`. A screen
    /// showing one of `errors` fails at once; either failure shows the screen and `context()`.
    pub async fn wait_for(
        &self,
        what: &str,
        timeout: Duration,
        errors: &[&str],
        done: impl Fn(&str) -> bool,
        context: impl Fn() -> String,
    ) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let screen = self.screen();
            if let Some(error) = errors.iter().find(|e| screen.contains(*e)) {
                panic!(
                    "waiting for {what}, the screen shows {error:?}:\n{screen}\n{}",
                    context()
                );
            }
            if done(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!(
                    "{what}: not on the screen after {timeout:?}:\n{screen}\n{}",
                    context()
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command(&["kill-server"]);
    }
}
