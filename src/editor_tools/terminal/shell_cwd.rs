//! `cd` carrying over from one command to the next, as in claude's Bash: the directory a command
//! ends in becomes the next one's if the command succeeded and ended inside the workspace (the cwd
//! and the added directories); one that ends outside it sends the shell back to the session's cwd,
//! and the model is told so (claude's "Shell cwd was reset to ...").
//!
//! The directory is learnt without changing the command the editor shows: bash reads `BASH_ENV`
//! before it runs `-c`, and the file named there sets an exit trap that writes `pwd -P` to a file
//! of ours. PowerShell's command line ends as claude.exe's does, writing `(Get-Location).Path` to
//! that file ([`super::shell`]).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use super::CommandShell;

/// The exit trap bash runs for each command (`BASH_ENV`).
const TRAP: &str = "trap 'pwd -P >| \"$CLAUDE_ACP_CWD_FILE\" 2>/dev/null' EXIT\n";

pub(super) struct ShellCwd {
    start: PathBuf,
    roots: Vec<PathBuf>,
    current: Mutex<PathBuf>,
    /// The trap's file, written on first use; `None` if it could not be.
    bash_env: OnceLock<Option<PathBuf>>,
}

impl ShellCwd {
    pub(super) fn new(start: PathBuf, roots: Vec<PathBuf>) -> Self {
        Self {
            current: Mutex::new(start.clone()),
            start,
            roots,
            bash_env: OnceLock::new(),
        }
    }

    pub(super) fn current(&self) -> PathBuf {
        self.current
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The variables that make one command of `shell` report where it ended, and the file it
    /// reports to.
    pub(super) fn tracking(&self, shell: CommandShell) -> Option<(Vec<(String, String)>, PathBuf)> {
        let report = crate::platform::files::private_dir()
            .join(format!("claude-acp-cwd-{}", uuid::Uuid::new_v4()));
        let report_env = (
            "CLAUDE_ACP_CWD_FILE".to_owned(),
            report.display().to_string(),
        );
        if shell != CommandShell::Bash {
            return Some((vec![report_env], report));
        }
        let bash_env = self
            .bash_env
            .get_or_init(|| {
                let path = crate::platform::files::private_dir()
                    .join(format!("claude-acp-bash-env-{}.sh", uuid::Uuid::new_v4()));
                crate::platform::files::replace_private(&path, TRAP.as_bytes())
                    .ok()
                    .map(|()| path)
            })
            .clone()?;
        let env = vec![
            ("BASH_ENV".to_owned(), bash_env.display().to_string()),
            report_env,
        ];
        Some((env, report))
    }

    /// Takes in where the command ended (then removes the report); the note for the model when the
    /// shell went back to the session's cwd.
    pub(super) fn after(&self, report: &Path, succeeded: bool) -> Option<String> {
        let ended = std::fs::read_to_string(report).ok();
        let _ = std::fs::remove_file(report);
        // PowerShell 5.1's `Out-File -Encoding utf8` starts the file with a byte-order mark.
        let ended = ended?;
        let ended = PathBuf::from(
            ended
                .trim_start_matches('\u{feff}')
                .trim_end_matches(['\n', '\r']),
        );
        if !ended.is_absolute() {
            return None;
        }
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if !self.inside(&ended) {
            *current = self.start.clone();
            return Some(format!("Shell cwd was reset to {}", self.start.display()));
        }
        if succeeded {
            *current = ended;
        }
        None
    }

    fn inside(&self, dir: &Path) -> bool {
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let dir = canonical(dir);
        self.roots
            .iter()
            .any(|root| dir.starts_with(canonical(root)))
    }

    /// The trap's file goes with the session's claude.
    pub(super) fn remove_files(&self) {
        if let Some(Some(path)) = self.bash_env.get() {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(dir: &Path) -> PathBuf {
        let file = crate::platform::files::private_dir()
            .join(format!("claude-acp-cwd-test-{}", uuid::Uuid::new_v4()));
        std::fs::write(&file, format!("{}\n", dir.display())).unwrap();
        file
    }

    #[test]
    fn cd_carries_over_inside_the_workspace_and_resets_outside_it() {
        let work = std::env::temp_dir().join(format!("shell-cwd-{}", uuid::Uuid::new_v4()));
        let sub = work.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        let cwd = ShellCwd::new(work.clone(), vec![work.clone()]);
        assert_eq!(cwd.after(&report(&sub), true), None);
        assert_eq!(cwd.current(), std::fs::canonicalize(&sub).unwrap());
        // A failed command leaves it where it was.
        assert_eq!(cwd.after(&report(&work), false), None);
        assert_eq!(cwd.current(), std::fs::canonicalize(&sub).unwrap());
        // Outside the workspace: back to the start, and the model is told.
        let note = cwd.after(&report(Path::new("/")), true);
        assert_eq!(
            note,
            Some(format!("Shell cwd was reset to {}", work.display()))
        );
        assert_eq!(cwd.current(), work);
        std::fs::remove_dir_all(&work).unwrap();
    }

    #[test]
    fn bash_reports_where_a_command_ended() {
        let work = std::fs::canonicalize(std::env::temp_dir()).unwrap();
        let cwd = ShellCwd::new(work.clone(), vec![work.clone()]);
        let (env, report) = cwd
            .tracking(CommandShell::Bash)
            .expect("the trap file is written");
        let status = std::process::Command::new("bash")
            .args(["-c", "cd / && exit 3"])
            .envs(env)
            .current_dir(&work)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(3), "the trap keeps the exit code");
        assert_eq!(std::fs::read_to_string(&report).unwrap(), "/\n");
        assert!(cwd.after(&report, false).is_some(), "/ is outside");
        cwd.remove_files();
    }
}
