//! The real editors, as their users run them: Emacs with agent-shell and Neovim with
//! CodeCompanion, each in a tmux pane, loading the shipped config from `editors/` and the plugins
//! at the releases `tests/editors/plugins.tsv` pins, driving the built claude-acp on the real claude
//! against the mock API. Each test opens a chat, answers Write permissions in the editor's own UI
//! (allow once, always allow, reject), reads the streamed answers on the screen, checks the files,
//! and cancels a turn mid-stream.
//!
//! The plugins are no registry's package: `scripts/editor-plugins` checks them out under
//! `target/editor-plugins/` (or `CLAUDE_ACP_EDITOR_PLUGINS` names the folder holding them).

mod agent_shell;
mod codecompanion;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::mock_api::{ApiRequest, MockApi, Reply, Rule};
use crate::support::real_cli::{ClaudeEnv, pinned_version};
use crate::support::real_editor::write;
use crate::support::tmux::Tmux;
use serde_json::{Value, json};

use super::editor_configs::{ADAPTER, repo, sh_quote};

/// The Write claude-acp serves where the editor declares `fs.writeTextFile`.
const EDITOR_WRITE: &str = "mcp__acp__Write";

/// Longest wait for one thing on the screen: claude's first start on a fresh HOME takes seconds.
const STEP: Duration = Duration::from_secs(60);

/// One plugin of `tests/editors/plugins.tsv`.
struct Pin {
    name: String,
    repository: String,
    version: String,
    commit: String,
}

fn pins() -> Vec<Pin> {
    let text = std::fs::read_to_string(repo("tests/editors/plugins.tsv")).unwrap();
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 5, "tests/editors/plugins.tsv: {line:?}");
            Pin {
                name: fields[0].to_owned(),
                repository: fields[1].to_owned(),
                version: fields[2].to_owned(),
                commit: fields[3].to_owned(),
            }
        })
        .collect()
}

fn pin(name: &str) -> Pin {
    pins()
        .into_iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("{name} is not in tests/editors/plugins.tsv"))
}

/// The checkout of plugin `name`, after checking it is the pinned release: `version_of` reads
/// the version its source states.
fn plugin(name: &str, version_of: impl Fn(&Path) -> Option<String>) -> PathBuf {
    let root = std::env::var_os("CLAUDE_ACP_EDITOR_PLUGINS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo("target/editor-plugins"));
    let dir = root.join(name);
    let pin = pin(name);
    assert!(
        dir.is_dir(),
        "no {name} at {}: run scripts/editor-plugins (it checks out {} at {})",
        dir.display(),
        pin.repository,
        pin.commit
    );
    if pin.version != "-" {
        assert_eq!(
            version_of(&dir).as_deref(),
            Some(pin.version.as_str()),
            "{} is not {name} {} (tests/editors/plugins.tsv): run scripts/editor-plugins",
            dir.display(),
            pin.version
        );
    }
    dir
}

/// The `;; Version:` header of an Emacs package's main file.
fn elisp_version(file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(";; Version:"))?;
    Some(line[";; Version:".len()..].trim().to_owned())
}

/// The README of each editor names the plugin releases the tests run, as pinned.
#[test]
fn the_editor_readmes_name_the_plugin_releases_the_tests_run() {
    for (readme, plugins) in [
        (
            "editors/emacs/README.md",
            &["agent-shell", "agent-shell-0.50.1", "acp.el", "shell-maker"][..],
        ),
        (
            "editors/neovim/README.md",
            &["codecompanion.nvim", "plenary.nvim"][..],
        ),
    ] {
        let text = std::fs::read_to_string(repo(readme)).unwrap();
        for name in plugins {
            let pin = pin(name);
            // An earlier release runs from `<plugin>-<version>`.
            let plugin = name.trim_end_matches(&format!("-{}", pin.version));
            let named = match pin.version.as_str() {
                "-" => format!("{plugin} commit `{}`", &pin.commit[..7]),
                version => format!("{plugin} {version}"),
            };
            assert!(
                text.to_lowercase().contains(&named.to_lowercase()),
                "{readme} does not name {named:?} (tests/editors/plugins.tsv)"
            );
        }
    }
}

