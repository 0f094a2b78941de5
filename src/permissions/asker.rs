//! One permission ask, whichever way it came (claude's `can_use_tool` on stdio, or a call of our
//! MCP permission tool): the editor decides, deny rules are put in force before the answer, and
//! a mode change the answer implies is reported to the session.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;

use super::decision::Asking;
use super::in_force::{RuleSources, RulesInForce};
use super::rules::SessionRules;
use super::{editor_bash, editor_tools, route};
use crate::claude::ClaudeHandle;
use crate::claude::wire::{
    CanUseTool, DecisionClassification, OutboundControl, PermissionDecision,
};
use crate::domain::EditorClient;
use crate::editor_tools::fs::EditorFiles;
use crate::editor_tools::terminal::EditorTerminal;

const RULE_TIMEOUT: Duration = Duration::from_secs(10);

/// Everything an ask needs; cheap to clone into the task or MCP call that runs it.
#[derive(Clone)]
pub struct PermissionAsker {
    pub editor: Arc<dyn EditorClient>,
    pub session_id: String,
    pub cwd: PathBuf,
    pub rules: SessionRules,
    /// The claude running now (it changes when claude is restarted).
    pub claude: Arc<Mutex<Option<ClaudeHandle>>>,
    /// Mode changes an answer implies (ExitPlanMode, "allow all edits").
    pub mode_changes: mpsc::UnboundedSender<String>,
    /// The session's permission mode now (asks for the editor-served file tools follow it).
    pub mode: Arc<Mutex<String>>,
    /// The editor-served file tools of the running claude, if any.
    pub files: Arc<Mutex<Option<EditorFiles>>>,
    /// The editor's terminal tools of the running claude, if any (where a command runs).
    pub terminal: Arc<Mutex<Option<EditorTerminal>>>,
    /// What the session's start says about the rules (its `_meta` command-line rules, ...).
    pub sources: RuleSources,
}

impl PermissionAsker {
    pub async fn ask(&self, req: CanUseTool) -> PermissionDecision {
        self.decide(req).await.0
    }

    /// [`PermissionAsker::ask`], with who decided (for claude's `can_use_tool` answer).
    pub async fn decide(
        &self,
        req: CanUseTool,
    ) -> (PermissionDecision, Option<DecisionClassification>) {
        let asking = Asking {
            editor: self.editor.as_ref(),
            session_id: &self.session_id,
            cwd: &self.cwd,
            rules: &self.rules,
        };
        let mode = || self.mode.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let decision = match crate::domain::tool_names::builtin_name(&req.tool_name) {
            Some(builtin) if crate::domain::tool_names::TERMINAL_TOOLS.contains(&builtin) => {
                let in_force = self.rules_in_force().await;
                let terminal = self
                    .terminal
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone();
                let dir = terminal.map_or_else(|| self.cwd.clone(), |t| t.current_dir());
                editor_bash::decide(asking, &in_force, &dir, &mode(), builtin, req).await
            }
            Some(builtin) => {
                let in_force = self.rules_in_force().await;
                let files = self.files.lock().unwrap_or_else(|p| p.into_inner()).clone();
                editor_tools::decide(asking, &in_force, &mode(), files, builtin, req).await
            }
            None => {
                route::decide(
                    self.editor.clone(),
                    &self.session_id,
                    &self.cwd,
                    req,
                    &self.rules,
                )
                .await
            }
        };
        // Deny rules first, so they are in force before claude reads the deny.
        if let Some(settings) = decision.flag_settings {
            let handle = self.claude.lock().expect("claude handle lock").clone();
            if let Some(handle) = handle {
                let request = OutboundControl::ApplyFlagSettings { settings };
                if let Err(e) = handle.request(request, RULE_TIMEOUT).await {
                    tracing::warn!(
                        "an \"Always reject\" answer is not in force in claude (it did not take the deny rule: {e}): the same call may be asked again"
                    );
                }
            }
        }
        if let Some(mode) = decision.mode_change {
            let _ = self.mode_changes.send(mode);
        }
        (decision.reply, decision.by)
    }

    /// The rules in force now: the running claude's list, or, from a claude without one, the
    /// sources read here.
    async fn rules_in_force(&self) -> RulesInForce {
        let handle = self.claude.lock().expect("claude handle lock").clone();
        if let Some(handle) = handle {
            match handle
                .request(OutboundControl::ListPermissionRules, RULE_TIMEOUT)
                .await
            {
                Ok(answer) => match RulesInForce::from_claude(&answer, &self.sources) {
                    Some(rules) => return rules,
                    None => tracing::info!("claude's permission rules not read: {answer}"),
                },
                Err(e) => tracing::debug!("claude did not list its permission rules: {e}"),
            }
        }
        RulesInForce::from_files(&self.sources, &self.rules)
    }
}
