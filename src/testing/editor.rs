//! The one test editor: it records every request it is sent, in order, and answers each method as
//! the test configured it. Unconfigured, it is an editor with no file system, no terminal and no
//! forms whose connection closes at the first permission ask, which is what most tests need; each
//! `with_*` adds one capability.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::mpsc;

use crate::domain::{
    EditorClient, EditorError, ElicitationOutcome, ElicitationRequest, McpRelayNotification,
    McpRelayOutcome, McpRelayRequest, PermissionAsk, PermissionOutcome, SessionUpdate,
    TerminalCommand, TerminalExit, TerminalOutput,
};

/// One request the editor was sent (notifications are [`TestEditor::updates`]).
#[derive(Debug, Clone, PartialEq)]
pub enum EditorRequest {
    Permission(PermissionAsk),
    Form(ElicitationRequest),
    ReadTextFile(PathBuf),
    WriteTextFile(PathBuf, String),
    CreateTerminal(TerminalCommand),
    TerminalOutput(String),
    WaitForTerminalExit(String),
    KillTerminal(String),
    ReleaseTerminal(String),
    McpMessage(McpRelayRequest),
}

type PermissionAnswer =
    Box<dyn FnMut(&PermissionAsk) -> Result<PermissionOutcome, EditorError> + Send>;
type Answers<T> = Mutex<VecDeque<Result<T, EditorError>>>;
/// One `mcp/message` answer: the server's notifications first, then its outcome.
type McpAnswer = (
    Vec<McpRelayNotification>,
    Result<McpRelayOutcome, EditorError>,
);

/// What runs a command sent to `terminal/create`.
enum Shell {
    /// The editor has no terminal.
    None,
    /// Command line -> what it prints and how it ends (`None`: it runs until killed).
    Scripted(HashMap<String, (String, Option<u32>)>),
    /// The command really runs, to its end, when the terminal is created.
    Real,
}

/// A terminal the editor holds until it is released.
struct Terminal {
    output: String,
    exit: Option<u32>,
    killed: bool,
}

pub struct TestEditor {
    permission: Mutex<PermissionAnswer>,
    /// `Some` when the editor declares forms: their answers, in order (then: connection closed).
    forms: Option<Answers<ElicitationOutcome>>,
    text_files: bool,
    buffers: Mutex<HashMap<PathBuf, String>>,
    refuse_reads: Mutex<Option<String>>,
    read_only: Option<PathBuf>,
    write_answer_after: Option<Duration>,
    shell: Shell,
    terminals: Mutex<HashMap<String, Terminal>>,
    created_terminals: Mutex<usize>,
    mcp_answers: Mutex<VecDeque<McpAnswer>>,
    requests: Mutex<Vec<EditorRequest>>,
    updates: Mutex<Vec<SessionUpdate>>,
    update_stream: Mutex<Option<mpsc::UnboundedSender<SessionUpdate>>>,
}

impl Default for TestEditor {
    fn default() -> Self {
        Self {
            permission: Mutex::new(Box::new(|_| Err(EditorError::Closed))),
            forms: None,
            text_files: false,
            buffers: Mutex::default(),
            refuse_reads: Mutex::default(),
            read_only: None,
            write_answer_after: None,
            shell: Shell::None,
            terminals: Mutex::default(),
            created_terminals: Mutex::default(),
            mcp_answers: Mutex::default(),
            requests: Mutex::default(),
            updates: Mutex::default(),
            update_stream: Mutex::default(),
        }
    }
}

impl TestEditor {
    /// Answers permission asks in this order (then: connection closed).
    pub fn answering(answers: Vec<Result<PermissionOutcome, EditorError>>) -> Self {
        let mut answers = VecDeque::from(answers);
        Self {
            permission: Mutex::new(Box::new(move |_| {
                answers.pop_front().unwrap_or(Err(EditorError::Closed))
            })),
            ..Self::default()
        }
    }