/// The program `name` on PATH, or a failure saying how to install it.
fn program(name: &str, install: &str) -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
        .unwrap_or_else(|| panic!("{name} is not on PATH. This test needs {install}."))
}

/// The version `program --version` prints on its first line after `prefix`, as numbers.
fn version(program: &Path, prefix: &str) -> Vec<u32> {
    let output = std::process::Command::new(program)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("{} --version: {e}", program.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let first = stdout.lines().next().unwrap_or_default();
    let number = first
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("{} --version printed {first:?}", program.display()));
    number
        .trim()
        .split('.')
        .map(|part| part.parse().unwrap_or(0))
        .collect()
}

/// A project the user opens in the editor: the mock API, claude's environment, `claude-acp` on
/// PATH (the built binary, as `cargo install` would put it there), and the editor in a tmux pane.
struct Workspace {
    // First, so it is dropped first: killing the tmux server needs its socket, which lives in
    // `env`'s folder, gone once `env` is dropped.
    tmux: Option<Tmux>,
    mock: MockApi,
    env: ClaudeEnv,
}

impl Workspace {
    fn new() -> Workspace {
        let mock = MockApi::start(Vec::new());
        let env = ClaudeEnv::for_version(&mock, pinned_version());
        let bin = env.home_dir().join(".local/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(ADAPTER, bin.join("claude-acp")).unwrap();
        let path = env
            .vars()
            .into_iter()
            .find(|(key, _)| key == "PATH")
            .map(|(_, value)| value)
            .unwrap_or_default();
        let env = env.with_env("PATH", format!("{}:{path}", bin.display()));
        Workspace {
            tmux: None,
            mock,
            env,
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.env.work_dir().join(name)
    }

    /// Starts `command` (a shell command line) in the project, in a 200 x 60 pane.
    async fn open(&mut self, command: &str) {
        let work = self.env.work_dir().display().to_string();
        let line = format!(
            "cd {} && {command}; echo EDITOR-EXIT=$?; sleep 60",
            sh_quote(&work)
        );
        let socket = self.env.home_dir().join("tmux.sock");
        let tmux = Tmux::start(
            self.env.command("tmux"),
            &socket,
            "editor",
            (200, 60),
            &line,
        );
        self.tmux = Some(tmux.await);
    }

    fn tmux(&self) -> &Tmux {
        self.tmux.as_ref().expect("the editor is open")
    }

    /// What a failure shows besides the screen: claude-acp's log, when it wrote one.
    fn context(&self) -> String {
        let log = self.env.work_dir().join("../tmp/claude-acp.log");
        let log = std::fs::read_to_string(&log).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(40).collect();
        let requests = self.mock.requests().len();
        format!(
            "--- the mock model had {requests} requests; claude-acp's log, last lines ---\n{}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        )
    }

    /// The screen once `done` holds; `errors` on the screen fail at once.
    async fn wait(&self, what: &str, errors: &[&str], done: impl Fn(&str) -> bool) -> String {
        self.tmux()
            .wait_for(what, STEP, errors, done, || self.context())
            .await
    }

    /// Waits until `path` holds `content`.
    async fn wait_for_file(&self, path: &Path, content: &str) {
        let deadline = std::time::Instant::now() + STEP;
        while std::fs::read_to_string(path).ok().as_deref() != Some(content) {
            assert!(
                std::time::Instant::now() < deadline,
                "{} does not hold {content:?}:\n{}\n{}",
                path.display(),
                self.tmux().screen(),
                self.context()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits for the editor to exit (the user quit it), then for claude-acp and its claude to
    /// end with it.
    async fn editor_exited(&self) {
        self.wait("the editor to exit", &[], |s| s.contains("EDITOR-EXIT="))
            .await;
        #[cfg(target_os = "linux")]
        {
            use crate::support::procs;
            let home = format!("HOME={}", self.env.home_dir().display());
            let ours =
                |pid: &u32| procs::environ(*pid).is_some_and(|e| e.split('\0').any(|v| v == home));
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            loop {
                let left: Vec<String> = ["claude-acp", "stream-json"]
                    .iter()
                    .flat_map(|needle| procs::pids_with_cmdline_containing(needle))
                    .filter(ours)
                    .filter_map(procs::cmdline)
                    .filter(|line| !line.starts_with("tmux") && !line.starts_with("sleep"))
                    .collect();
                if left.is_empty() {
                    break;
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "still running after the editor quit: {left:?}"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }

    /// The model writes `name` when a prompt names it, then answers `answer`, streamed a few
    /// characters at a time. It calls the Write it is offered: claude-acp's `mcp__acp__Write`
    /// where the editor takes edits ("Review in editor"), else claude's own.
    fn script_write(&self, name: &str, answer: &str) -> (PathBuf, String) {
        let path = self.path(name);
        let content = format!("Written by claude as {name}\n");
        let input = json!({"file_path": path, "content": content});
        let (word, in_editor) = (name.to_owned(), EDITOR_WRITE.to_owned());
        let reply = Reply::tool_use(EDITOR_WRITE, input.clone());
        self.mock.push_rule(
            Rule::when(
                format!("{name} asked for, {EDITOR_WRITE} offered"),
                move |r| typed(r).contains(&word) && r.tool_names().contains(&in_editor),
                reply,
            )
            .once(),
        );
        let word = name.to_owned();
        let reply = write(&path, &content);
        self.mock.push_rule(
            Rule::when(
                format!("{name} asked for"),
                move |r| typed(r).contains(&word),
                reply,
            )
            .once(),
        );
        let word = name.to_owned();
        self.mock.push_rule(
            Rule::when(
                format!("the Write of {name} answered"),
                move |r| {
                    !r.tool_results().is_empty()
                        && typed(r).is_empty()
                        && r.latest_prompt_text().is_some_and(|p| p.contains(&word))
                },
                streamed(answer),
            )
            .once(),
        );
        (path, content)
    }

    /// Whether claude was offered claude-acp's Write, i.e. the editor declared
    /// `fs.writeTextFile` and the session started on "Review in editor".
    fn edits_through_the_editor(&self) -> bool {
        self.mock
            .requests()
            .iter()
            .any(|r| r.tool_names().iter().any(|t| t == EDITOR_WRITE))
    }

    /// The model answers a prompt containing `word` with `answer`, streamed.
    fn script_text(&self, word: &str, answer: &str) {
        let owned = word.to_owned();
        self.mock.push_rule(
            Rule::when(
                format!("{word} typed"),
                move |r| typed(r).contains(&owned),
                streamed(answer),
            )
            .once(),
        );
    }

    /// The model answers a prompt containing `word` with [`STORY`], slowly enough (about 20
    /// seconds in all) to be cancelled mid-stream on a loaded machine.
    fn script_story(&self, word: &str) {
        let story = Reply::text(STORY)
            .chunk_chars(4)
            .chunk_delay(Duration::from_millis(200));
        let owned = word.to_owned();
        self.mock.push_rule(
            Rule::when(
                format!("{word} typed"),
                move |r| typed(r).contains(&owned),
                story,
            )
            .once(),
        );
    }
}

/// The text the user typed in the request's last user message (claude's `<system-reminder>`
/// blocks left out): after a cancelled tool call, claude sends the next prompt in one message
/// with that call's result.
fn typed(request: &ApiRequest) -> String {
    let Some(message) = request.last_user_message() else {
        return String::new();
    };
    match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .filter(|text| !text.trim_start().starts_with("<system-reminder>"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn streamed(text: &str) -> Reply {
    Reply::text(text)
        .chunk_chars(3)
        .chunk_delay(Duration::from_millis(10))
}

/// The answer cancelled mid-stream: its start shows, its end never does.
const STORY: &str = "Once upon a time a small crab lived by the sea. Every morning it counted \
    the waves, and every evening it told the gulls how many there had been. The gulls never \
    listened, but the crab did not mind: counting was the thing it loved. One day the sea was \
    so calm that there was nothing to count at all, and the crab sat very still. THE END.";

/// Whether `later` shows after the last `first` on `screen` (a prompt back after an answer).
fn shows_after(screen: &str, first: &str, later: &str) -> bool {
    match (screen.rfind(first), screen.rfind(later)) {
        (Some(a), Some(b)) => b > a,
        _ => false,
    }
}
