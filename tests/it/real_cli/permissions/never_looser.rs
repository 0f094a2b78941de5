//! Never looser than claude itself (issue 39), through the built adapter on the real claude: each
//! call below is one claude's own tools ask about or refuse, made of the tools the editor serves
//! (`mcp__acp__Read`, `mcp__acp__Write`, `mcp__acp__Bash`). The editor rejects every ask, so what
//! reached the model, what the editor wrote and which commands its terminal ran show what ran
//! unasked.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::super::editor_tools::{adapter_on_mock, asks, turn};
use crate::support::acp_client::{AcpClient, choose_permission};
use crate::support::editor_buffers::Buffers;
use crate::support::editor_terminals::Terminals;
use crate::support::mock_api::{Block, MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;

const SECRET: &str = "TOP-SECRET-outside";
const ENV_SECRET: &str = "API_KEY=env-secret";

/// One session of the adapter, its editor serving files and a terminal and rejecting every ask.
struct Trial {
    mock: MockApi,
    env: ClaudeEnv,
    c: AcpClient,
    buffers: Buffers,
    terminals: Terminals,
    /// A folder beside the workspace, with `secret.txt`.
    outside: PathBuf,
}

impl Trial {
    /// The workspace holds `notes.txt`, `.env`, `link.txt` (a symlink to the secret outside) and
    /// `linkdir` (one to the folder outside); the editor has `notes.txt` and `.env` open.
    fn new() -> Self {
        let (mock, env, c) = adapter_on_mock(&["--permission-transport", "stdio"]);
        let work = env.work_dir();
        let outside = work.parent().unwrap().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
        std::fs::write(work.join("notes.txt"), "b\na\n").unwrap();
        std::fs::write(work.join(".env"), ENV_SECRET).unwrap();
        symlink(&outside.join("secret.txt"), &work.join("link.txt"));
        symlink(&outside, &work.join("linkdir"));
        let buffers = Buffers::default();
        buffers.open(&work.join("notes.txt"), "b\na\n");
        buffers.open(&work.join(".env"), ENV_SECRET);
        buffers.serve(&c);
        let terminals = Terminals::default();
        terminals.serve(&c);
        c.on_request(
            "session/request_permission",
            choose_permission("reject_once"),
        );
        Self {
            mock,
            env,
            c,
            buffers,
            terminals,
            outside,
        }
    }

    fn work(&self) -> PathBuf {
        self.env.work_dir()
    }

    /// Writes `settings` to `file` under the workspace (`.claude/settings.json`) or the home.
    fn settings(&self, file: PathBuf, settings: Value) {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, settings.to_string()).unwrap();
    }

    /// Opens a session with `_meta.claudeCode.options` `options` and runs one turn in which the
    /// model makes every call of `calls`; returns the session id.
    async fn run(&self, options: Value, calls: &[(&str, Value)]) -> String {
        self.c
            .initialize_with_capabilities(json!({
                "fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true}))
            .await;
        let opened = self
            .c
            .request(
                "session/new",
                json!({"cwd": self.work(), "mcpServers": [],
                    "_meta": {"claudeCode": {"options": options}}}),
            )
            .await
            .unwrap_or_else(|e| panic!("session/new: {e}\n{}", self.c.diagnostics()));
        let id = opened["sessionId"].as_str().unwrap().to_owned();
        let blocks = calls
            .iter()
            .map(|(name, input)| Block::ToolUse {
                name: (*name).to_owned(),
                input: input.clone(),
            })
            .collect();
        self.mock
            .push_rule(Rule::on_prompt("go", Reply::blocks(blocks)).once());
        self.mock
            .push_rule(Rule::on_tool_result(Reply::text("Done.")));
        turn(&self.c, &id, "go").await;
        id
    }

    /// Every tool result the model got.
    fn results(&self) -> Vec<String> {
        self.mock
            .requests()
            .iter()
            .flat_map(|r| r.tool_results())
            .map(|r| r.text)
            .collect()
    }

    /// The tools the model was offered.
    fn offered(&self) -> Vec<String> {
        let tools = self.mock.requests()[0].body["tools"].clone();
        tools
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    /// The titles of the permission asks the editor got.
    fn asked(&self) -> Vec<String> {
        asks(&self.c)
            .iter()
            .map(|a| {
                a["toolCall"]["title"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect()
    }
}

fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

fn read(path: impl AsRef<Path>) -> (&'static str, Value) {
    ("mcp__acp__Read", json!({"file_path": path.as_ref()}))
}

fn bash(command: &str) -> (&'static str, Value) {
    (
        "mcp__acp__Bash",
        json!({"command": command, "description": "Run it"}),
    )
}

/// A file outside the workspace named through `..` (absolute or relative) or through a symlink
/// in it is asked about, and the secret never reaches the model; in acceptEdits a Write through
/// `..` is asked too and writes nothing. A file inside is still read unasked.
#[tokio::test]
async fn paths_outside_the_workspace_are_asked_however_they_are_named() {
    let t = Trial::new();
    let work = t.work();
    t.run(
        json!({"permissionMode": "acceptEdits"}),
        &[
            read(work.join("../outside/secret.txt")),
            read("../outside/secret.txt"),
            read(work.join("link.txt")),
            read(work.join("linkdir/secret.txt")),
            (
                "mcp__acp__Write",
                json!({"file_path": work.join("../outside/pwned.txt"), "content": "pwned"}),
            ),
            read(work.join("notes.txt")),
        ],
    )
    .await;
    let results = t.results();
    assert!(
        !results.iter().any(|r| r.contains(SECRET)),
        "the secret reached the model: {results:#?}"
    );
    assert!(!t.outside.join("pwned.txt").exists(), "written outside");
    assert_eq!(t.asked().len(), 5, "{:#?}", t.asked());
    assert!(
        results.iter().any(|r| r.contains("1\tb")),
        "notes.txt read unasked: {results:#?}"
    );
}

/// A deny rule of claude's settings reaches the editor's Read and the terminal: `Read(**/.env)` in
/// the user's settings refuses the editor's Read of `.env` and `cat .env` in the terminal without
/// asking, as claude refuses both.
#[tokio::test]
async fn a_read_deny_rule_of_the_users_settings_refuses_the_editors_read() {
    let t = Trial::new();
    t.settings(
        t.env.home_dir().join(".claude/settings.json"),
        json!({"permissions": {"deny": ["Read(**/.env)"]}}),
    );
    t.run(json!({}), &[read(t.work().join(".env")), bash("cat .env")])
        .await;
    let results = t.results();
    assert!(
        !results.iter().any(|r| r.contains("env-secret")),
        "{results:#?}"
    );
    assert!(
        t.terminals.created().is_empty(),
        "{:?}",
        t.terminals.created()
    );
    assert!(t.asked().is_empty(), "refused, not asked: {:#?}", t.asked());
}

/// The same rule in `_meta.claudeCode.options.settings` refuses the editor's Read too.
#[tokio::test]
async fn a_read_deny_rule_of_the_sessions_settings_refuses_the_editors_read() {
    let t = Trial::new();
    t.run(
        json!({"settings": {"permissions": {"deny": ["Read(**/.env)"]}}}),
        &[read(t.work().join(".env"))],
    )
    .await;
    let results = t.results();
    assert!(
        !results.iter().any(|r| r.contains("env-secret")),
        "{results:#?}"
    );
    assert!(t.asked().is_empty(), "{:#?}", t.asked());
}

/// `disallowedTools: ["Read", "Bash"]`: the editor's Read and Bash are not offered at all.
#[tokio::test]
async fn a_disallowed_tool_is_not_served() {
    let t = Trial::new();
    t.run(
        json!({"disallowedTools": ["Read", "Bash"]}),
        &[read(t.work().join(".env")), bash("ls")],
    )
    .await;
    let offered = t.offered();
    for tool in ["mcp__acp__Read", "mcp__acp__Bash"] {
        assert!(!offered.iter().any(|o| o == tool), "{tool}: {offered:?}");
    }
    assert!(
        offered.iter().any(|o| o == "mcp__acp__Write"),
        "{offered:?}"
    );
    let results = t.results();
    assert!(
        !results.iter().any(|r| r.contains("env-secret")),
        "{results:#?}"
    );
    assert!(t.terminals.created().is_empty());
    assert!(t.buffers.writes().is_empty());
}

/// `disallowedTools: ["Bash(cat:*)"]` is a deny rule: `cat .env` is refused unasked, in any part
/// of a command.
#[tokio::test]
async fn a_disallowed_command_is_refused_in_the_editors_terminal() {
    let t = Trial::new();
    t.run(
        json!({"disallowedTools": ["Bash(cat:*)"]}),
        &[bash("cat .env"), bash("ls && cat .env")],
    )
    .await;
    assert!(
        t.terminals.created().is_empty(),
        "{:?}",
        t.terminals.created()
    );
    assert!(t.asked().is_empty(), "{:#?}", t.asked());
}

/// A project's own allow rules (`Bash`, `Bash(touch:*)`) do not approve its commands in a
/// workspace the user never trusted: claude leaves them out, and `touch x` is asked.
#[tokio::test]
async fn a_projects_allow_rules_do_not_approve_its_own_commands() {
    let t = Trial::new();
    t.settings(
        t.work().join(".claude/settings.json"),
        json!({"permissions": {"allow": ["Bash", "Bash(touch:*)"]}}),
    );
    t.run(json!({}), &[bash("touch x")]).await;
    assert!(
        t.terminals.created().is_empty(),
        "{:?}",
        t.terminals.created()
    );
    assert_eq!(t.asked(), ["Run `touch x`"]);
}

/// The read-only list knows each command's options: one that runs a program, writes, sets the
/// clock or reads a file outside is asked (rejected: not run), and so is a symlink to a file
/// outside; a plain read inside still runs unasked.
#[tokio::test]
async fn the_read_only_list_asks_about_options_that_run_write_or_read_outside() {
    let t = Trial::new();
    let outside = t.outside.display().to_string();
    let asked = [
        "sort --compress-program=sh --buffer-size=16K notes.txt".to_owned(),
        format!("sort -o{outside}/sorted.txt notes.txt"),
        "date -s 2001-01-01".to_owned(),
        format!("date --file={outside}/secret.txt"),
        "cat link.txt".to_owned(),
        format!("git diff --no-index {outside}/secret.txt notes.txt"),
    ];
    let mut calls: Vec<(&str, Value)> = asked.iter().map(|c| bash(c)).collect();
    calls.push(bash("cat notes.txt"));
    t.run(json!({}), &calls).await;
    let ran: Vec<String> = t.terminals.created().into_iter().map(|(c, _)| c).collect();
    assert_eq!(ran, ["cat notes.txt"], "only the plain read runs unasked");
    assert_eq!(t.asked().len(), asked.len(), "{:#?}", t.asked());
}

/// In acceptEdits, claude asks before writing its protected files (`~/.bashrc`,
/// `.claude/settings.json`) and refuses to write a file a Read deny rule keeps or a symlink:
/// so do the editor's tools, while a plain new file is written unasked.
#[tokio::test]
async fn accept_edits_leaves_protected_files_asked_and_denied_ones_refused() {
    let t = Trial::new();
    t.settings(
        t.env.home_dir().join(".claude/settings.json"),
        json!({"permissions": {"deny": ["Read(**/.env)"]}}),
    );
    let write = |path: &str| {
        (
            "mcp__acp__Write",
            json!({"file_path": path, "content": "written"}),
        )
    };
    t.run(
        json!({"permissionMode": "acceptEdits"}),
        &[
            write("~/.bashrc"),
            write(".claude/settings.json"),
            write(".env"),
            write("link.txt"),
            write("new.txt"),
        ],
    )
    .await;
    let written: Vec<String> = t.buffers.writes().into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        written,
        [t.work().join("new.txt").display().to_string()],
        "{:#?}",
        t.results()
    );
    assert!(!t.env.home_dir().join(".bashrc").exists());
    assert_eq!(t.asked().len(), 2, "{:#?}", t.asked());
    assert_eq!(
        std::fs::read_to_string(t.outside.join("secret.txt")).unwrap(),
        SECRET
    );
}

/// "Always reject" of a file outside the workspace covers its folder, as claude's own Read's
/// answer does (claude suggests `Read(//folder/**)` there): later in the session another file of
/// that folder is refused unasked to the editor's Read, Write and the terminal's `cat`, while a
/// file elsewhere outside is still asked about.
#[tokio::test]
async fn always_reject_of_a_file_outside_covers_its_folder() {
    let t = Trial::new();
    let folder = t.outside.join("reject");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("first.txt"), SECRET).unwrap();
    std::fs::write(folder.join("other.txt"), SECRET).unwrap();
    t.c.on_request(
        "session/request_permission",
        choose_permission("reject_always"),
    );
    let id = t.run(json!({}), &[read(folder.join("first.txt"))]).await;
    let label = asks(&t.c)[0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "reject_always")
        .map(|o| o["name"].to_string())
        .unwrap_or_default();
    t.c.on_request(
        "session/request_permission",
        choose_permission("reject_once"),
    );
    let calls = [
        read(folder.join("other.txt")),
        (
            "mcp__acp__Write",
            json!({"file_path": folder.join("new.txt"), "content": "x"}),
        ),
        bash(&format!("cat {}", folder.join("other.txt").display())),
        read(t.outside.join("secret.txt")),
    ];
    let blocks = calls
        .iter()
        .map(|(name, input)| Block::ToolUse {
            name: (*name).to_owned(),
            input: input.clone(),
        })
        .collect();
    t.mock
        .push_rule(Rule::on_prompt("again", Reply::blocks(blocks)).once());
    turn(&t.c, &id, "again").await;
    let asked = t.asked();
    assert_eq!(
        asked.len(),
        2,
        "only the file elsewhere is asked: {asked:#?}"
    );
    assert!(
        t.terminals.created().is_empty(),
        "{:?}",
        t.terminals.created()
    );
    assert!(t.buffers.writes().is_empty());
    assert!(!t.results().iter().any(|r| r.contains(SECRET)));
    assert!(
        label.contains(&format!("Read(/{}/**)", folder.display())),
        "{label}"
    );
}

/// In plan mode the terminal runs only what claude runs unasked there: a command that writes
/// (`touch`, `sort -o`) or reads outside is refused, not run and not asked, with a refusal the
/// model reads as one; a read-only command runs.
#[tokio::test]
async fn plan_mode_refuses_commands_that_write_or_read_outside() {
    let t = Trial::new();
    t.run(
        json!({"permissionMode": "plan"}),
        &[
            bash("touch plan_touched.txt"),
            bash("sort -o plan_sorted.txt notes.txt"),
            bash("cat ../outside/secret.txt"),
            bash("cat notes.txt"),
        ],
    )
    .await;
    let ran: Vec<String> = t.terminals.created().into_iter().map(|(c, _)| c).collect();
    assert_eq!(ran, ["cat notes.txt"]);
    assert!(t.asked().is_empty(), "{:#?}", t.asked());
    let refused = t
        .results()
        .iter()
        .filter(|r| r.starts_with("Permission to use Bash has been denied in plan mode"))
        .count();
    assert_eq!(refused, 3, "{:#?}", t.results());
}