    /// Answers every permission ask with the option `choose` picks by looking at it.
    pub fn choosing(choose: impl Fn(&PermissionAsk) -> String + Send + 'static) -> Self {
        Self {
            permission: Mutex::new(Box::new(move |ask| {
                Ok(PermissionOutcome::Selected {
                    option_id: choose(ask),
                })
            })),
            ..Self::default()
        }
    }

    /// Answers `mcp/message` requests in this order (then: connection closed).
    pub fn with_mcp_answers(self, answers: Vec<McpAnswer>) -> Self {
        Self {
            mcp_answers: Mutex::new(answers.into()),
            ..self
        }
    }

    /// Declares form elicitation and answers forms in this order (then: connection closed).
    pub fn with_forms(self, answers: Vec<Result<ElicitationOutcome, EditorError>>) -> Self {
        Self {
            forms: Some(Mutex::new(answers.into())),
            ..self
        }
    }

    /// Declares `fs/*` and serves them from buffers in memory: a read gets the buffer ("not open"
    /// when there is none), a write changes the buffer only.
    pub fn with_buffers(self) -> Self {
        Self {
            text_files: true,
            ..self
        }
    }

    /// Writes to this path's buffer fail (a read-only buffer).
    pub fn with_read_only(self, path: impl Into<PathBuf>) -> Self {
        Self {
            read_only: Some(path.into()),
            ..self
        }
    }

    /// Each write is answered after this long (the editor's user deciding whether to allow it).
    pub fn with_writes_answered_after(self, after: Duration) -> Self {
        Self {
            write_answer_after: Some(after),
            ..self
        }
    }

    /// Declares `terminal` with commands that print `output` and end with `exit` (never, when
    /// `None`, until killed), each named by its command line.
    pub fn with_scripted_terminals(self, script: &[(&str, &str, Option<u32>)]) -> Self {
        let script = script
            .iter()
            .map(|(command, output, exit)| (command.to_string(), (output.to_string(), *exit)))
            .collect();
        Self {
            shell: Shell::Scripted(script),
            ..self
        }
    }

    /// Declares `terminal` and really runs each command, to its end, at `terminal/create`.
    pub fn with_real_shell(self) -> Self {
        Self {
            shell: Shell::Real,
            ..self
        }
    }

    /// From now on, every session update also goes to the receiver this returns.
    pub fn updates_from_now(&self) -> mpsc::UnboundedReceiver<SessionUpdate> {
        let (sender, receiver) = mpsc::unbounded_channel();
        *self.update_stream.lock().unwrap() = Some(sender);
        receiver
    }

    /// From now on, every read fails with this message.
    pub fn refuse_reads(&self, message: &str) {
        *self.refuse_reads.lock().unwrap() = Some(message.to_owned());
    }

    /// Puts this text in the path's buffer, as if the user had typed it.
    pub fn set_buffer(&self, path: impl Into<PathBuf>, text: &str) {
        self.buffers
            .lock()
            .unwrap()
            .insert(path.into(), text.to_owned());
    }

    /// The text of the path's buffer, if the editor has one.
    pub fn buffer(&self, path: &Path) -> Option<String> {
        self.buffers.lock().unwrap().get(path).cloned()
    }

    /// Every request so far, in the order sent.
    pub fn requests(&self) -> Vec<EditorRequest> {
        self.requests.lock().unwrap().clone()
    }

    /// Every session update so far.
    pub fn updates(&self) -> Vec<SessionUpdate> {
        self.updates.lock().unwrap().clone()
    }

    /// The permission asks so far.
    pub fn asks(&self) -> Vec<PermissionAsk> {
        self.picked(|request| match request {
            EditorRequest::Permission(ask) => Some(ask.clone()),
            _ => None,
        })
    }

    /// The option names of the `n`-th permission ask.
    pub fn option_names(&self, n: usize) -> Vec<String> {
        self.asks()[n]
            .options
            .iter()
            .map(|o| o.name.clone())
            .collect()
    }

