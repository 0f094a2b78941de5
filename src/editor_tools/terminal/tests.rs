//! Background commands and TaskStop against the test editor's scripted terminals, and `cd`
//! against its real shell.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::*;
use crate::testing::TestEditor;

fn setup(scripted: &[(&str, &str, Option<u32>)]) -> (Arc<TestEditor>, EditorTerminal) {
    let editor = Arc::new(TestEditor::default().with_scripted_terminals(scripted));
    let terminal = EditorTerminal::new(
        editor.clone(),
        "s-terminal-tests".into(),
        std::env::temp_dir(),
        vec![std::env::temp_dir()],
        Arc::default(),
        CommandShell::Bash,
    );
    (editor, terminal)
}

fn text_of(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

/// The id and output file a background start names.
fn started(result: &Value) -> (String, std::path::PathBuf) {
    let text = text_of(result);
    let id = text
        .strip_prefix("Command running in background with ID: ")
        .and_then(|rest| rest.split('.').next())
        .unwrap_or_else(|| panic!("{text}"))
        .to_owned();
    let file = text
        .split("Output is being written to: ")
        .nth(1)
        .and_then(|rest| rest.split(". To check").next())
        .unwrap()
        .into();
    (id, file)
}

async fn wait_for(what: impl Fn() -> bool) {
    for _ in 0..100 {
        if what() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_background_command_writes_its_output_file_and_task_stop_kills_it() {
    let (editor, terminal) = setup(&[("npm run dev", "listening on 3000\r\n", None)]);
    let input = json!({"command": "npm run dev", "run_in_background": true});
    let result = terminal.call("Bash", &input, Some("toolu_bg")).await;
    assert_eq!(result["isError"], false);
    let (id, file) = started(&result);
    assert!(id.starts_with('b') && id.len() == 9, "{id}");
    wait_for(|| std::fs::read_to_string(&file).is_ok_and(|t| t.contains("listening"))).await;
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "listening on 3000\n"
    );
    assert!(editor.released().is_empty(), "still running");

    let stopped = terminal
        .call("TaskStop", &json!({"task_id": id}), None)
        .await;
    assert_eq!(stopped["isError"], false);
    let answer: Value = serde_json::from_str(&text_of(&stopped)).unwrap();
    assert_eq!(
        answer["message"],
        format!("Successfully stopped task: {id} (npm run dev)")
    );
    assert_eq!(editor.killed(), ["term-1"]);
    assert_eq!(editor.released(), ["term-1"]);
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .ends_with("[killed]\n")
    );

    // Stopped once: the id is no longer ours, and no claude runs to know it.
    let again = terminal
        .call("TaskStop", &json!({"task_id": id}), None)
        .await;
    assert_eq!(again["isError"], true);
    assert!(text_of(&again).contains(&format!("No task found with ID: {id}")));
    let _ = std::fs::remove_file(file);
}

#[tokio::test]
async fn a_background_command_that_ends_leaves_its_exit_code_and_frees_its_terminal() {
    let (editor, terminal) = setup(&[("make build", "built\n", Some(2))]);
    let input = json!({"command": "make build", "run_in_background": true});
    let (_, file) = started(&terminal.call("Bash", &input, None).await);
    wait_for(|| !editor.released().is_empty()).await;
    assert_eq!(editor.released(), ["term-1"]);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "built\n\n[exited with code 2]\n"
    );
    let _ = std::fs::remove_file(file);
}

#[tokio::test]
async fn claudes_end_ends_the_background_commands() {
    let (editor, terminal) = setup(&[("tail -f log", "", None)]);
    let input = json!({"command": "tail -f log", "run_in_background": true});
    let (_, file) = started(&terminal.call("Bash", &input, None).await);
    terminal.end_background();
    wait_for(|| !editor.released().is_empty()).await;
    assert_eq!(editor.killed(), ["term-1"]);
    assert_eq!(editor.released(), ["term-1"]);
    let _ = std::fs::remove_file(file);
}

#[tokio::test]
async fn a_background_command_past_its_timeout_is_killed() {
    let (editor, terminal) = setup(&[("npm run watch", "watching\n", None)]);
    let input = json!({"command": "npm run watch", "run_in_background": true, "timeout": 300});
    let (_, file) = started(&terminal.call("Bash", &input, None).await);
    wait_for(|| !editor.released().is_empty()).await;
    assert_eq!(editor.killed(), ["term-1"]);
    assert_eq!(editor.released(), ["term-1"]);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "watching\n\n[killed: still running after its 300ms timeout]\n"
    );
    let _ = std::fs::remove_file(file);
}

#[tokio::test]
async fn a_foreground_command_past_its_timeout_after_some_output_moves_to_the_background() {
    let (editor, terminal) = setup(&[("npm run dev", "ready on 3000\n", None)]);
    let input = json!({"command": "npm run dev", "timeout": 200});
    let result = terminal.call("Bash", &input, None).await;
    let text = text_of(&result);
    assert_eq!(result["isError"], false);
    assert!(
        text.starts_with("ready on 3000\nCommand did not complete within its 200ms timeout and was moved to the background (ID: b"),
        "{text}"
    );
    assert!(editor.killed().is_empty(), "it runs on");
    let id = text
        .split("(ID: ")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    let stopped = terminal
        .call("TaskStop", &json!({"task_id": id}), None)
        .await;
    assert_eq!(stopped["isError"], false);
    assert_eq!(editor.released(), ["term-1"]);
}

#[tokio::test]
async fn cd_carries_over_to_the_next_command_inside_the_workspace_only() {
    let work = std::env::temp_dir().join(format!("editor-terminal-cd-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(work.join("sub")).unwrap();
    let work = std::fs::canonicalize(&work).unwrap();
    let editor = Arc::new(TestEditor::default().with_real_shell());
    let terminal = EditorTerminal::new(
        editor.clone(),
        "s-cd".into(),
        work.clone(),
        vec![work.clone()],
        Arc::default(),
        CommandShell::Bash,
    );
    let bash = |command: &str| json!({"command": command});
    let sub = work.join("sub").display().to_string();
    assert_eq!(
        text_of(&terminal.call("Bash", &bash("cd sub"), None).await),
        "(Bash completed with no output)"
    );
    assert_eq!(
        text_of(&terminal.call("Bash", &bash("pwd"), None).await),
        sub
    );
    // Outside the workspace: back to the start, as claude says.
    assert_eq!(
        text_of(&terminal.call("Bash", &bash("cd / && pwd"), None).await),
        format!("/\nShell cwd was reset to {}", work.display())
    );
    assert_eq!(
        text_of(&terminal.call("Bash", &bash("pwd"), None).await),
        work.display().to_string()
    );
    let cwds = editor.terminal_cwds();
    assert_eq!(
        cwds,
        [
            work.clone(),
            work.join("sub"),
            work.join("sub"),
            work.clone()
        ]
    );
    terminal.end_background();
    std::fs::remove_dir_all(&work).unwrap();
}
