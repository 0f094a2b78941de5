//! Finding the `claude` executable: `--claude-path`, `$CLAUDE_CODE_EXECUTABLE`, `PATH`, the places
//! claude's installers and npm put it on each system, then where a login shell would find it.
//!
//! The search is one pure function of the environment ([`LocateEnv`]) and of a [`Probe`] that
//! answers questions about files and runs helper commands, so the macOS and Windows rules are
//! unit-tested on Linux with a fake file system.
//!
//! Windows: npm installs `claude.cmd`, a batch script that `CreateProcess` cannot start (Node tools
//! fail with `spawn EINVAL`). We read the script, npm's cmd-shim, for the program it starts (for
//! claude 2.x, `node_modules\@anthropic-ai\claude-code\bin\claude.exe`) and start that instead.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::platform::os::Os;

#[cfg(all(test, unix))]
mod tests;
#[cfg(test)]
mod tests_per_os;

/// How to start claude: a program plus arguments that go before claude's own (so a stand-in can be
/// `claude-acp standin --script X`, and an npm install of a JavaScript claude is `node cli.js`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClaudeCommand {
    pub(crate) program: PathBuf,
    pub(crate) prefix_args: Vec<String>,
}

impl ClaudeCommand {
    pub(crate) fn new(program: impl Into<PathBuf>) -> Self {
        ClaudeCommand {
            program: program.into(),
            prefix_args: Vec::new(),
        }
    }
}

/// claude was not found; lists every place looked at.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) struct LocateError {
    /// One line per place: what was looked at and why it did not do.
    pub(crate) looked: Vec<String>,
}

impl fmt::Display for LocateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "could not find the `claude` CLI (Claude Code). Looked at:"
        )?;
        for place in &self.looked {
            writeln!(f, "  - {place}")?;
        }
        write!(
            f,
            "Install it with `npm install -g @anthropic-ai/claude-code` or the native installer \
             (`curl -fsSL https://claude.ai/install.sh | bash`; on Windows \
             `irm https://claude.ai/install.ps1 | iex`), or pass --claude-path /path/to/claude."
        )
    }
}

/// How long a login shell gets to say where claude is (start-up files can be slow, or hang).
const LOGIN_SHELL_LIMIT: Duration = Duration::from_secs(3);

/// What the lookup depends on, injectable so tests need not touch the real environment.
#[derive(Debug, Clone)]
pub(crate) struct LocateEnv {
    pub(crate) os: Os,
    pub(crate) claude_code_executable: Option<OsString>,
    pub(crate) path: Option<OsString>,
    /// `$HOME`; on Windows `%USERPROFILE%`.
    pub(crate) home: Option<PathBuf>,
    /// Windows' `%APPDATA%` (npm's default global prefix is `%APPDATA%\npm`).
    pub(crate) app_data: Option<PathBuf>,
    /// npm's global prefix when set in the environment (`NPM_CONFIG_PREFIX`).
    pub(crate) npm_prefix: Option<PathBuf>,
    /// The user's login shell (`$SHELL`), asked when claude is nowhere else (Unix).
    pub(crate) shell: Option<PathBuf>,
    /// This executable: named as claude, it is started as the stand-in (`claude-acp standin`),
    /// which the demo and the tests use on every platform without a wrapper script.
    pub(crate) own_exe: Option<PathBuf>,
}

impl Default for LocateEnv {
    fn default() -> Self {
        LocateEnv {
            os: Os::CURRENT,
            claude_code_executable: None,
            path: None,
            home: None,
            app_data: None,
            npm_prefix: None,
            shell: None,
            own_exe: None,
        }
    }
}

impl LocateEnv {
    /// This process's environment.
    pub(crate) fn from_process() -> Self {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let os = Os::CURRENT;
        LocateEnv {
            os,
            claude_code_executable: var("CLAUDE_CODE_EXECUTABLE"),
            path: var("PATH"),
            home: var(if os == Os::Windows {
                "USERPROFILE"
            } else {
                "HOME"
            })
            .map(PathBuf::from),
            app_data: var("APPDATA").map(PathBuf::from),
            npm_prefix: var("NPM_CONFIG_PREFIX")
                .or_else(|| var("npm_config_prefix"))
                .map(PathBuf::from),
            shell: var("SHELL").map(PathBuf::from),
            own_exe: std::env::current_exe().ok(),
        }
    }
}