    /// The forms shown so far.
    pub fn forms(&self) -> Vec<ElicitationRequest> {
        self.picked(|request| match request {
            EditorRequest::Form(form) => Some(form.clone()),
            _ => None,
        })
    }

    /// The writes sent so far: path and text.
    pub fn writes(&self) -> Vec<(PathBuf, String)> {
        self.picked(|request| match request {
            EditorRequest::WriteTextFile(path, text) => Some((path.clone(), text.clone())),
            _ => None,
        })
    }

    /// The working directory of each command sent to a terminal, in order.
    pub fn terminal_cwds(&self) -> Vec<PathBuf> {
        self.picked(|request| match request {
            EditorRequest::CreateTerminal(command) => Some(command.cwd.clone()),
            _ => None,
        })
    }

    /// The terminals killed so far, in order.
    pub fn killed(&self) -> Vec<String> {
        self.picked(|request| match request {
            EditorRequest::KillTerminal(id) => Some(id.clone()),
            _ => None,
        })
    }

    /// The terminals released so far, in order.
    pub fn released(&self) -> Vec<String> {
        self.picked(|request| match request {
            EditorRequest::ReleaseTerminal(id) => Some(id.clone()),
            _ => None,
        })
    }

    fn picked<T>(&self, pick: impl Fn(&EditorRequest) -> Option<T>) -> Vec<T> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .filter_map(pick)
            .collect()
    }

    fn record(&self, request: EditorRequest) {
        self.requests.lock().unwrap().push(request);
    }

    /// The terminal's output and how it ended (`None`: still running).
    fn terminal(&self, id: &str) -> Result<(String, Option<TerminalExit>), EditorError> {
        let terminals = self.terminals.lock().unwrap();
        let terminal = terminals
            .get(id)
            .ok_or_else(|| EditorError::Rejected(format!("no terminal {id}")))?;
        let exit = match (terminal.killed, terminal.exit) {
            (true, _) => Some(TerminalExit {
                code: None,
                signal: Some("SIGKILL".into()),
            }),
            (false, code) => code.map(|code| TerminalExit {
                code: Some(code),
                signal: None,
            }),
        };
        Ok((terminal.output.clone(), exit))
    }

    /// Runs the command as the configured shell does: what it prints and its exit code.
    fn run(&self, command: &TerminalCommand) -> Result<(String, Option<u32>), EditorError> {
        match &self.shell {
            Shell::None => Err(EditorError::Unsupported("terminal/create")),
            Shell::Scripted(script) => {
                let line = command.args.last().cloned().unwrap_or_default();
                script
                    .get(&line)
                    .cloned()
                    .ok_or_else(|| EditorError::Rejected(format!("no script for `{line}`")))
            }
            Shell::Real => {
                let out = std::process::Command::new(&command.command)
                    .args(&command.args)
                    .envs(command.env.clone())
                    .current_dir(&command.cwd)
                    .output()
                    .map_err(|e| EditorError::Rejected(e.to_string()))?;
                let text = String::from_utf8_lossy(&out.stdout).into_owned();
                Ok((text, Some(out.status.code().unwrap_or(1) as u32)))
            }
        }
    }
}

#[async_trait]
impl EditorClient for TestEditor {
    fn session_update(&self, _session_id: &str, update: SessionUpdate) {
        if let Some(stream) = &*self.update_stream.lock().unwrap() {
            let _ = stream.send(update.clone());
        }
        self.updates.lock().unwrap().push(update);
    }

    async fn request_permission(
        &self,
        ask: PermissionAsk,
    ) -> Result<PermissionOutcome, EditorError> {
        let answer = (self.permission.lock().unwrap())(&ask);
        self.record(EditorRequest::Permission(ask));
        answer
    }

    fn supports_elicitation(&self) -> bool {
        self.forms.is_some()
    }

