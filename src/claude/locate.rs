//! Finding the `claude` executable: `--claude-path`, `$CLAUDE_CODE_EXECUTABLE`, `$PATH`, then the
//! places claude's own installers put it.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

/// How to start claude: a program plus arguments that go before claude's own (so a stand-in can be
/// `claude-acp standin --script X`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudeCommand {
    pub program: PathBuf,
    pub prefix_args: Vec<String>,
}

impl ClaudeCommand {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        ClaudeCommand {
            program: program.into(),
            prefix_args: Vec::new(),
        }
    }
}

/// claude was not found; lists every place looked at.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct LocateError {
    /// One line per place: what was looked at and why it did not do.
    pub looked: Vec<String>,
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
             (`curl -fsSL https://claude.ai/install.sh | bash`), or pass --claude-path /path/to/claude."
        )
    }
}

/// What the lookup depends on, injectable so tests need not touch the real environment.
#[derive(Debug, Clone, Default)]
pub struct LocateEnv {
    pub claude_code_executable: Option<OsString>,
    pub path: Option<OsString>,
    pub home: Option<PathBuf>,
}

impl LocateEnv {
    /// This process's environment.
    pub fn from_process() -> Self {
        LocateEnv {
            claude_code_executable: std::env::var_os("CLAUDE_CODE_EXECUTABLE")
                .filter(|v| !v.is_empty()),
            path: std::env::var_os("PATH"),
            home: std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
        }
    }
}

/// Finds claude using this process's environment.
pub fn locate(explicit: Option<&Path>) -> Result<ClaudeCommand, LocateError> {
    locate_in(explicit, &LocateEnv::from_process())
}

/// Finds claude. An explicit path or `$CLAUDE_CODE_EXECUTABLE` that does not work is an error, not a
/// reason to fall back: the user asked for that one, and silently running another claude would hide
/// the mistake. A bare name there (`claude-beta`) is looked up on `$PATH`.
pub fn locate_in(explicit: Option<&Path>, env: &LocateEnv) -> Result<ClaudeCommand, LocateError> {
    if let Some(path) = explicit {
        return resolve_named(path, "--claude-path", env);
    }
    if let Some(exe) = &env.claude_code_executable {
        return resolve_named(Path::new(exe), "$CLAUDE_CODE_EXECUTABLE", env);
    }
    let mut looked = vec![
        "--claude-path: not given".to_owned(),
        "$CLAUDE_CODE_EXECUTABLE: not set".to_owned(),
    ];
    match search_path("claude", env.path.as_deref()) {
        Ok(found) => return Ok(ClaudeCommand::new(found)),
        Err(place) => looked.push(place),
    }
    match &env.home {
        Some(home) => {
            for candidate in [
                home.join(".local/bin/claude"),
                home.join(".claude/local/claude"),
            ] {
                if is_executable(&candidate) {
                    return Ok(ClaudeCommand::new(candidate));
                }
                looked.push(format!("{}: {}", candidate.display(), why_not(&candidate)));
            }
        }
        None => looked
            .push("~/.local/bin/claude and ~/.claude/local/claude: $HOME is not set".to_owned()),
    }
    Err(LocateError { looked })
}

/// An explicitly named program: a path, or a bare name to find on `$PATH`.
fn resolve_named(name: &Path, source: &str, env: &LocateEnv) -> Result<ClaudeCommand, LocateError> {
    let is_bare_name = name.components().count() == 1 && !name.to_string_lossy().contains('/');
    if is_bare_name {
        return search_path(&name.to_string_lossy(), env.path.as_deref())
            .map(ClaudeCommand::new)
            .map_err(|place| LocateError {
                looked: vec![format!("{source} {}: {place}", name.display())],
            });
    }
    if is_executable(name) {
        // Absolute, because claude is started in the session's cwd, not the adapter's.
        let absolute = std::path::absolute(name).unwrap_or_else(|_| name.to_path_buf());
        return Ok(ClaudeCommand::new(absolute));
    }
    Err(LocateError {
        looked: vec![format!("{source} {}: {}", name.display(), why_not(name))],
    })
}

/// The first executable `name` in the `$PATH` directories, or a line saying where it looked.
fn search_path(name: &str, path: Option<&std::ffi::OsStr>) -> Result<PathBuf, String> {
    let Some(path) = path.filter(|p| !p.is_empty()) else {
        return Err(format!("`{name}` on $PATH: $PATH is not set"));
    };
    let dirs: Vec<PathBuf> = std::env::split_paths(path)
        .filter(|d| !d.as_os_str().is_empty())
        .collect();
    for dir in &dirs {
        let candidate = dir.join(name);
        if is_executable(&candidate) {
            return Ok(candidate);
        }
    }
    let listed: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    Err(format!(
        "`{name}` on $PATH ({}): not found",
        listed.join(":")
    ))
}

fn is_executable(path: &Path) -> bool {
    // metadata() follows symlinks: npm's bin entries are symlinks to a .js file.
    path.metadata()
        .is_ok_and(|m| crate::platform::files::is_program(path, &m))
}

