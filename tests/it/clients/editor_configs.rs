//! The configs in `editors/` as a user copies them: each file parsed or compiled by its own
//! language's tool, the Toad wrapper run with a stand-in `toad` (Toad itself needs Python 3.14),
//! and acpx itself (pinned, `tests/acpx-client/`) driving the built claude-acp with
//! `editors/acpx/config.json` exactly as shipped, against the stand-in for claude. Emacs and
//! Neovim run their configs for real in `real_editors/`.
//!
//! Needs `luac` and `lua` (Debian `lua5.4`), `emacs` (Debian `emacs-nox`), `sh`, `bash`, Node.js
//! and npm; `.ci/run` installs them. A missing tool fails the test and names the package: nothing
//! is skipped.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use serde_json::Value;
use tokio::process::Command;

pub(super) const ADAPTER: &str = env!("CARGO_BIN_EXE_claude-acp");
const TIMEOUT: Duration = Duration::from_secs(120);

pub(super) fn repo(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(repo(relative)).unwrap_or_else(|e| panic!("read {relative}: {e}"))
}

fn show(output: &Output) -> String {
    format!(
        "status: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Runs `command`; a missing program fails with `install` (what to install) in the message.
async fn run(command: &mut Command, what: &str, install: &str) -> Output {
    command.kill_on_drop(true);
    match tokio::time::timeout(TIMEOUT, command.output()).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            panic!("{what}: program not found. This test needs {install}.")
        }
        Ok(Err(e)) => panic!("{what}: cannot run: {e}"),
        Err(_) => panic!("{what}: still running after {TIMEOUT:?}"),
    }
}

/// The first of `names` that runs (`-v`), or a failure naming the Debian package to install.
async fn first_tool(names: &[&str], install: &str) -> String {
    for name in names {
        let mut probe = Command::new(name);
        probe
            .arg("-v")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        if probe.status().await.is_ok() {
            return (*name).to_owned();
        }
    }
    panic!("none of {names:?} is installed. This test needs {install}.")
}

/// `value` as one single-quoted shell word.
pub(super) fn sh_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

pub(super) fn write_executable(path: &Path, body: &str) {
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// JSON with `//` and `/* */` comments (Zed's settings format) as plain JSON. Trailing commas
/// stay an error, so the shipped file must not rely on them.
fn strip_json_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => while chars.next_if(|&n| n != '\n').is_some() {},
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for n in chars.by_ref() {
                    if last == '*' && n == '/' {
                        break;
                    }
                    last = n;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[test]
fn json_comment_stripping_keeps_slashes_inside_strings() {
    let parsed: Value = serde_json::from_str(&strip_json_comments(
        "// head\n{\"url\": \"https://x//y\", /* note */ \"a\": \"\\\"//\" // tail\n}",
    ))
    .unwrap();
    assert_eq!(parsed["url"], "https://x//y");
    assert_eq!(parsed["a"], "\"//");
}

/// The agent entry of an `agent_servers` map, checked the way Zed and JetBrains start it.
fn agent_server<'a>(settings: &'a Value, file: &str) -> &'a Value {
    let servers = settings["agent_servers"]
        .as_object()
        .unwrap_or_else(|| panic!("{file}: no agent_servers object"));
    assert!(
        !servers.contains_key("claude-acp"),
        "{file}: the key `claude-acp` is the ACP registry id of the TypeScript adapter"
    );
    let entry = &servers["Claude Code (claude-acp)"];
    assert!(
        entry["command"]
            .as_str()
            .is_some_and(|c| c.ends_with("claude-acp")),
        "{file}: command must start claude-acp: {entry}"
    );
    assert_eq!(entry["args"], serde_json::json!([]), "{file}: no arguments");
    assert_eq!(
        entry["env"]["CLAUDE_CODE_ENABLE_TODO_TOOLS"], "1",
        "{file}: plans need CLAUDE_CODE_ENABLE_TODO_TOOLS=1"
    );
    entry
}

#[test]
fn zed_settings_parse_as_json_with_comments_and_start_claude_acp() {
    let text = read("editors/zed/settings.json");
    let settings: Value = serde_json::from_str(&strip_json_comments(&text))
        .unwrap_or_else(|e| panic!("editors/zed/settings.json is not JSON with comments: {e}"));
    let entry = agent_server(&settings, "editors/zed/settings.json");
    assert_eq!(
        entry["type"], "custom",
        "Zed runs only `custom` entries as given"
    );
    assert_eq!(entry["command"], "claude-acp");
}