/// What a path is, as far as starting it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    Missing,
    NotAFile,
    /// A file that cannot be started as it is (no executable bit; on Windows not a `.exe`).
    NotProgram,
    Program,
}

/// The file system and helper commands, as the search sees them.
pub(crate) trait Probe {
    fn kind(&self, path: &Path) -> FileKind;
    fn read_text(&self, path: &Path) -> Option<String>;
    /// A helper command's standard output, if it succeeded within a few seconds.
    fn output(&self, program: &Path, args: &[&str]) -> Option<String>;
    /// Whether the two paths name one file (through links and `.`/`..`).
    fn same_file(&self, a: &Path, b: &Path) -> bool {
        a == b
    }
}

/// The real file system and processes.
pub(crate) struct SystemProbe;

impl Probe for SystemProbe {
    fn kind(&self, path: &Path) -> FileKind {
        // metadata() follows symlinks: npm's bin entries are symlinks.
        match path.metadata() {
            Err(_) => FileKind::Missing,
            Ok(m) if !m.is_file() => FileKind::NotAFile,
            Ok(m) if crate::platform::files::is_program(path, &m) => FileKind::Program,
            Ok(_) => FileKind::NotProgram,
        }
    }

    fn read_text(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }

    fn output(&self, program: &Path, args: &[&str]) -> Option<String> {
        crate::platform::run::output_within(program, args, LOGIN_SHELL_LIMIT)
    }

    fn same_file(&self, a: &Path, b: &Path) -> bool {
        match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }
}

/// Finds claude using this process's environment.
pub(crate) fn locate(explicit: Option<&Path>) -> Result<ClaudeCommand, LocateError> {
    locate_in(explicit, &LocateEnv::from_process())
}

/// Finds claude in `env` on the real file system.
pub(crate) fn locate_in(
    explicit: Option<&Path>,
    env: &LocateEnv,
) -> Result<ClaudeCommand, LocateError> {
    Search {
        env,
        probe: &SystemProbe,
    }
    .locate(explicit)
}

/// Finds claude in `env` as `probe` sees the files. An explicit path or `$CLAUDE_CODE_EXECUTABLE`
/// that does not work is an error, not a reason to fall back: the user asked for that one, and
/// silently running another claude would hide the mistake. A bare name there (`claude-beta`) is
/// looked up on `PATH`.
#[cfg(test)]
pub(crate) fn locate_with(
    explicit: Option<&Path>,
    env: &LocateEnv,
    probe: &dyn Probe,
) -> Result<ClaudeCommand, LocateError> {
    Search { env, probe }.locate(explicit)
}

struct Search<'a> {
    env: &'a LocateEnv,
    probe: &'a dyn Probe,
}

