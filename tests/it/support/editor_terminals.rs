//! A scripted editor's terminals for Bash in the editor (issue 12): `terminal/*` answered from
//! memory. Each command has a scripted output and exit code; every request is recorded, so a test
//! can tell which terminals were killed and released.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;

/// claude's Bash rules in the project's settings (`.claude/settings.local.json` under `work`), as
/// the editor_terminal scenarios expect them: `make lint` allowed, `rm -rf` denied.
pub fn write_bash_rules(work: &std::path::Path) {
    let settings = work.join(".claude");
    std::fs::create_dir_all(&settings).unwrap();
    std::fs::write(
        settings.join("settings.local.json"),
        r#"{"permissions": {"allow": ["Bash(make lint)"], "deny": ["Bash(rm -rf:*)"]}}"#,
    )
    .unwrap();
}

/// Client capabilities with a terminal (and no file system).
pub fn terminal_capabilities() -> Value {
    json!({"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": true})
}

#[derive(Default)]
struct State {
    /// command -> (output, exit code).
    scripted: HashMap<String, (String, u32)>,
    /// terminal id -> the command it runs.
    running: HashMap<String, String>,
    killed: Vec<String>,
    released: Vec<String>,
    /// (command, cwd) of each terminal/create.
    created: Vec<(String, String)>,
    /// The program of each terminal/create (`bash`, `powershell`, `pwsh`).
    programs: Vec<String>,
}

#[derive(Clone, Default)]
pub struct Terminals {
    state: Arc<Mutex<State>>,
}

impl Terminals {
    /// `bash -c <command>` (or claude.exe's PowerShell command line for it) prints `output` and
    /// exits with `code`.
    pub fn script(&self, command: &str, output: &str, code: u32) {
        self.state
            .lock()
            .unwrap()
            .scripted
            .insert(command.to_owned(), (output.to_owned(), code));
    }

    pub fn created(&self) -> Vec<(String, String)> {
        self.state.lock().unwrap().created.clone()
    }

    pub fn programs(&self) -> Vec<String> {
        self.state.lock().unwrap().programs.clone()
    }

    pub fn killed(&self) -> Vec<String> {
        self.state.lock().unwrap().killed.clone()
    }

    pub fn released(&self) -> Vec<String> {
        self.state.lock().unwrap().released.clone()
    }

    /// Waits up to 5 s for a first `terminal/release` (sent from a task of the adapter's own).
    pub async fn wait_for_a_release(&self) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while self.released().is_empty() && std::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// Answers the client's `terminal/*` requests from now on; `terminal/wait_for_exit` too unless
    /// the test holds it (a command that runs until killed).
    pub fn serve(&self, c: &AcpClient) {
        let state = self.state.clone();
        c.on_request("terminal/create", move |params| {
            let mut s = state.lock().unwrap();
            let args: Vec<&str> = params["args"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let env = params["env"].to_string();
            let program = params["command"].as_str().unwrap_or_default();
            let command = match (program, args.as_slice()) {
                ("bash", ["-c", command]) => Some(*command),
                // claude.exe's PowerShell command line: its flags, then the command with its
                // exit-code (and directory) suffix.
                (
                    "powershell" | "pwsh",
                    [
                        "-NoProfile",
                        "-NonInteractive",
                        "-ExecutionPolicy",
                        "Bypass",
                        "-Command",
                        command,
                    ],
                ) => command
                    .split_once("\n; $_ec = if ($null -ne $LASTEXITCODE)")
                    .filter(|(_, suffix)| suffix.ends_with("exit $_ec"))
                    .map(|(command, _)| command),
                _ => None,
            };
            let Some(command) =
                command.filter(|_| env.contains(r#"{"name":"GIT_EDITOR","value":"true"}"#))
            else {
                return Err((-32602, format!("unexpected command: {params}")));
            };
            s.programs.push(program.to_owned());
            let id = format!("term-{}", s.created.len() + 1);
            let cwd = params["cwd"].as_str().unwrap_or_default().to_owned();
            s.created.push((command.to_owned(), cwd));
            s.running.insert(id.clone(), command.to_owned());
            Ok(json!({"terminalId": id}))
        });
        let state = self.state.clone();
        c.on_request("terminal/output", move |params| {
            let s = state.lock().unwrap();
            let id = params["terminalId"].as_str().unwrap_or_default();
            let command = s
                .running
                .get(id)
                .ok_or((-32002, format!("no terminal {id}")))?;
            let (output, code) = s.scripted.get(command).cloned().unwrap_or_default();
            let exit = if s.killed.iter().any(|k| k == id) {
                json!({"exitCode": null, "signal": "SIGKILL"})
            } else if s.scripted.contains_key(command) {
                json!({"exitCode": code, "signal": null})
            } else {
                Value::Null
            };
            Ok(json!({"output": output, "truncated": false, "exitStatus": exit}))
        });
        let state = self.state.clone();
        c.on_request("terminal/wait_for_exit", move |params| {
            let s = state.lock().unwrap();
            let id = params["terminalId"].as_str().unwrap_or_default();
            let command = s
                .running
                .get(id)
                .ok_or((-32002, format!("no terminal {id}")))?;
            match s.scripted.get(command) {
                Some((_, code)) => Ok(json!({"exitCode": code, "signal": null})),
                None => Err((-32603, format!("{command} never ends: hold this request"))),
            }
        });
        let state = self.state.clone();
        c.on_request("terminal/kill", move |params| {
            let id = params["terminalId"].as_str().unwrap_or_default().to_owned();
            state.lock().unwrap().killed.push(id);
            Ok(json!({}))
        });
        let state = self.state.clone();
        c.on_request("terminal/release", move |params| {
            let mut s = state.lock().unwrap();
            let id = params["terminalId"].as_str().unwrap_or_default().to_owned();
            s.running.remove(&id);
            s.released.push(id);
            Ok(json!({}))
        });
    }
}