    async fn elicit(&self, request: ElicitationRequest) -> Result<ElicitationOutcome, EditorError> {
        self.record(EditorRequest::Form(request));
        let answer = self
            .forms
            .as_ref()
            .and_then(|f| f.lock().unwrap().pop_front());
        answer.unwrap_or(Err(EditorError::Closed))
    }

    fn supports_text_files(&self) -> bool {
        self.text_files
    }

    async fn read_text_file(&self, _: &str, path: &Path) -> Result<String, EditorError> {
        self.record(EditorRequest::ReadTextFile(path.to_path_buf()));
        if !self.text_files {
            return Err(EditorError::Unsupported("fs/read_text_file"));
        }
        if let Some(message) = self.refuse_reads.lock().unwrap().clone() {
            return Err(EditorError::Rejected(message));
        }
        self.buffer(path)
            .ok_or_else(|| EditorError::Rejected("not open".into()))
    }

    async fn write_text_file(
        &self,
        _: &str,
        path: &Path,
        content: String,
    ) -> Result<(), EditorError> {
        self.record(EditorRequest::WriteTextFile(
            path.to_path_buf(),
            content.clone(),
        ));
        if !self.text_files {
            return Err(EditorError::Unsupported("fs/write_text_file"));
        }
        if let Some(after) = self.write_answer_after {
            tokio::time::sleep(after).await;
        }
        if self.read_only.as_deref() == Some(path) {
            return Err(EditorError::Rejected("read-only buffer".into()));
        }
        self.set_buffer(path, &content);
        Ok(())
    }

    fn supports_terminal(&self) -> bool {
        !matches!(self.shell, Shell::None)
    }

    async fn create_terminal(
        &self,
        _: &str,
        command: TerminalCommand,
    ) -> Result<String, EditorError> {
        self.record(EditorRequest::CreateTerminal(command.clone()));
        let (output, exit) = self.run(&command)?;
        let mut created = self.created_terminals.lock().unwrap();
        *created += 1;
        let id = format!("term-{created}");
        let terminal = Terminal {
            output,
            exit,
            killed: false,
        };
        self.terminals.lock().unwrap().insert(id.clone(), terminal);
        Ok(id)
    }

    async fn terminal_output(&self, _: &str, id: &str) -> Result<TerminalOutput, EditorError> {
        self.record(EditorRequest::TerminalOutput(id.to_owned()));
        let (output, exit) = self.terminal(id)?;
        Ok(TerminalOutput {
            output,
            truncated: false,
            exit,
        })
    }

    async fn wait_for_terminal_exit(&self, _: &str, id: &str) -> Result<TerminalExit, EditorError> {
        self.record(EditorRequest::WaitForTerminalExit(id.to_owned()));
        let exit = self.terminals.lock().unwrap().get(id).map(|t| t.exit);
        match exit {
            None => Err(EditorError::Rejected(format!("no terminal {id}"))),
            Some(Some(code)) => Ok(TerminalExit {
                code: Some(code),
                signal: None,
            }),
            // Runs until killed; the caller's timeout ends the wait.
            Some(None) => std::future::pending().await,
        }
    }

    async fn kill_terminal(&self, _: &str, id: &str) -> Result<(), EditorError> {
        self.record(EditorRequest::KillTerminal(id.to_owned()));
        if let Some(terminal) = self.terminals.lock().unwrap().get_mut(id) {
            terminal.killed = true;
        }
        Ok(())
    }

    async fn release_terminal(&self, _: &str, id: &str) -> Result<(), EditorError> {
        self.record(EditorRequest::ReleaseTerminal(id.to_owned()));
        self.terminals.lock().unwrap().remove(id);
        Ok(())
    }