impl Search<'_> {
    fn locate(&self, explicit: Option<&Path>) -> Result<ClaudeCommand, LocateError> {
        if let Some(path) = explicit {
            return self.resolve_named(path, "--claude-path");
        }
        if let Some(exe) = &self.env.claude_code_executable {
            return self.resolve_named(Path::new(exe), "$CLAUDE_CODE_EXECUTABLE");
        }
        let mut looked = vec![
            "--claude-path: not given".to_owned(),
            "$CLAUDE_CODE_EXECUTABLE: not set".to_owned(),
        ];
        match self.search_path("claude") {
            Ok(found) => return Ok(found),
            Err(place) => looked.push(place),
        }
        for place in self.install_places(&mut looked) {
            match self.try_candidate(&place) {
                Ok(found) => return Ok(found),
                Err(why) => looked.push(format!("{}: {why}", place.display())),
            }
        }
        match self.ask_the_system() {
            Ok(found) => return Ok(found),
            Err(place) => looked.push(place),
        }
        Err(LocateError { looked })
    }

    /// The places installers put claude on this system, in the order they are tried. What could
    /// not be tried (no home directory) is noted in `looked`.
    fn install_places(&self, looked: &mut Vec<String>) -> Vec<PathBuf> {
        let os = self.env.os;
        let mut places = Vec::new();
        match (&self.env.home, os) {
            (Some(home), Os::Windows) => places.push(join(os, home, ".local/bin/claude.exe")),
            (Some(home), _) => {
                places.push(join(os, home, ".local/bin/claude"));
                places.push(join(os, home, ".claude/local/claude"));
            }
            (None, Os::Windows) => looked
                .push(r"%USERPROFILE%\.local\bin\claude.exe: %USERPROFILE% is not set".to_owned()),
            (None, _) => looked.push(
                "~/.local/bin/claude and ~/.claude/local/claude: $HOME is not set".to_owned(),
            ),
        }
        if os == Os::MacOs {
            // Homebrew on Apple silicon, then on Intel (also where nodejs.org's npm puts globals).
            places.push(PathBuf::from("/opt/homebrew/bin/claude"));
            places.push(PathBuf::from("/usr/local/bin/claude"));
        }
        let mut prefixes: Vec<PathBuf> = self.env.npm_prefix.iter().cloned().collect();
        prefixes.extend(self.npmrc_prefix());
        if os == Os::Windows {
            match &self.env.app_data {
                Some(app_data) => prefixes.push(join(os, app_data, "npm")),
                None => looked.push(r"%APPDATA%\npm\claude.cmd: %APPDATA% is not set".to_owned()),
            }
        }
        for prefix in prefixes {
            let place = match os {
                Os::Windows => join(os, &prefix, "claude.cmd"),
                _ => join(os, &prefix, "bin/claude"),
            };
            if !places.contains(&place) {
                places.push(place);
            }
        }
        places
    }

    /// npm's global prefix from the user's `~/.npmrc` (`prefix=...`), where `npm config set
    /// prefix` writes it.
    fn npmrc_prefix(&self) -> Option<PathBuf> {
        let home = self.env.home.as_ref()?;
        let text = self.probe.read_text(&join(self.env.os, home, ".npmrc"))?;
        text.lines().find_map(|line| {
            let (key, value) = line.split_once('=')?;
            let value = value.trim();
            let value = value.strip_prefix("~/").map_or_else(
                || PathBuf::from(value),
                |rest| join(self.env.os, home, rest),
            );
            (key.trim() == "prefix" && !value.as_os_str().is_empty()).then_some(value)
        })
    }

    /// Where the system would find claude when it is not on our `PATH`: a login shell (editors
    /// started from the Dock or a desktop menu get a minimal `PATH`; the user's shell set-up has
    /// the real one), or `where claude` on Windows.
    fn ask_the_system(&self) -> Result<ClaudeCommand, String> {
        let (program, args, what) = match self.env.os {
            Os::Windows => (
                PathBuf::from("where"),
                vec!["claude"],
                "`where claude`".to_owned(),
            ),
            os => {
                let shell = self.env.shell.clone().unwrap_or_else(|| {
                    PathBuf::from(if os == Os::MacOs {
                        "/bin/zsh"
                    } else {
                        "/bin/sh"
                    })
                });
                let what = format!("`{} -lc 'command -v claude'`", shell.display());
                (shell, vec!["-lc", "command -v claude"], what)
            }
        };
        let Some(output) = self.probe.output(&program, &args) else {
            return Err(format!(
                "{what}: no answer within {} s",
                LOGIN_SHELL_LIMIT.as_secs()
            ));
        };
        // Start-up files may print their own lines; the answers are absolute paths.
        let answers: Vec<&str> = output
            .lines()
            .map(str::trim)
            .filter(|line| is_absolute(self.env.os, line))
            .collect();
        let mut reasons = Vec::new();
        for answer in &answers {
            match self.try_candidate(Path::new(answer)) {
                Ok(found) => return Ok(found),
                Err(why) => reasons.push(format!("{answer}: {why}")),
            }
        }
        Err(if reasons.is_empty() {
            format!("{what}: not found")
        } else {
            format!("{what}: {}", reasons.join("; "))
        })
    }

    /// An explicitly named program: a path, or a bare name to find on `PATH`.
    fn resolve_named(&self, name: &Path, source: &str) -> Result<ClaudeCommand, LocateError> {
        let text = name.to_string_lossy();
        let separators: &[char] = match self.env.os {
            Os::Windows => &['/', '\\'],
            Os::Linux | Os::MacOs => &['/'],
        };
        let is_bare_name = !text.contains(separators);
        if is_bare_name {
            return self.search_path(&text).map_err(|place| LocateError {
                looked: vec![format!("{source} {}: {place}", name.display())],
            });
        }
        // Absolute, because claude is started in the session's cwd, not the adapter's.
        let name = if is_absolute(self.env.os, &text) {
            name.to_path_buf()
        } else {
            std::path::absolute(name).unwrap_or_else(|_| name.to_path_buf())
        };
        let found = self.try_candidate(&name).map_err(|why| LocateError {
            looked: vec![format!("{source} {}: {why}", name.display())],
        })?;
        Ok(self.as_standin_if_own(found))
    }

    /// claude named as this very executable is the stand-in (`claude-acp standin` plays the
    /// script that `CLAUDE_STANDIN_SCRIPT` names): starting the adapter again as its own claude
    /// would recurse, and this way the stand-in starts alike on every platform, with no shell.
    fn as_standin_if_own(&self, found: ClaudeCommand) -> ClaudeCommand {
        let is_own = found.prefix_args.is_empty()
            && self
                .env
                .own_exe
                .as_ref()
                .is_some_and(|own| self.probe.same_file(&found.program, own));
        if is_own {
            ClaudeCommand {
                prefix_args: vec![super::STANDIN_SUBCOMMAND.to_owned()],
                ..found
            }
        } else {
            found
        }
    }

    /// The first `name` in the `PATH` directories (on Windows also `name.exe`, or a `.cmd` shim
    /// resolved to its program), or a line saying where it looked.
    fn search_path(&self, name: &str) -> Result<ClaudeCommand, String> {
        let os = self.env.os;
        let Some(path) = self.env.path.as_ref().filter(|p| !p.is_empty()) else {
            return Err(format!("`{name}` on PATH: PATH is not set"));
        };
        let path = path.to_string_lossy();
        let dirs: Vec<&str> = path
            .split(os.path_list_separator())
            .map(|d| d.trim_matches('"'))
            .filter(|d| !d.is_empty())
            .collect();
        let names: Vec<String> = if os == Os::Windows && !name.contains('.') {
            ["exe", "com", "cmd", "bat"]
                .iter()
                .map(|ext| format!("{name}.{ext}"))
                .collect()
        } else {
            vec![name.to_owned()]
        };
        for dir in &dirs {
            for name in &names {
                let candidate = join(os, Path::new(dir), name);
                if self.probe.kind(&candidate) == FileKind::Missing {
                    continue;
                }
                if let Ok(found) = self.try_candidate(&candidate) {
                    return Ok(found);
                }
            }
        }
        Err(format!(
            "`{name}` on PATH ({}): not found",
            dirs.join(&os.path_list_separator().to_string())
        ))
    }

    /// `path` as a way to start claude, or why it is not one.
    fn try_candidate(&self, path: &Path) -> Result<ClaudeCommand, String> {
        if self.env.os == Os::Windows && has_extension(path, &["cmd", "bat"]) {
            return self.resolve_shim(path);
        }
        match self.probe.kind(path) {
            FileKind::Program => Ok(ClaudeCommand::new(path)),
            FileKind::Missing => Err("not found".to_owned()),
            FileKind::NotAFile => Err("not a file".to_owned()),
            FileKind::NotProgram => Err("not executable".to_owned()),
        }
    }

    /// The program an npm `.cmd` shim starts. npm's cmd-shim names its target relative to the
    /// script's own folder (`"%dp0%\node_modules\...\claude.exe" %*`; for a JavaScript package,
    /// `"%_prog%" "%dp0%\node_modules\...\cli.js" %*`, run by node).
    fn resolve_shim(&self, shim: &Path) -> Result<ClaudeCommand, String> {
        let os = self.env.os;
        match self.probe.kind(shim) {
            FileKind::Missing => return Err("not found".to_owned()),
            FileKind::NotAFile => return Err("not a file".to_owned()),
            _ => {}
        }
        let text = shim.to_string_lossy();
        let dir = Path::new(text.rsplit_once(['\\', '/']).map_or("", |(dir, _)| dir));
        let mut targets: Vec<String> = self
            .probe
            .read_text(shim)
            .and_then(|script| shim_target(&script))
            .into_iter()
            .collect();
        // The npm package's `bin` (2.x: bin/claude.exe), for a script we cannot read.
        let package_bin = r"node_modules\@anthropic-ai\claude-code\bin\claude.exe".to_owned();
        if !targets.contains(&package_bin) {
            targets.push(package_bin);
        }
        for target in &targets {
            let program = join(os, dir, target);
            if self.probe.kind(&program) == FileKind::Program {
                return Ok(ClaudeCommand::new(program));
            }
            let is_script = has_extension(&program, &["js", "cjs", "mjs"]);
            if is_script && self.probe.kind(&program) == FileKind::NotProgram {
                let bundled_node = join(os, dir, "node.exe");
                let node = if self.probe.kind(&bundled_node) == FileKind::Program {
                    bundled_node
                } else {
                    self.search_path("node")
                        .map_err(|place| {
                            format!("a .cmd script running {target} with node; {place}")
                        })?
                        .program
                };
                return Ok(ClaudeCommand {
                    program: node,
                    prefix_args: vec![program.to_string_lossy().into_owned()],
                });
            }
        }
        Err(format!(
            "a .cmd script, which cannot be started directly, and the program it runs ({}) was \
             not found",
            targets.join(", ")
        ))
    }
}

