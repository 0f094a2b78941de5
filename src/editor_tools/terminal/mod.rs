//! claude's command tool, Bash or claude for Windows' PowerShell, run in the editor's terminal
//! (`terminal/create`, `terminal/output`, `terminal/wait_for_exit`, `terminal/kill`,
//! `terminal/release`): tools of the `acp` MCP server (see [`crate::editor_tools::server`]) with
//! the names, schemas and descriptions of claude's own command tool and TaskStop, while those
//! built-ins are turned off for the session (`--disallowedTools`).
//!
//! [`shell`] says which command tool and how it starts, [`run`] runs commands, [`output`] says
//! what the model gets back, in claude's words.

mod output;
mod run;
mod shell;
mod shell_cwd;

pub(crate) use shell::CommandShell;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::claude::ClaudeHandle;
use crate::claude::sdk_mcp::{self, McpContent, McpTool};
use crate::domain::EditorClient;

/// The tools of this module, by the built-in names the `acp` server serves them under (one of
/// the two command tools for a session, as its [`CommandShell`] says).
pub(crate) const TOOL_NAMES: [&str; 3] = crate::domain::tool_names::TERMINAL_TOOLS;

/// How long claude may take to answer a `stop_task` for a TaskStop of one of its own tasks.
const STOP_TASK_TIMEOUT: Duration = Duration::from_secs(30);

/// The built-in tool definitions the pinned claude sends the model, captured from its API request.
const BUILTIN_TOOLS: &str = include_str!("../../../fixtures/editor_terminal/builtin_tools.json");

/// One background command (`run_in_background`).
struct Shell {
    terminal_id: String,
    command: String,
    /// The tool call that started it, whose card follows it to its end.
    tool_use_id: Option<String>,
    output_file: PathBuf,
    /// The task that copies the terminal's output into `output_file` until the command ends.
    copier: tokio::task::AbortHandle,
}

/// One session's command tool: cheap to clone into the task that runs a call.
#[derive(Clone)]
pub(crate) struct EditorTerminal {
    editor: Arc<dyn EditorClient>,
    session_id: String,
    shell: CommandShell,
    /// Where the next foreground command starts (`cd` carries over).
    shell_cwd: Arc<shell_cwd::ShellCwd>,
    /// Tool calls that embed a terminal: their content stays the terminal when claude's result
    /// arrives (the actor leaves it alone).
    embedded: Arc<Mutex<HashSet<String>>>,
    shells: Arc<Mutex<HashMap<String, Shell>>>,
    /// The cards of background commands, by tool call: kept `in_progress` while the command runs.
    cards: Arc<Mutex<HashMap<String, Card>>>,
    /// The running claude, for a TaskStop of a task of its own (an agent, a Monitor).
    claude: Arc<Mutex<Option<ClaudeHandle>>>,
    /// How long `terminal/create`, `terminal/output`, `terminal/kill` and `terminal/release` may
    /// wait for the editor (see `answer_bound`; none by default). Waiting for the command itself
    /// is bounded by the command's own timeout.
    bound: Option<Duration>,
}

impl EditorTerminal {
    pub(crate) fn new(
        editor: Arc<dyn EditorClient>,
        session_id: String,
        cwd: PathBuf,
        roots: Vec<PathBuf>,
        claude: Arc<Mutex<Option<ClaudeHandle>>>,
        shell: CommandShell,
    ) -> Self {
        Self {
            editor,
            session_id,
            shell,
            shell_cwd: Arc::new(shell_cwd::ShellCwd::new(cwd, roots)),
            embedded: Arc::default(),
            shells: Arc::default(),
            cards: Arc::default(),
            claude,
            bound: super::answer_bound::from_env(),
        }
    }

    /// Whether this tool call shows an editor terminal.
    pub(crate) fn embeds(&self, tool_use_id: &str) -> bool {
        self.embedded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(tool_use_id)
    }

    /// The directory the next command starts in (`cd` carries over), where its relative paths
    /// lead.
    pub(crate) fn current_dir(&self) -> PathBuf {
        self.shell_cwd.current()
    }