#[test]
fn jetbrains_acp_json_parses_and_starts_claude_acp() {
    let settings: Value = serde_json::from_str(&read("editors/jetbrains/acp.json"))
        .unwrap_or_else(|e| panic!("editors/jetbrains/acp.json is not plain JSON: {e}"));
    agent_server(&settings, "editors/jetbrains/acp.json");
}

#[tokio::test]
#[ignore = "needs lua5.4 (installed by .ci/test, which runs it)"]
async fn neovim_config_compiles() {
    let config = repo("editors/neovim/codecompanion.lua");
    let install = "Lua (Debian: apt-get install lua5.4)";
    let luac = first_tool(&["luac5.4", "luac", "luac5.3", "luac5.1"], install).await;
    let compiled = run(
        Command::new(&luac).arg("-p").arg(&config),
        "luac -p",
        install,
    )
    .await;
    assert!(
        compiled.status.success(),
        "luac -p failed\n{}",
        show(&compiled)
    );
}

#[tokio::test]
#[ignore = "needs emacs (installed by .ci/test, which runs it)"]
async fn emacs_config_byte_compiles_without_warnings() {
    let scratch = tempfile::tempdir().unwrap();
    let copy = scratch.path().join("claude-acp.el");
    std::fs::copy(repo("editors/emacs/claude-acp.el"), &copy).unwrap();
    let mut command = Command::new("emacs");
    command
        .args([
            "--batch",
            "-Q",
            "--eval",
            "(setq byte-compile-error-on-warn t)",
        ])
        .args(["-f", "batch-byte-compile"])
        .arg(&copy);
    let install = "Emacs (Debian: apt-get install emacs-nox)";
    let output = run(&mut command, "emacs batch-byte-compile", install).await;
    assert!(
        output.status.success() && scratch.path().join("claude-acp.elc").is_file(),
        "claude-acp.el does not byte-compile cleanly\n{}",
        show(&output)
    );
}

#[tokio::test]
async fn toad_wrapper_hands_toad_a_quoted_log_path_in_tmpdir() {
    let wrapper = repo("editors/toad/claude-acp-toad");
    for shell in ["sh", "bash"] {
        let mut check = Command::new(shell);
        check.arg("-n").arg(&wrapper);
        let output = run(&mut check, &format!("{shell} -n"), "a POSIX sh and bash").await;
        assert!(
            output.status.success(),
            "{shell} -n failed\n{}",
            show(&output)
        );
    }

    let scratch = tempfile::tempdir().unwrap();
    let bin = scratch.path().join("bin");
    // A TMPDIR with a space and a quote, as a macOS user name can give.
    let tmpdir = scratch.path().join("t m'p");
    std::fs::create_dir(&bin).unwrap();
    std::fs::create_dir(&tmpdir).unwrap();
    std::os::unix::fs::symlink(ADAPTER, bin.join("claude-acp")).unwrap();
    // Toad 0.6.18 runs COMMAND with asyncio.create_subprocess_shell, i.e. `/bin/sh -c COMMAND`.
    write_executable(
        &bin.join("toad"),
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$FAKE_TOAD_ARGS\"\n\
         printf '%s' \"${CLAUDE_CODE_ENABLE_TODO_TOOLS:-}\" > \"$FAKE_TOAD_ENV\"\n\
         exec /bin/sh -c \"$4\" < /dev/null\n",
    );
    let args_file = scratch.path().join("args");
    let env_file = scratch.path().join("env");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new(&wrapper);
    command
        .arg("/some/project")
        .env("PATH", path)
        .env("TMPDIR", &tmpdir)
        .env("RUST_LOG", "info")
        .env("FAKE_TOAD_ARGS", &args_file)
        .env("FAKE_TOAD_ENV", &env_file)
        .env_remove("CLAUDE_CODE_ENABLE_TODO_TOOLS");
    let output = run(&mut command, "claude-acp-toad", "a POSIX sh").await;
    let args = std::fs::read_to_string(&args_file).unwrap_or_default();
    assert!(
        output.status.success(),
        "claude-acp did not start from the command the wrapper gave Toad\nargs:\n{args}\n{}",
        show(&output)
    );
    let args: Vec<&str> = args.lines().collect();
    assert_eq!(
        args[..3],
        ["acp", "--title", "Claude Code (claude-acp)"],
        "{args:?}"
    );
    assert_eq!(args.get(4), Some(&"/some/project"), "{args:?}");
    let log = tmpdir.join("claude-acp-toad.log");
    assert!(
        std::fs::metadata(&log).is_ok_and(|m| m.len() > 0),
        "no log at {} (command: {:?})",
        log.display(),
        args.get(3)
    );
    assert_eq!(
        std::fs::read_to_string(&env_file).unwrap(),
        "1",
        "plans need the todo tools"
    );
}

