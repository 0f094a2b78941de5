//! The configs in `editors/` as a user copies them: each file parsed or compiled by its own
//! language's tool, run against a stand-in for its client where the client cannot run here
//! (CodeCompanion, agent-shell, Toad), and acpx itself (pinned, `tests/acpx-client/`) driving the
//! built claude-acp with `editors/acpx/config.json` exactly as shipped, against the stand-in for
//! claude.
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

/// Loads `editors/neovim/codecompanion.lua` with stand-ins for `codecompanion` and
/// `codecompanion.adapters` and prints what CodeCompanion would get from it.
const CODECOMPANION_PROBE: &str = r#"
local captured
package.preload["codecompanion"] = function()
  return { setup = function(config) captured = config end }
end
package.preload["codecompanion.adapters"] = function()
  return { extend = function(base, overrides) overrides.extends = base; return overrides end }
end
dofile(arg[1])
local chat = captured.interactions.chat.adapter
local adapter = captured.adapters.acp[chat]()
local function value(v) if type(v) == "function" then return v(adapter) end return v end
print("chat=" .. chat)
print("extends=" .. adapter.extends)
print("name=" .. adapter.name)
print("default=" .. table.concat(adapter.commands.default, " "))
print("with_log=" .. table.concat(adapter.commands.with_log, " "))
print("todo=" .. tostring(value(adapter.env.CLAUDE_CODE_ENABLE_TODO_TOOLS)))
print("api_key=" .. tostring(value(adapter.env.ANTHROPIC_API_KEY)))
print("oauth=" .. tostring(value(adapter.env.CLAUDE_CODE_OAUTH_TOKEN)))
print("auth=" .. tostring(adapter.handlers.auth(adapter)))
"#;

#[tokio::test]
#[ignore = "needs lua5.4 (installed by .ci/test, which runs it)"]
async fn neovim_config_compiles_and_gives_codecompanion_a_claude_acp_adapter() {
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

    let lua = first_tool(&["lua5.4", "lua", "lua5.3", "lua5.1", "luajit"], install).await;
    let scratch = tempfile::tempdir().unwrap();
    let probe = scratch.path().join("probe.lua");
    std::fs::write(&probe, CODECOMPANION_PROBE).unwrap();
    let mut command = Command::new(&lua);
    command
        .arg(&probe)
        .arg(&config)
        .env("TMPDIR", "/var/tmp/me")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("CLAUDE_CODE_OAUTH_TOKEN");
    let output = run(&mut command, "lua probe.lua", install).await;
    assert!(
        output.status.success(),
        "loading the config failed\n{}",
        show(&output)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    for line in [
        "chat=claude_acp",
        "extends=claude_code",
        "name=claude_acp",
        "default=claude-acp",
        "with_log=claude-acp --log-file /var/tmp/me/claude-acp.log",
        "todo=1",
        // An unset variable must not reach claude as its own name.
        "api_key=nil",
        "oauth=nil",
        "auth=true",
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "expected `{line}`\n{}",
            show(&output)
        );
    }
}