    async fn mcp_message(
        &self,
        request: McpRelayRequest,
        notifications: mpsc::Sender<McpRelayNotification>,
    ) -> Result<McpRelayOutcome, EditorError> {
        self.record(EditorRequest::McpMessage(request));
        let answer = self.mcp_answers.lock().unwrap().pop_front();
        let Some((notes, outcome)) = answer else {
            return Err(EditorError::Closed);
        };
        for note in notes {
            let _ = notifications.send(note).await;
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ls() -> TerminalCommand {
        TerminalCommand {
            command: "bash".into(),
            args: vec!["-c".into(), "ls".into()],
            env: vec![],
            cwd: "/w".into(),
            output_byte_limit: 1024,
        }
    }

    fn ask() -> PermissionAsk {
        PermissionAsk {
            session_id: "s".into(),
            tool_call: Default::default(),
            options: vec![],
            reason: None,
        }
    }

    #[tokio::test]
    async fn unconfigured_it_declares_nothing_and_its_connection_closes_at_the_first_ask() {
        let editor = TestEditor::default();
        assert!(!editor.supports_text_files());
        assert!(!editor.supports_terminal());
        assert!(!editor.supports_elicitation());
        assert_eq!(
            editor.request_permission(ask()).await,
            Err(EditorError::Closed)
        );
        assert_eq!(
            editor.read_text_file("s", Path::new("/w/a")).await,
            Err(EditorError::Unsupported("fs/read_text_file"))
        );
        assert_eq!(
            editor.requests(),
            [
                EditorRequest::Permission(ask()),
                EditorRequest::ReadTextFile("/w/a".into())
            ]
        );
    }

    #[tokio::test]
    async fn it_records_every_request_in_order_and_answers_each_as_configured() {
        let editor = TestEditor::answering(vec![Err(EditorError::Rejected("no".into()))])
            .with_buffers()
            .with_scripted_terminals(&[("ls", "a\n", Some(0))]);
        let no = Err(EditorError::Rejected("no".into()));
        assert_eq!(editor.request_permission(ask()).await, no);
        let closed = Err(EditorError::Closed);
        assert_eq!(editor.request_permission(ask()).await, closed);
        let a = Path::new("/w/a");
        assert_eq!(
            editor.read_text_file("s", a).await,
            Err(EditorError::Rejected("not open".into()))
        );
        editor
            .write_text_file("s", a, "one\n".into())
            .await
            .unwrap();
        assert_eq!(editor.read_text_file("s", a).await.unwrap(), "one\n");
        let id = editor.create_terminal("s", ls()).await.unwrap();
        assert_eq!(
            editor.terminal_output("s", &id).await.unwrap().output,
            "a\n"
        );
        editor.kill_terminal("s", &id).await.unwrap();
        let killed = editor.terminal_output("s", &id).await.unwrap().exit;
        assert_eq!(killed.unwrap().signal.as_deref(), Some("SIGKILL"));
        editor.release_terminal("s", &id).await.unwrap();
        assert!(editor.terminal_output("s", &id).await.is_err(), "released");
        assert_eq!(
            editor.requests(),
            [
                EditorRequest::Permission(ask()),
                EditorRequest::Permission(ask()),
                EditorRequest::ReadTextFile(a.into()),
                EditorRequest::WriteTextFile(a.into(), "one\n".into()),
                EditorRequest::ReadTextFile(a.into()),
                EditorRequest::CreateTerminal(ls()),
                EditorRequest::TerminalOutput("term-1".into()),
                EditorRequest::KillTerminal("term-1".into()),
                EditorRequest::TerminalOutput("term-1".into()),
                EditorRequest::ReleaseTerminal("term-1".into()),
                EditorRequest::TerminalOutput("term-1".into()),
            ]
        );
        assert_eq!(editor.writes(), [(a.to_path_buf(), "one\n".to_owned())]);
        assert_eq!(
            (editor.killed(), editor.released()),
            (vec![id.clone()], vec![id])
        );
        assert_eq!(editor.terminal_cwds(), [PathBuf::from("/w")]);
    }
}
