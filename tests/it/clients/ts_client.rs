//! Runs an editor built on the official TypeScript ACP client library (`tests/ts-client`)
//! against the built claude-acp, with the replay stand-in playing claude: proves that what the
//! adapter sends passes the library's own validation and gives the user text, a tool call and a
//! clean end of turn.
//!
//! Needs Node.js and npm; when either is missing the test fails and says so (it is not skipped).

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use tokio::process::Command;

use crate::support::editor_terminals::write_bash_rules;
use crate::support::standin::Standin;

const ADAPTER: &str = env!("CARGO_BIN_EXE_claude-acp");

pub(crate) fn repo_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

async fn run(command: &mut Command, what: &str, timeout: Duration) -> Output {
    command.kill_on_drop(true);
    let running = command.output();
    match tokio::time::timeout(timeout, running).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => panic!(
            "{what}: program not found. This test needs Node.js (>= 20) and npm on PATH to run the \
             official TypeScript ACP client in tests/ts-client; install them (e.g. apt-get install \
             nodejs npm)."
        ),
        Ok(Err(e)) => panic!("{what}: cannot run: {e}"),
        Err(_) => panic!("{what}: still running after {timeout:?}"),
    }
}

fn show(output: &Output) -> String {
    format!(
        "status: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Held while the client library is checked or installed: the scenarios run in parallel, and two
/// `npm ci` at once in one folder leave it half installed.
static INSTALLING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Installs the locked client library (`npm ci`) unless it is already there.
pub(crate) async fn ensure_client_library(client_dir: &Path) {
    let _one_at_a_time = INSTALLING.lock().await;
    let node = run(
        Command::new("node").arg("--version"),
        "node --version",
        Duration::from_secs(30),
    )
    .await;
    assert!(
        node.status.success(),
        "node --version failed\n{}",
        show(&node)
    );
    if client_dir
        .join("node_modules/@agentclientprotocol/sdk/package.json")
        .is_file()
    {
        return;
    }
    let mut npm_ci = Command::new("npm");
    npm_ci
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(client_dir);
    let installed = run(
        &mut npm_ci,
        "npm ci in tests/ts-client",
        Duration::from_secs(300),
    )
    .await;
    assert!(
        installed.status.success(),
        "npm ci in {} failed (it needs the npm registry on first run)\n{}",
        client_dir.display(),
        show(&installed)
    );
}

/// Runs `tests/ts-client/client.mjs` against the built adapter with `standin` as claude, in
/// `workspace`, with the client's other settings in `env`; its stdout once it reported success.
async fn run_client(standin: &Standin, workspace: &Path, env: &[(&str, &str)]) -> String {
    run_script(standin, workspace, "client.mjs", "ts-client: ok", env).await
}

/// Runs one client script of `tests/ts-client/` as [`run_client`] does; its stdout once it
/// printed `ok_line`.
async fn run_script(
    standin: &Standin,
    workspace: &Path,
    script: &str,
    ok_line: &str,
    env: &[(&str, &str)],
) -> String {
    let client_dir = repo_path("tests/ts-client");
    ensure_client_library(&client_dir).await;
    let home = tempfile::tempdir().unwrap();
    let mut node = Command::new("node");
    node.arg(script)
        .arg(ADAPTER)
        .current_dir(&client_dir)
        .env("CLAUDE_PATH", &standin.claude)
        .envs(standin.env())
        .env("ACP_SESSION_CWD", workspace)
        .env("ACP_TIMEOUT_MS", "60000")
        // Keep the adapter and the stand-in away from the developer's own ~/.claude.
        .env("HOME", home.path())
        .envs(env.iter().copied());
    let output = run(
        &mut node,
        &format!("node {script}"),
        Duration::from_secs(120),
    )
    .await;
    assert!(
        output.status.success(),
        "the TypeScript ACP client reported a failure\n{}",
        show(&output)
    );
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        stdout.contains(ok_line),
        "client exited 0 without its ok line\n{}",
        show(&output)
    );
    stdout
}

/// The official library's draft v2 client (`experimental/v2`) drives claude-acp: claude-acp
/// answers it in v2, the prompt with its message's id, the permission request with v2's title
/// and subject, and the turn's text reaches the client by the time the session is idle; the
/// library validated every message it took.
#[tokio::test]
async fn official_typescript_v2_client_gets_v2_a_permission_and_the_text_until_idle() {
    let standin = Standin::new("write_allow");
    let stdout = run_script(
        &standin,
        &standin.work,
        "client_v2.mjs",
        "ts-client-v2: ok",
        &[],
    )
    .await;
    let seen = stdout
        .split_once("ts-client-v2: ok ")
        .map(|(_, json)| json.trim())
        .expect("the client said what it saw");
    let seen: serde_json::Value = serde_json::from_str(seen).unwrap();
    assert_eq!(seen["protocolVersion"], 2, "{seen}");
    assert_eq!(seen["agent"], "claude-acp");
    assert!(seen["messageId"].is_string(), "{seen}");
    assert_eq!(
        seen["asks"],
        serde_json::json!([{"title": "Allow Write hello.txt?", "subject": "tool_call"}])
    );
    assert!(
        seen["text"].as_str().unwrap().contains("I'll create"),
        "{seen}"
    );
    assert_eq!(
        std::fs::read_to_string(standin.work.join("hello.txt")).unwrap(),
        "Hello, world!\n"
    );
}

#[tokio::test]
async fn official_typescript_client_gets_text_a_tool_call_and_end_turn() {
    let scratch = tempfile::tempdir().unwrap();
    // The stand-in through the shared support, so its verdict is read at the end like everywhere.
    let standin = Standin::new("write_allow");
    run_client(&standin, scratch.path(), &[]).await;
}

/// Edits the editor can review, with an editor built on the official library: claude's Read sees
/// the client's buffer (not the disk), the allowed Edit reaches it as `fs/write_text_file`, the
/// rejected one does not, and the disk is never written.
#[tokio::test]
async fn official_typescript_client_serves_reads_and_gets_the_edit_in_its_buffer() {
    const BUFFER: &str = "from the buffer\nsecond\n";
    const DISK: &str = "on disk, saved long ago\n";
    let standin = Standin::new("editor_edits");
    let path = standin.work.join("a.txt");
    std::fs::write(&path, DISK).unwrap();
    let key = path.display().to_string();
    let stdout = run_client(
        &standin,
        &standin.work,
        &[
            ("ACP_PROMPT", "Fix a.txt"),
            ("ACP_BUFFER_PATH", &key),
            ("ACP_BUFFER_TEXT", BUFFER),
            ("ACP_PERMISSIONS", "allow_once,reject_once,allow_once"),
            ("ACP_EXPECT_ASKS", "3"),
        ],
    )
    .await;
    // The script checked each answer claude got (the numbered buffer, claude's own texts).
    assert!(standin.problems().is_empty(), "{:?}", standin.problems());
    let writes = stdout
        .rsplit_once(", writes ")
        .map(|(_, json)| json.trim())
        .expect("the client listed its writes");
    let writes: serde_json::Value = serde_json::from_str(writes).unwrap();
    assert_eq!(
        writes,
        serde_json::json!([{"path": key, "content": "from the buffer\n2nd\n"}])
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), DISK);
}

