//! The real Claude Code CLI for integration tests: installs the pinned version (and the others CI
//! runs) on demand, and builds a clean, offline environment per test (fresh HOME and temp dirs, the
//! mock API as the only endpoint, nothing of the user's environment, inside the mock's private
//! network namespace when there is one).

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::sync::{Mutex, OnceLock};

use claude_acp::claude::install::CI_CLAUDE_VERSIONS;

use tempfile::TempDir;

use super::mock_api::MockApi;
use super::netns::IsolatedNet;

/// The Claude Code version the whole suite runs against: the newest of the tested range, which CI runs
/// (`claude_acp::claude::install::CI_CLAUDE_VERSIONS`; bumping it is one line there).
pub const CLAUDE_CODE_VERSION: &str = CI_CLAUDE_VERSIONS[CI_CLAUDE_VERSIONS.len() - 1];

/// The oldest claude CI runs the main scenarios against (older ones are "too old" for `doctor`).
pub const OLDEST_VERSION: &str = CI_CLAUDE_VERSIONS[0];

/// A claude between the oldest and the pinned one, also run by CI.
pub const MIDDLE_VERSION: &str = CI_CLAUDE_VERSIONS[1];

/// The claude pinned before this one, also run by CI: the release most users had until days ago.
pub const PREVIOUS_VERSION: &str = CI_CLAUDE_VERSIONS[2];

/// Overrides the pinned version for one run: a version number, or `latest` (the newest claude
/// published, in either npm package: see [`npm_latest_version`]), to check a new release the day
/// it ships (`scripts/newest-claude` does).
pub const VERSION_OVERRIDE_VAR: &str = "CLAUDE_ACP_TEST_CLAUDE_VERSION";

/// npm's Claude Code package; its releases lag the agent SDK's by days.
const NPM_PACKAGE: &str = "@anthropic-ai/claude-code";

/// The agent SDK's package for this platform, whose `claude` binary is the newest release:
/// `0.3.N` carries claude `2.1.N`, published before `@anthropic-ai/claude-code@2.1.N` (if ever).
fn sdk_platform_package() -> String {
    let os = match std::env::consts::OS {
        "windows" => "win32",
        "macos" => "darwin",
        os => os,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        arch => arch,
    };
    format!("@anthropic-ai/claude-agent-sdk-{os}-{arch}")
}

/// The agent SDK's version carrying claude `version` (`2.1.337` is in `0.3.337`).
fn sdk_version_of(version: &str) -> Option<String> {
    let patch = version.strip_prefix("2.1.")?;
    patch.parse::<u32>().ok().map(|n| format!("0.3.{n}"))
}

pub fn pinned_version() -> &'static str {
    static PINNED: OnceLock<String> = OnceLock::new();
    PINNED
        .get_or_init(|| match std::env::var(VERSION_OVERRIDE_VAR) {
            Ok(wanted) if wanted == "latest" => npm_latest_version(),
            Ok(wanted) if !wanted.trim().is_empty() => wanted.trim().to_owned(),
            _ => CLAUDE_CODE_VERSION.to_owned(),
        })
        .as_str()
}

/// The versions the main scenarios run against: the oldest, the middle, the previous and the
/// pinned one.
pub fn scenario_versions() -> [&'static str; 4] {
    [
        OLDEST_VERSION,
        MIDDLE_VERSION,
        PREVIOUS_VERSION,
        pinned_version(),
    ]
}

/// Path of the pinned `claude` binary (see [`pinned_version`]), or `CLAUDE_ACP_TEST_CLAUDE` (an
/// absolute path to the same version built for another platform: `.ci/aarch64` gives the
/// linux-arm64 build, run under qemu-user).
pub fn claude_binary() -> PathBuf {
    match std::env::var_os("CLAUDE_ACP_TEST_CLAUDE") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => claude_binary_of(pinned_version()),
    }
}

/// Whether this run's claude is claude for Windows: `CLAUDE_ACP_TEST_CLAUDE` naming a `claude.exe`
/// (`.ci/windows` runs it under Wine). Only it has claude's PowerShell tool; the pinned claude for
/// Linux and macOS has Bash.
pub fn claude_for_windows() -> bool {
    std::env::var_os("CLAUDE_ACP_TEST_CLAUDE")
        .map(PathBuf::from)
        .and_then(|path| path.extension().map(|e| e.eq_ignore_ascii_case("exe")))
        .unwrap_or(false)
}

