//! Background commands and TaskStop against an editor whose terminals live in memory.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::*;
use crate::domain::{
    EditorError, PermissionAsk, PermissionOutcome, SessionUpdate, TerminalCommand, TerminalExit,
    TerminalOutput,
};

/// Terminals whose commands print `output` and end with `exit` (never, when `None`) until killed.
#[derive(Default)]
struct Terminals {
    scripted: Mutex<HashMap<String, (String, Option<u32>)>>,
    running: Mutex<HashMap<String, String>>,
    killed: Mutex<Vec<String>>,
    released: Mutex<Vec<String>>,
}

impl Terminals {
    fn command_of(&self, id: &str) -> Result<(String, Option<u32>), EditorError> {
        let command = self
            .running
            .lock()
            .unwrap()
            .get(id)
            .cloned()
            .ok_or_else(|| EditorError::Rejected(format!("no terminal {id}")))?;
        Ok(self.scripted.lock().unwrap()[&command].clone())
    }
}

#[async_trait]
impl EditorClient for Terminals {
    fn session_update(&self, _: &str, _: SessionUpdate) {}
    async fn request_permission(&self, _: PermissionAsk) -> Result<PermissionOutcome, EditorError> {
        Err(EditorError::Closed)
    }
    async fn create_terminal(&self, _: &str, c: TerminalCommand) -> Result<String, EditorError> {
        let mut running = self.running.lock().unwrap();
        let id = format!("term-{}", running.len() + 1);
        running.insert(id.clone(), c.args[1].clone());
        Ok(id)
    }
    async fn terminal_output(&self, _: &str, id: &str) -> Result<TerminalOutput, EditorError> {
        let (output, exit) = self.command_of(id)?;
        let killed = self.killed.lock().unwrap().iter().any(|k| k == id);
        let exit = match (killed, exit) {
            (true, _) => Some(TerminalExit {
                code: None,
                signal: Some("SIGKILL".into()),
            }),
            (false, code) => code.map(|code| TerminalExit {
                code: Some(code),
                signal: None,
            }),
        };
        Ok(TerminalOutput {
            output,
            truncated: false,
            exit,
        })
    }
    async fn wait_for_terminal_exit(&self, _: &str, id: &str) -> Result<TerminalExit, EditorError> {
        match self.command_of(id)?.1 {
            Some(code) => Ok(TerminalExit {
                code: Some(code),
                signal: None,
            }),
            // Runs until killed; the caller's timeout ends the wait.
            None => std::future::pending().await,
        }
    }
    async fn kill_terminal(&self, _: &str, id: &str) -> Result<(), EditorError> {
        self.killed.lock().unwrap().push(id.to_owned());
        Ok(())
    }
    async fn release_terminal(&self, _: &str, id: &str) -> Result<(), EditorError> {
        self.running.lock().unwrap().remove(id);
        self.released.lock().unwrap().push(id.to_owned());
        Ok(())
    }
}

