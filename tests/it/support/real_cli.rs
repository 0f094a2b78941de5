//! The pinned real Claude Code CLI for integration tests: installs it on demand, and builds a clean,
//! offline environment per test (fresh HOME and temp dirs, the mock API as the only endpoint, nothing of
//! the user's environment, inside the mock's private network namespace when there is one).

use std::ffi::OsStr;
use std::fs::{self, File};
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::sync::OnceLock;

use tempfile::TempDir;

use super::mock_api::MockApi;
use super::netns::IsolatedNet;

/// The Claude Code version the tests run against. Bumping it is this one line.
pub const CLAUDE_CODE_VERSION: &str = "2.1.332";

const NPM_PACKAGE: &str = "@anthropic-ai/claude-code";

/// Path of the pinned `claude` binary, installed into `<target dir>/claude-code/` on first use.
///
/// Several test processes may call this at once: the install runs under an exclusive `flock`.
/// Panics, saying why, if it cannot be installed or does not report [`CLAUDE_CODE_VERSION`].
pub fn claude_binary() -> PathBuf {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(install_pinned_claude).clone()
}

fn install_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(target)
    };
    target.join("claude-code")
}

fn install_pinned_claude() -> PathBuf {
    let dir = install_dir();
    let binary = dir.join("node_modules/.bin/claude");
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let lock_path = dir.join(".install.lock");
    let lock = File::create(&lock_path)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", lock_path.display()));
    // SAFETY: flock on a file we own; released when `lock` is closed at the end of this function.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        panic!(
            "cannot lock {}: {}",
            lock_path.display(),
            std::io::Error::last_os_error()
        );
    }
    if installed_version(&binary).as_deref() == Ok(CLAUDE_CODE_VERSION) {
        return binary;
    }
    // npm 11 skips the package's postinstall (which places the native binary) unless allowed here.
    fs::write(dir.join(".npmrc"), format!("allow-scripts={NPM_PACKAGE}\n"))
        .unwrap_or_else(|e| panic!("cannot write {}/.npmrc: {e}", dir.display()));
    let spec = format!("{NPM_PACKAGE}@{CLAUDE_CODE_VERSION}");
    eprintln!("installing {spec} into {} ...", dir.display());
    let output = StdCommand::new("npm")
        .arg("install")
        .arg("--prefix")
        .arg(&dir)
        .arg("--no-audit")
        .arg("--no-fund")
        .arg(&spec)
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run npm to install {spec} (is Node.js/npm installed?): {e}")
        });
    if !output.status.success() {
        panic!(
            "`npm install --prefix {} {spec}` failed ({}):\n{}\n{}",
            dir.display(),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    match installed_version(&binary) {
        Ok(version) if version == CLAUDE_CODE_VERSION => binary,
        Ok(version) => panic!(
            "{} reports version {version:?} after installing {spec}",
            binary.display()
        ),
        Err(why) => panic!(
            "{spec} was installed but {} does not run: {why}",
            binary.display()
        ),
    }
}

/// The version `claude --version` prints (`2.1.332 (Claude Code)` gives `2.1.332`).
fn installed_version(binary: &Path) -> Result<String, String> {
    if !binary.exists() {
        return Err(format!("{} does not exist", binary.display()));
    }
    let home = TempDir::new().map_err(|e| format!("temp dir: {e}"))?;
    let output = StdCommand::new(binary)
        .arg("--version")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run it: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`--version` exited with {}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    Ok(stdout
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string())
}

/// A fresh, isolated environment for one claude (or adapter) process pointed at one mock API.
///
/// Layout under one temp root (removed on drop): `home/`, `tmp/`, `xdg/`, `work/` (the cwd).
pub struct ClaudeEnv {
    root: TempDir,
    base_url: String,
    net: Option<IsolatedNet>,
    extra_env: Vec<(String, String)>,
}

impl ClaudeEnv {
    /// A new environment whose API is `mock`. Also makes sure the pinned CLI is installed.
    pub fn new(mock: &MockApi) -> ClaudeEnv {
        claude_binary();
        let root = TempDir::with_prefix("claude-acp-test-").expect("temp dir for ClaudeEnv");
        for sub in ["home", "tmp", "xdg", "work"] {
            fs::create_dir(root.path().join(sub)).expect("ClaudeEnv sub directory");
        }
        // XDG_RUNTIME_DIR must be private to its user.
        fs::set_permissions(root.path().join("xdg"), fs::Permissions::from_mode(0o700))
            .expect("chmod xdg dir");
        ClaudeEnv {
            root,
            base_url: mock.base_url().to_string(),
            net: mock.net().cloned(),
            extra_env: Vec::new(),
        }
    }

    /// Adds (or overrides) an environment variable, e.g. `ENABLE_TOOL_SEARCH=false`.
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> ClaudeEnv {
        self.extra_env.push((key.into(), value.into()));
        self
    }

    /// The working directory processes start in (the "project").
    pub fn work_dir(&self) -> PathBuf {
        self.root.path().join("work")
    }

    /// The fresh HOME (claude keeps its sessions under `.claude/` here).
    pub fn home_dir(&self) -> PathBuf {
        self.root.path().join("home")
    }

    /// Whether processes run in a private loopback-only network namespace.
    pub fn network_isolated(&self) -> bool {
        self.net.is_some()
    }

    /// The complete environment a spawned process gets (nothing else is inherited).
    pub fn vars(&self) -> Vec<(String, String)> {
        let path_of = |sub: &str| self.root.path().join(sub).display().to_string();
        let claude_dir = claude_binary()
            .parent()
            .expect("claude binary has a directory")
            .to_path_buf();
        // The CLI's own directory first, so an adapter finds `claude` by name.
        let mut path = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .collect::<Vec<_>>();
        path.insert(0, claude_dir);
        let path = std::env::join_paths(path)
            .expect("PATH")
            .to_string_lossy()
            .into_owned();
        let mut vars: Vec<(String, String)> = [
            ("HOME", path_of("home")),
            ("TMPDIR", path_of("tmp")),
            ("CLAUDE_CODE_TMPDIR", path_of("tmp")),
            ("XDG_RUNTIME_DIR", path_of("xdg")),
            ("ANTHROPIC_BASE_URL", self.base_url.clone()),
            ("ANTHROPIC_API_KEY", "dummy".to_string()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_string()),
            ("DISABLE_TELEMETRY", "1".to_string()),
            ("DISABLE_AUTOUPDATER", "1".to_string()),
            ("DISABLE_ERROR_REPORTING", "1".to_string()),
            ("NO_PROXY", "127.0.0.1,localhost".to_string()),
            ("LANG", "C.UTF-8".to_string()),
            ("PATH", path),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_string(), value))
        .collect();
        for (key, value) in &self.extra_env {
            vars.retain(|(existing, _)| existing != key);
            vars.push((key.clone(), value.clone()));
        }
        vars
    }

    /// A command for `program` with this environment only, cwd = [`Self::work_dir`], inside the mock's
    /// network namespace, stdio piped, killed when dropped.
    pub fn command(&self, program: impl AsRef<OsStr>) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(program);
        command
            .env_clear()
            .envs(self.vars())
            .current_dir(self.work_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(net) = &self.net {
            net.apply(&mut command);
        }
        command
    }

    /// The pinned claude in stream-json mode with `permission_args` (how it asks for permission, if
    /// at all) and nothing else yet.
    pub fn claude_stream_json_asking_with<I, S>(
        &self,
        permission_args: I,
    ) -> tokio::process::Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = self.command(claude_binary());
        command
            .args(claude_acp::claude::STREAM_JSON_ARGS)
            .args(permission_args);
        command
    }

    /// The pinned claude in stream-json mode: `--input-format stream-json --output-format stream-json
    /// --verbose --permission-prompt-tool stdio`, followed by `extra_args`.
    pub fn claude_stream_json<I, S>(&self, extra_args: I) -> tokio::process::Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command =
            self.claude_stream_json_asking_with(["--permission-prompt-tool", "stdio"]);
        command.args(extra_args);
        command
    }
}