/// agent-shell's API as claude-acp.el uses it, with the keyword lists of agent-shell 0.50.1 (an
/// unknown keyword is an error, as in agent-shell). `COMMAND_VARIABLE` is the defcustom that
/// holds Claude Code's command in the agent-shell version played.
const AGENT_SHELL_STAND_IN: &str = r#";;; agent-shell.el --- stand-in -*- lexical-binding: t; -*-
(require 'cl-lib)
(defvar COMMAND_VARIABLE '("claude-agent-acp"))
(defvar agent-shell-anthropic-authentication nil)
(defvar agent-shell-anthropic-claude-environment nil)
(defvar agent-shell-anthropic-default-session-mode-id nil)
(cl-defun agent-shell-make-agent-config
    (&key identifier mode-line-name welcome-function buffer-name shell-prompt
          shell-prompt-regexp client-maker needs-authentication authenticate-request-maker
          default-model-id default-session-mode-id icon-name install-instructions)
  (ignore welcome-function shell-prompt shell-prompt-regexp needs-authentication
          authenticate-request-maker icon-name install-instructions)
  `((:identifier . ,identifier) (:mode-line-name . ,mode-line-name)
    (:buffer-name . ,buffer-name) (:client-maker . ,client-maker)
    (:default-model-id . ,default-model-id)
    (:default-session-mode-id . ,default-session-mode-id)))
(defvar agent-shell-agent-configs
  (list (agent-shell-make-agent-config :identifier 'claude-code)))
(cl-defun agent-shell-anthropic-make-authentication (&key api-key login)
  (if api-key `((:api-key . ,api-key)) (and login '((:login . t)))))
(cl-defun agent-shell--make-acp-client
    (&key command command-params environment-variables context-buffer)
  (ignore context-buffer)
  `((:command . ,command) (:command-params . ,command-params)
    (:environment-variables . ,environment-variables)))
(cl-defun agent-shell-start (&key config session-id outgoing-request-decorator)
  (ignore config session-id outgoing-request-decorator))
(provide 'agent-shell)
"#;

/// Loads the config (before agent-shell, as an init file would, and once more after), then prints
/// what agent-shell would use, as JSON.
const AGENT_SHELL_PROBE: &str = r#"
(require 'json)
(load CONFIG nil t)
(require 'agent-shell)
(load CONFIG nil t)
(let* ((ours (seq-filter (lambda (c) (eq (alist-get :identifier c) 'claude-acp))
                         agent-shell-agent-configs))
       (client (funcall (alist-get :client-maker (car ours)) (current-buffer)))
       (value (lambda (symbol) (if (boundp symbol) (symbol-value symbol) "unbound"))))
  (princ (json-encode
          `((new_command . ,(funcall value 'agent-shell-anthropic-claude-acp-command))
            (old_command . ,(funcall value 'agent-shell-anthropic-claude-command))
            (stock_environment . ,agent-shell-anthropic-claude-environment)
            (login . ,(alist-get :login agent-shell-anthropic-authentication))
            (registered . ,(length ours))
            (name . ,(alist-get :mode-line-name (car ours)))
            (command . ,(alist-get :command client))
            (params . ,(alist-get :command-params client))
            (environment . ,(alist-get :environment-variables client))))))
"#;

async fn load_in_emacs(stand_in_variable: &str) -> Value {
    let scratch = tempfile::tempdir().unwrap();
    std::fs::write(
        scratch.path().join("agent-shell.el"),
        AGENT_SHELL_STAND_IN.replace("COMMAND_VARIABLE", stand_in_variable),
    )
    .unwrap();
    let config = repo("editors/emacs/claude-acp.el");
    let probe = AGENT_SHELL_PROBE.replace("CONFIG", &format!("{:?}", config.display().to_string()));
    let mut command = Command::new("emacs");
    command
        .args(["--batch", "-Q", "-L"])
        .arg(scratch.path())
        .arg("--eval")
        .arg(format!("(progn {probe})"))
        .env("TMPDIR", scratch.path());
    let output = run(
        &mut command,
        "emacs --batch",
        "Emacs (Debian: apt-get install emacs-nox)",
    )
    .await;
    assert!(
        output.status.success(),
        "loading claude-acp.el failed\n{}",
        show(&output)
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("probe printed no JSON ({e})\n{}", show(&output)))
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
#[ignore = "needs emacs (installed by .ci/test, which runs it)"]
async fn emacs_config_points_current_agent_shell_at_claude_acp_and_registers_its_agent() {
    let seen = load_in_emacs("agent-shell-anthropic-claude-acp-command").await;
    assert_eq!(
        seen["new_command"],
        serde_json::json!(["claude-acp"]),
        "{seen}"
    );
    // agent-shell refuses to start Claude Code while the old variable is non-nil.
    assert_eq!(seen["old_command"], "unbound", "{seen}");
    assert_eq!(seen["login"], true, "{seen}");
    let todo = serde_json::json!("CLAUDE_CODE_ENABLE_TODO_TOOLS=1");
    for key in ["stock_environment", "environment"] {
        assert!(
            seen[key].as_array().is_some_and(|e| e.contains(&todo)),
            "{key}: {seen}"
        );
    }
    assert_eq!(
        seen["registered"], 1,
        "once in agent-shell-agent-configs: {seen}"
    );
    assert_eq!(seen["name"], "Claude Code (claude-acp)", "{seen}");
    assert_eq!(seen["command"], "claude-acp", "{seen}");
    let params = seen["params"].as_array().expect("params");
    assert_eq!(
        params.first(),
        Some(&serde_json::json!("--log-file")),
        "{seen}"
    );
    assert!(
        params
            .get(1)
            .and_then(Value::as_str)
            .is_some_and(|p| p.ends_with("/claude-acp.log")),
        "{seen}"
    );
}

#[tokio::test]
#[ignore = "needs emacs (installed by .ci/test, which runs it)"]
async fn emacs_config_falls_back_to_the_old_variable_on_older_agent_shell() {
    let seen = load_in_emacs("agent-shell-anthropic-claude-command").await;
    assert_eq!(
        seen["old_command"],
        serde_json::json!(["claude-acp"]),
        "{seen}"
    );
    assert_eq!(seen["new_command"], "unbound", "{seen}");
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