fn setup(scripted: &[(&str, &str, Option<u32>)]) -> (Arc<Terminals>, EditorTerminal) {
    let editor = Arc::new(Terminals::default());
    for (command, output, exit) in scripted {
        editor
            .scripted
            .lock()
            .unwrap()
            .insert(command.to_string(), (output.to_string(), *exit));
    }
    let terminal = EditorTerminal::new(
        editor.clone(),
        "s-terminal-tests".into(),
        std::env::temp_dir(),
        vec![std::env::temp_dir()],
        Arc::default(),
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
    assert!(editor.released.lock().unwrap().is_empty(), "still running");

    let stopped = terminal
        .call("TaskStop", &json!({"task_id": id}), None)
        .await;
    assert_eq!(stopped["isError"], false);
    let answer: Value = serde_json::from_str(&text_of(&stopped)).unwrap();
    assert_eq!(
        answer["message"],
        format!("Successfully stopped task: {id} (npm run dev)")
    );
    assert_eq!(*editor.killed.lock().unwrap(), ["term-1"]);
    assert_eq!(*editor.released.lock().unwrap(), ["term-1"]);
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
    wait_for(|| !editor.released.lock().unwrap().is_empty()).await;
    assert_eq!(*editor.released.lock().unwrap(), ["term-1"]);
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
    wait_for(|| !editor.released.lock().unwrap().is_empty()).await;
    assert_eq!(*editor.killed.lock().unwrap(), ["term-1"]);
    assert_eq!(*editor.released.lock().unwrap(), ["term-1"]);
    let _ = std::fs::remove_file(file);
}

#[tokio::test]
async fn a_background_command_past_its_timeout_is_killed() {
    let (editor, terminal) = setup(&[("npm run watch", "watching\n", None)]);
    let input = json!({"command": "npm run watch", "run_in_background": true, "timeout": 300});
    let (_, file) = started(&terminal.call("Bash", &input, None).await);
    wait_for(|| !editor.released.lock().unwrap().is_empty()).await;
    assert_eq!(*editor.killed.lock().unwrap(), ["term-1"]);
    assert_eq!(*editor.released.lock().unwrap(), ["term-1"]);
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
    assert!(editor.killed.lock().unwrap().is_empty(), "it runs on");
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
    assert_eq!(*editor.released.lock().unwrap(), ["term-1"]);
}

/// An editor whose terminals really run the command (to the end, at `terminal/create`).
#[derive(Default)]
struct RealShell {
    ran: Mutex<HashMap<String, (String, u32)>>,
    cwds: Mutex<Vec<std::path::PathBuf>>,
}

#[async_trait]
impl EditorClient for RealShell {
    fn session_update(&self, _: &str, _: SessionUpdate) {}
    async fn request_permission(&self, _: PermissionAsk) -> Result<PermissionOutcome, EditorError> {
        Err(EditorError::Closed)
    }
    async fn create_terminal(&self, _: &str, c: TerminalCommand) -> Result<String, EditorError> {
        let out = std::process::Command::new(&c.command)
            .args(&c.args)
            .envs(c.env)
            .current_dir(&c.cwd)
            .output()
            .map_err(|e| EditorError::Rejected(e.to_string()))?;
        self.cwds.lock().unwrap().push(c.cwd);
        let mut ran = self.ran.lock().unwrap();
        let id = format!("term-{}", ran.len() + 1);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let code = out.status.code().unwrap_or(1) as u32;
        ran.insert(id.clone(), (text, code));
        Ok(id)
    }
    async fn terminal_output(&self, _: &str, id: &str) -> Result<TerminalOutput, EditorError> {
        let (output, code) = self.ran.lock().unwrap()[id].clone();
        Ok(TerminalOutput {
            output,
            truncated: false,
            exit: Some(TerminalExit {
                code: Some(code),
                signal: None,
            }),
        })
    }
    async fn wait_for_terminal_exit(&self, _: &str, id: &str) -> Result<TerminalExit, EditorError> {
        Ok(TerminalExit {
            code: Some(self.ran.lock().unwrap()[id].1),
            signal: None,
        })
    }
    async fn kill_terminal(&self, _: &str, _: &str) -> Result<(), EditorError> {
        Ok(())
    }
    async fn release_terminal(&self, _: &str, _: &str) -> Result<(), EditorError> {
        Ok(())
    }
}

#[tokio::test]
async fn cd_carries_over_to_the_next_command_inside_the_workspace_only() {
    let work = std::env::temp_dir().join(format!("editor-terminal-cd-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(work.join("sub")).unwrap();
    let work = std::fs::canonicalize(&work).unwrap();
    let editor = Arc::new(RealShell::default());
    let terminal = EditorTerminal::new(
        editor.clone(),
        "s-cd".into(),
        work.clone(),
        vec![work.clone()],
        Arc::default(),
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
    let cwds = editor.cwds.lock().unwrap().clone();
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