/// Path of claude `version`, installed into `<target dir>/claude-code/<version>/` on first use.
///
/// Several test processes may call this at once: the install runs under an exclusive `flock`.
/// Panics, saying why, if it cannot be installed or does not report `version`.
pub fn claude_binary_of(version: &str) -> PathBuf {
    static BINARIES: Mutex<BTreeMap<String, PathBuf>> = Mutex::new(BTreeMap::new());
    let mut binaries = BINARIES.lock().unwrap_or_else(|e| e.into_inner());
    binaries
        .entry(version.to_owned())
        .or_insert_with(|| install_claude(version))
        .clone()
}

fn install_root() -> PathBuf {
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

/// The newest claude published today: npm's `latest` of Claude Code, or the agent SDK's
/// platform package's when it carries a newer claude.
fn npm_latest_version() -> String {
    let code = npm_view(&format!("{NPM_PACKAGE}@latest"));
    let sdk = npm_view(&format!("{}@latest", sdk_platform_package()));
    let sdk_claude = sdk
        .strip_prefix("0.3.")
        .map(|patch| format!("2.1.{patch}"))
        .unwrap_or_default();
    let key = |v: &str| -> Vec<u64> { v.split('.').map(|p| p.parse().unwrap_or(0)).collect() };
    let version = if key(&sdk_claude) > key(&code) {
        sdk_claude
    } else {
        code
    };
    eprintln!("{VERSION_OVERRIDE_VAR}=latest: running against claude {version}");
    version
}

/// `npm view SPEC version`: the version `spec` resolves to on the registry.
fn npm_view(spec: &str) -> String {
    let output = StdCommand::new("npm")
        .args(["view", spec, "version"])
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run npm to resolve {spec}: {e}"));
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !output.status.success() || version.is_empty() {
        panic!(
            "`npm view {spec} version` failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    version
}

fn install_claude(version: &str) -> PathBuf {
    let dir = install_root().join(version);
    let from_code = dir.join("node_modules/.bin/claude");
    let from_sdk = dir
        .join("node_modules")
        .join(sdk_platform_package())
        .join(if cfg!(windows) {
            "claude.exe"
        } else {
            "claude"
        });
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let lock_path = dir.join(".install.lock");
    let lock = File::create(&lock_path)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", lock_path.display()));
    if let Err(e) = lock_exclusive(&lock) {
        panic!("cannot lock {}: {e}", lock_path.display());
    }
    for binary in [&from_code, &from_sdk] {
        if installed_version(binary).as_deref() == Ok(version) {
            return binary.clone();
        }
    }
    // npm 11 skips the package's postinstall (which places the native binary) unless allowed here.
    fs::write(dir.join(".npmrc"), format!("allow-scripts={NPM_PACKAGE}\n"))
        .unwrap_or_else(|e| panic!("cannot write {}/.npmrc: {e}", dir.display()));
    let spec = format!("{NPM_PACKAGE}@{version}");
    let (spec, binary) = match npm_install(&dir, &spec) {
        Ok(()) => (spec, from_code),
        // Not (yet) published as Claude Code: the agent SDK's platform package carries it.
        Err(why) if why.contains("ETARGET") || why.contains("E404") => {
            let Some(sdk_version) = sdk_version_of(version) else {
                panic!("{spec} is not on npm, and no agent SDK release carries it:\n{why}");
            };
            let sdk_spec = format!("{}@{sdk_version}", sdk_platform_package());
            if let Err(sdk_why) = npm_install(&dir, &sdk_spec) {
                panic!("neither {spec} nor {sdk_spec} installs:\n{why}\n{sdk_why}");
            }
            (sdk_spec, from_sdk)
        }
        Err(why) => panic!("{why}"),
    };
    match installed_version(&binary) {
        Ok(reported) if reported == version => binary,
        Ok(reported) => panic!(
            "{} reports version {reported:?} after installing {spec}",
            binary.display()
        ),
        Err(why) => panic!(
            "{spec} was installed but {} does not run: {why}",
            binary.display()
        ),
    }
}

/// `npm install --prefix DIR SPEC`, or what npm said when it failed.
fn npm_install(dir: &Path, spec: &str) -> Result<(), String> {
    eprintln!("installing {spec} into {} ...", dir.display());
    let output = StdCommand::new("npm")
        .arg("install")
        .arg("--prefix")
        .arg(dir)
        .arg("--no-audit")
        .arg("--no-fund")
        .arg(spec)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run npm to install {spec} (is Node.js/npm installed?): {e}")
        });
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "`npm install --prefix {} {spec}` failed ({}):\n{}\n{}",
        dir.display(),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
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
    claude: PathBuf,
    base_url: String,
    net: Option<IsolatedNet>,
    extra_env: Vec<(String, String)>,
    removed_env: Vec<String>,
}

impl ClaudeEnv {
    /// A new environment whose API is `mock`, for the pinned claude (installed if missing).
    pub fn new(mock: &MockApi) -> ClaudeEnv {
        Self::for_version(mock, pinned_version())
    }

    /// A new environment whose API is `mock`, for claude `version` (installed if missing).
    pub fn for_version(mock: &MockApi, version: &str) -> ClaudeEnv {
        let claude = match version == pinned_version() {
            true => claude_binary(),
            false => claude_binary_of(version),
        };
        let root = TempDir::with_prefix("claude-acp-test-").expect("temp dir for ClaudeEnv");
        for sub in ["home", "tmp", "xdg", "work"] {
            fs::create_dir(root.path().join(sub)).expect("ClaudeEnv sub directory");
        }
        make_private_dir(&root.path().join("xdg")).expect("chmod xdg dir");
        ClaudeEnv {
            root,
            claude,
            base_url: mock.base_url().to_string(),
            net: mock.net().cloned(),
            extra_env: Vec::new(),
            removed_env: Vec::new(),
        }
    }

    /// Leaves a variable of the default environment out (e.g. `ANTHROPIC_API_KEY`, to sign in
    /// another way).
    pub fn without_env(mut self, key: impl Into<String>) -> ClaudeEnv {
        self.removed_env.push(key.into());
        self
    }

    /// Adds (or overrides) an environment variable, e.g. `ENABLE_TOOL_SEARCH=false`.
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> ClaudeEnv {
        self.extra_env.push((key.into(), value.into()));
        self
    }

    /// The claude this environment runs (first on its `PATH`).
    pub fn claude_binary(&self) -> &Path {
        &self.claude
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
        let claude_dir = self
            .claude
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
        // Where foreign-architecture programs find their libraries under qemu-user (`.ci/aarch64`).
        if let Ok(prefix) = std::env::var("QEMU_LD_PREFIX") {
            vars.push(("QEMU_LD_PREFIX".into(), prefix));
        }
        for (key, value) in &self.extra_env {
            vars.retain(|(existing, _)| existing != key);
            vars.push((key.clone(), value.clone()));
        }
        vars.retain(|(key, _)| !self.removed_env.contains(key));
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

    /// This environment's claude in stream-json mode with `permission_args` (how it asks for permission, if
    /// at all) and nothing else yet.
    pub fn claude_stream_json_asking_with<I, S>(
        &self,
        permission_args: I,
    ) -> tokio::process::Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = self.command(&self.claude);
        command
            .args(claude_acp::claude::STREAM_JSON_ARGS)
            .args(permission_args);
        command
    }

    /// This environment's claude in stream-json mode: `--input-format stream-json --output-format stream-json
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

// What differs per system here (the benchmark compiles this file for every target; the tests that
// use it run on Unix).

/// Locks `file` exclusively until it is closed.
#[cfg(unix)]
fn lock_exclusive(file: &File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a file we own; released when it is closed.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Locks `file` exclusively until it is closed.
#[cfg(not(unix))]
#[allow(clippy::incompatible_msrv)] // only compiled for other systems by the 1.96 cross-check
fn lock_exclusive(file: &File) -> std::io::Result<()> {
    file.lock()
}

/// Makes `dir` private to its user (XDG_RUNTIME_DIR must be), where that is a mode (Unix); a
/// temp directory on Windows already is.
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}