const ACPX_INSTALL: &str = "Node.js and npm on PATH (e.g. apt-get install nodejs npm) to install the pinned acpx \
     in tests/acpx-client";

/// Installs the locked acpx unless it is already there. `npm install --no-save` rather than
/// `npm ci`: acpx 0.19.1 lists platform packages that were never published (e.g.
/// `@openclaw/fs-safe-darwin-arm64`), which npm cannot lock and `npm ci` then rejects.
pub(super) async fn ensure_acpx(client_dir: &Path) {
    // One install at a time: two tests installing into a fresh checkout at once broke each other
    // (npm's ENOENT), and one could run acpx while the other was still writing it.
    static INSTALLING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let _one_at_a_time = INSTALLING.lock().await;
    if client_dir.join("node_modules/acpx/package.json").is_file() {
        return;
    }
    let mut npm_install = Command::new("npm");
    npm_install
        .args(["install", "--no-save", "--no-audit", "--no-fund"])
        .current_dir(client_dir);
    let installed = run(
        &mut npm_install,
        "npm install in tests/acpx-client",
        ACPX_INSTALL,
    )
    .await;
    assert!(
        installed.status.success(),
        "npm install in {} failed (it needs the npm registry on first run)\n{}",
        client_dir.display(),
        show(&installed)
    );
}

/// A folder laid out as an acpx user's machine: `bin/` (for PATH) holding `claude-acp`, a link to
/// the built binary, as the config's argv names it and a user's install would put it; `home/`;
/// and `project/` with the shipped config as its `.acpxrc.json`.
pub(super) fn acpx_scratch() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let scratch = tempfile::tempdir().unwrap();
    let (bin, home, project) = (
        scratch.path().join("bin"),
        scratch.path().join("home"),
        scratch.path().join("project"),
    );
    for dir in [&bin, &home, &project] {
        std::fs::create_dir(dir).unwrap();
    }
    std::os::unix::fs::symlink(ADAPTER, bin.join("claude-acp")).unwrap();
    std::fs::copy(
        repo("editors/acpx/config.json"),
        project.join(".acpxrc.json"),
    )
    .unwrap();
    (scratch, bin, home, project)
}

#[tokio::test]
async fn acpx_drives_claude_acp_with_the_shipped_config() {
    let client_dir = repo("tests/acpx-client");
    ensure_acpx(&client_dir).await;

    let (scratch, bin, home, project) = acpx_scratch();
    // claude: the stand-in, noting the plan-tools variable it was started with.
    let seen_env = scratch.path().join("claude-env");
    let claude = bin.join("claude");
    write_executable(
        &claude,
        &format!(
            "#!/bin/sh\nprintf '%s' \"${{CLAUDE_CODE_ENABLE_TODO_TOOLS:-}}\" > {}\n\
             exec {} standin --script {} \"$@\"\n",
            sh_quote(&seen_env.display().to_string()),
            sh_quote(ADAPTER),
            sh_quote(&repo("fixtures/standin/text.jsonl").display().to_string())
        ),
    );
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut acpx = Command::new("node");
    acpx.arg(client_dir.join("node_modules/acpx/dist/cli.js"))
        .args(["--approve-all", "claude-acp", "exec", "say hi"])
        .current_dir(&project)
        .env("PATH", path)
        .env("HOME", &home)
        .env("CLAUDE_CODE_EXECUTABLE", &claude)
        .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
        .env_remove("CLAUDE_CODE_ENABLE_TODO_TOOLS");
    let output = run(&mut acpx, "node acpx", ACPX_INSTALL).await;
    assert!(
        output.status.success(),
        "acpx exec failed\n{}",
        show(&output)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("Hello from the mock model!") && stdout.contains("end_turn"),
        "acpx did not show the streamed answer and the end of the turn\n{}",
        show(&output)
    );
    assert_eq!(
        std::fs::read_to_string(&seen_env).unwrap_or_default(),
        "1",
        "claude was not started with CLAUDE_CODE_ENABLE_TODO_TOOLS=1 from the config"
    );
}
