//! Running a short helper command (a login shell asked where claude is, `where claude`) with a
//! time limit: its standard output if it succeeded in time, nothing otherwise. A helper that
//! hangs (a shell start-up file waiting for input) is killed at the limit.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `program args...`'s standard output when it exits with success within `limit`.
pub(crate) fn output_within(program: &Path, args: &[&str], limit: Duration) -> Option<String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    // Read on a thread: a child that fills the pipe would otherwise never exit.
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).ok().map(|_| text)
    });
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    // After a kill the pipe may still be held by a grandchild; do not wait for it.
    let status = status?;
    if !status.success() {
        return None;
    }
    reader.join().ok().flatten()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn output_of_a_quick_command_and_nothing_from_a_slow_or_failing_one() {
        let sh = Path::new("/bin/sh");
        assert_eq!(
            output_within(sh, &["-c", "echo hi"], Duration::from_secs(5)).as_deref(),
            Some("hi\n")
        );
        assert_eq!(
            output_within(sh, &["-c", "exit 3"], Duration::from_secs(5)),
            None
        );
        let started = Instant::now();
        assert_eq!(
            output_within(sh, &["-c", "exec sleep 30"], Duration::from_millis(200)),
            None
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "killed at the limit"
        );
    }
}