/// Bash in the editor's terminal, with an editor built on the official library: each allowed
/// command runs in a terminal the client creates (`bash -c <command>` in the workspace) and every
/// terminal is released; the denied command never reaches the client.
#[tokio::test]
async fn official_typescript_client_runs_bash_in_its_terminals() {
    let standin = Standin::new("editor_terminal");
    // claude's rules in the project's settings: `make lint` allowed, `rm -rf` denied.
    write_bash_rules(&standin.work);
    let scripted = serde_json::json!({
        "cargo test": ["running 1 test\r\ntest ok\r\n", 0],
        "make lint": ["lint: 2 problems\n", 3],
        "true": ["", 0],
        "ls sub": ["a.txt\n", 0],
    })
    .to_string();
    let stdout = run_client(
        &standin,
        &standin.work,
        &[
            ("ACP_PROMPT", "Run the tests"),
            ("ACP_TERMINALS", &scripted),
            ("ACP_EXPECT_ASKS", "2"),
        ],
    )
    .await;
    // The script checked each result claude got: the output, `Exit code 3`, claude's no-output text.
    assert!(standin.problems().is_empty(), "{:?}", standin.problems());
    let log = stdout
        .rsplit_once(", terminals ")
        .map(|(_, json)| json.trim())
        .expect("the client listed its terminals");
    let log: serde_json::Value = serde_json::from_str(log).unwrap();
    let work = standin.work.display().to_string();
    let created: Vec<serde_json::Value> = ["cargo test", "make lint", "true", "ls sub"]
        .iter()
        .map(|command| serde_json::json!({"command": command, "cwd": work}))
        .collect();
    assert_eq!(log["created"], serde_json::Value::from(created));
    assert_eq!(
        log["released"],
        serde_json::json!(["term-1", "term-2", "term-3", "term-4"])
    );
}

/// Talking to a running turn, with an editor built on the official library: a second prompt sent
/// while the first streams is queued (not refused), a steer goes into the turn ("injected"), and
/// both prompts end `end_turn`, the first answered first.
#[tokio::test]
async fn official_typescript_client_queues_a_prompt_and_steers_the_running_turn() {
    let standin = Standin::new("ts_queue_steer");
    let stdout = run_client(&standin, &standin.work, &[("ACP_QUEUE_STEER", "1")]).await;
    assert!(standin.problems().is_empty(), "{:?}", standin.problems());
    assert!(
        stdout.contains(r#"answered ["prompt one","prompt two"]"#),
        "{stdout}"
    );
}