fn why_not(path: &Path) -> &'static str {
    match path.metadata() {
        Err(_) => "not found",
        Ok(m) if !m.is_file() => "not a file",
        Ok(_) => "not executable",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn make_executable(path: &Path) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "#!/bin/sh\n").unwrap();
        crate::platform::files::make_executable(path).unwrap();
    }

    fn env(dir: &Path) -> LocateEnv {
        LocateEnv {
            claude_code_executable: None,
            path: Some(std::env::join_paths([dir.join("bin1"), dir.join("bin2")]).unwrap()),
            home: Some(dir.join("home")),
        }
    }

    #[test]
    fn explicit_path_wins_over_everything_else() {
        let dir = tempfile::tempdir().unwrap();
        let explicit = dir.path().join("custom/claude");
        make_executable(&explicit);
        make_executable(&dir.path().join("bin1/claude"));
        let mut e = env(dir.path());
        e.claude_code_executable = Some(dir.path().join("bin1/claude").into());
        assert_eq!(locate_in(Some(&explicit), &e).unwrap().program, explicit);
    }

    #[test]
    fn env_var_beats_path_and_a_bare_name_is_searched_on_path() {
        let dir = tempfile::tempdir().unwrap();
        make_executable(&dir.path().join("bin1/claude"));
        make_executable(&dir.path().join("bin2/claude-beta"));
        let mut e = env(dir.path());
        e.claude_code_executable = Some("claude-beta".into());
        assert_eq!(
            locate_in(None, &e).unwrap().program,
            dir.path().join("bin2/claude-beta")
        );
    }

    #[test]
    fn path_is_searched_in_order_then_home_installs() {
        let dir = tempfile::tempdir().unwrap();
        let e = env(dir.path());
        make_executable(&dir.path().join("home/.claude/local/claude"));
        assert_eq!(
            locate_in(None, &e).unwrap().program,
            dir.path().join("home/.claude/local/claude")
        );
        make_executable(&dir.path().join("home/.local/bin/claude"));
        assert_eq!(
            locate_in(None, &e).unwrap().program,
            dir.path().join("home/.local/bin/claude")
        );
        make_executable(&dir.path().join("bin2/claude"));
        assert_eq!(
            locate_in(None, &e).unwrap().program,
            dir.path().join("bin2/claude")
        );
        make_executable(&dir.path().join("bin1/claude"));
        assert_eq!(
            locate_in(None, &e).unwrap().program,
            dir.path().join("bin1/claude")
        );
    }

    #[test]
    fn a_relative_explicit_path_is_made_absolute() {
        let dir = tempfile::tempdir().unwrap();
        make_executable(&dir.path().join("bin1/claude"));
        let cwd = std::env::current_dir().unwrap();
        let relative = pathdiff(dir.path(), &cwd).join("bin1/claude");
        let found = locate_in(Some(&relative), &env(dir.path()))
            .unwrap()
            .program;
        assert!(found.is_absolute(), "{}", found.display());
        assert_eq!(
            found.canonicalize().unwrap(),
            dir.path().join("bin1/claude").canonicalize().unwrap()
        );
    }

    /// `target` relative to `base`, through `..` up to the root.
    fn pathdiff(target: &Path, base: &Path) -> PathBuf {
        let mut up = PathBuf::new();
        for _ in base.components().skip(1) {
            up.push("..");
        }
        up.join(target.strip_prefix("/").unwrap())
    }

    #[test]
    fn a_non_executable_file_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let e = env(dir.path());
        fs::create_dir_all(dir.path().join("bin1")).unwrap();
        fs::write(dir.path().join("bin1/claude"), "not a program").unwrap();
        make_executable(&dir.path().join("bin2/claude"));
        assert_eq!(
            locate_in(None, &e).unwrap().program,
            dir.path().join("bin2/claude")
        );
    }

    #[test]
    fn not_found_names_every_place_and_how_to_install() {
        let dir = tempfile::tempdir().unwrap();
        let err = locate_in(None, &env(dir.path())).unwrap_err();
        let text = err.to_string();
        assert_eq!(err.looked.len(), 5, "{text}");
        for place in [
            "--claude-path",
            "$CLAUDE_CODE_EXECUTABLE",
            "bin1",
            "bin2",
            ".local/bin/claude",
            ".claude/local/claude",
        ] {
            assert!(text.contains(place), "{place} missing from: {text}");
        }
        assert!(
            text.contains("npm install -g @anthropic-ai/claude-code"),
            "{text}"
        );
        assert!(text.contains("--claude-path /path/to/claude"), "{text}");
    }

    #[test]
    fn a_wrong_explicit_path_is_an_error_even_when_claude_is_on_path() {
        let dir = tempfile::tempdir().unwrap();
        make_executable(&dir.path().join("bin1/claude"));
        let missing = dir.path().join("nope/claude");
        let err = locate_in(Some(&missing), &env(dir.path())).unwrap_err();
        assert_eq!(
            err.looked,
            vec![format!("--claude-path {}: not found", missing.display())]
        );
        let mut e = env(dir.path());
        e.claude_code_executable = Some(dir.path().join("bin1").into());
        let err = locate_in(None, &e).unwrap_err();
        assert!(err.looked[0].ends_with(": not a file"), "{err}");
    }
}