    /// claude's built-ins these tools replace, turned off with `--disallowedTools`.
    pub(crate) fn replaced_builtins(&self) -> &'static str {
        self.shell.replaced_builtins()
    }

    /// The tools as MCP lists them: the built-ins' names, descriptions and input schemas.
    pub(crate) fn tool_definitions(&self) -> Vec<McpTool> {
        McpTool::from_capture(BUILTIN_TOOLS)
            .into_iter()
            .map(|tool| match tool.name.as_str() {
                "Bash" => self.shell.tool_definition(tool),
                _ => tool,
            })
            .collect()
    }

    /// The result of one `tools/call` of the command tool or `TaskStop`.
    pub(crate) async fn call(&self, name: &str, input: &Value, tool_use_id: Option<&str>) -> Value {
        match name {
            "TaskStop" => self.task_stop(input).await,
            name if name == self.shell.tool_name() => self.command(input, tool_use_id).await,
            other => sdk_mcp::call_result(
                vec![McpContent::Text {
                    text: format!("No such tool available: {other}"),
                }],
                true,
            ),
        }
    }

    /// What claude's update of tool call `tool_use_id` must say of a background command it
    /// started: running (its result is only the command's start), or how it ended if it ended
    /// before claude reported that start. `None` for any other call.
    pub(crate) fn background_card(&self, tool_use_id: &str, is_result: bool) -> Option<CardStatus> {
        let mut cards = self.cards.lock().unwrap_or_else(|p| p.into_inner());
        let card = cards.get_mut(tool_use_id)?;
        let status = card.status.clone();
        match status {
            CardStatus::Running { .. } => card.result_seen |= is_result,
            CardStatus::Ended { .. } if is_result => {
                cards.remove(tool_use_id);
            }
            CardStatus::Ended { .. } => {}
        }
        Some(status)
    }

    /// Whether background command `shell_id` of ours runs.
    pub(crate) fn runs_shell(&self, shell_id: &str) -> bool {
        self.shells
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(shell_id)
    }

    /// Stops background command `shell_id` of ours as TaskStop would.
    pub(crate) async fn stop_shell(&self, shell_id: &str) {
        self.stop_by_id(shell_id).await;
    }

    /// Whether a background command still runs (claude is then not idle).
    pub(crate) fn has_background(&self) -> bool {
        !self
            .shells
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_empty()
    }

    /// claude ended: its background commands end with it, as claude's own do.
    pub(crate) fn end_background(&self) {
        self.shell_cwd.remove_files();
        let shells: Vec<(String, Shell)> = self
            .shells
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain()
            .collect();
        for (id, shell) in shells {
            shell.copier.abort();
            self.card_ends(&shell, &id, true);
            self.release_later(shell.terminal_id);
        }
    }

    /// A background command ended: its card completes (exit code 0) or fails. If claude has not
    /// yet reported the command's start, that report gets this status instead.
    fn card_ends(&self, shell: &Shell, shell_id: &str, failed: bool) {
        let Some(id) = shell.tool_use_id.clone() else {
            return;
        };
        {
            let mut cards = self.cards.lock().unwrap_or_else(|p| p.into_inner());
            match cards.get_mut(&id) {
                Some(card) if card.result_seen => {
                    cards.remove(&id);
                }
                Some(card) => {
                    card.status = CardStatus::Ended {
                        shell_id: shell_id.to_owned(),
                        failed,
                    }
                }
                None => return,
            }
        }
        let update = crate::domain::ToolCallUpdate {
            id,
            status: Some(if failed {
                crate::domain::ToolStatus::Failed
            } else {
                crate::domain::ToolStatus::Completed
            }),
            async_task_id: Some(shell_id.to_owned()).filter(|s| !s.is_empty()),
            ..crate::domain::ToolCallUpdate::default()
        };
        self.editor.session_update(
            &self.session_id,
            crate::domain::SessionUpdate::ToolCallUpdate(update),
        );
    }
}

/// What a background command's card shows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CardStatus {
    Running { shell_id: String },
    Ended { shell_id: String, failed: bool },
}

/// A background command's card and whether claude's result for its call arrived.
struct Card {
    status: CardStatus,
    result_seen: bool,
}

#[cfg(test)]
mod tests;