/// The target of an npm cmd-shim: the last `%dp0%\...` (or `%~dp0\...`) path in the script, the
/// program it runs (earlier ones are `node.exe` checks).
pub(crate) fn shim_target(script: &str) -> Option<String> {
    let mut last: Option<(usize, String)> = None;
    for marker in ["%dp0%\\", "%~dp0\\"] {
        for (at, _) in script.match_indices(marker) {
            let rest = &script[at + marker.len()..];
            let end = rest.find(['"', '\r', '\n']).unwrap_or(rest.len());
            let path = rest[..end].trim();
            if !path.is_empty() && last.as_ref().is_none_or(|(seen, _)| at > *seen) {
                last = Some((at, path.to_owned()));
            }
        }
    }
    last.map(|(_, path)| path)
}

/// `base` joined with `relative` (written with `/`), using `os`'s separator.
fn join(os: Os, base: &Path, relative: &str) -> PathBuf {
    if os == Os::CURRENT && os != Os::Windows {
        return base.join(relative);
    }
    let separator = os.dir_separator();
    let base = base.to_string_lossy();
    let base = base.trim_end_matches(['/', '\\']);
    let relative = relative.replace(['/', '\\'], &separator.to_string());
    PathBuf::from(format!("{base}{separator}{relative}"))
}

fn is_absolute(os: Os, path: &str) -> bool {
    match os {
        Os::Windows => {
            let bytes = path.as_bytes();
            path.starts_with("\\\\")
                || (bytes.len() >= 3
                    && bytes[0].is_ascii_alphabetic()
                    && bytes[1] == b':'
                    && matches!(bytes[2], b'\\' | b'/'))
        }
        Os::Linux | Os::MacOs => path.starts_with('/'),
    }
}

fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    let text = path.to_string_lossy();
    let name = text.rsplit(['/', '\\']).next().unwrap_or(&text);
    name.rsplit_once('.')
        .is_some_and(|(_, ext)| extensions.iter().any(|e| ext.eq_ignore_ascii_case(e)))
}
