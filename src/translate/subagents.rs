//! claude's subagents as ACP child sessions: each local agent task claude starts
//! (`system/task_started`, task type `local_agent`, in the foreground or the background) is
//! announced running, and its end (`system/task_notification`: completed, stopped, failed) is
//! told once. For an editor that follows child sessions, a subagent's own output (its lines carry
//! `parent_tool_use_id`, the Agent call that runs it) goes to its child session: the instructions
//! it was given, its text and thinking, its tool calls; and its final report comes back to the
//! parent as the message the parent received from the child. Pure; whether the editor gets them
//! is the ACP edge's business.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::message_blocks::{StoredBlocks, chunk};
use crate::claude::wire::{AssistantMessage, ContentBlock, SystemMessage, UserContent, UserEcho};
use crate::domain::{SessionUpdate, SubagentState, SubagentUpdate, subagent_session_id};

/// The subagents of one session that run.
#[derive(Debug, Default)]
pub(crate) struct Subagents {
    /// The parent session's id, which names the children.
    parent: String,
    running: HashSet<String>,
    /// Whether a subagent's own output goes to its child session.
    children: bool,
    /// The Agent call that runs each subagent -> the subagent's task id.
    calls: HashMap<String, String>,
    /// Which block of its API message each line of a subagent's is, per subagent.
    blocks: HashMap<String, StoredBlocks>,
    /// The subagents whose report the parent was told (each is told once).
    reported: HashSet<String>,
}

impl Subagents {
    pub(crate) fn new(parent: &str) -> Self {
        Subagents {
            parent: parent.to_owned(),
            ..Subagents::default()
        }
    }

    /// Sends each subagent's own output to its child session from now on.
    pub(super) fn route_to_children(&mut self, on: bool) {
        self.children = on;
    }

    /// Whether claude's task `task_id` is a subagent that runs.
    pub(crate) fn runs(&self, task_id: &str) -> bool {
        self.running.contains(task_id)
    }

    /// The child session of the subagent that the Agent call `call` runs, where the editor
    /// follows child sessions.
    pub(super) fn child_of(&self, call: Option<&str>) -> Option<String> {
        let task = self.calls.get(call?).filter(|_| self.children)?;
        Some(subagent_session_id(&self.parent, task))
    }

    /// A subagent's assistant line: its text and thinking go to its child session (`child`);
    /// the blocks left (its tool uses) are returned for the caller to show there.
    pub(super) fn own_words(
        &mut self,
        child: &str,
        a: &mut AssistantMessage,
        out: &mut Vec<SessionUpdate>,
    ) -> Vec<ContentBlock> {
        let message = a.message.id.clone();
        let blocks = std::mem::take(&mut a.message.content);
        let single = blocks.len() == 1;
        let line = match single {
            true => self
                .blocks
                .entry(child.to_owned())
                .or_default()
                .line_of(message.as_deref()),
            false => 0,
        };
        let mut rest = Vec::new();
        for (position, block) in blocks.into_iter().enumerate() {
            let index = if single { line } else { position as u64 };
            let (text, thought) = match block {
                ContentBlock::Text { text } => (text, false),
                ContentBlock::Thinking { thinking, .. } => (thinking, true),
                other => {
                    rest.push(other);
                    continue;
                }
            };
            if !text.is_empty() {
                let update = chunk(text, thought, message.as_deref(), index);
                out.push(in_child(Some(child), update));
            }
        }
        rest
    }

    /// A subagent's instructions (claude's `user` line of text under its Agent call) as the
    /// message its child session received from this one.
    pub(super) fn instructions(&self, u: &UserEcho) -> Option<SessionUpdate> {
        let child = self.child_of(u.parent_tool_use_id.as_deref())?;
        let text = match &u.message.content {
            UserContent::Text(text) => text.clone(),
            UserContent::Blocks(blocks) => blocks
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
        };
        if text.is_empty() {
            return None;
        }
        let message = SessionUpdate::MessageFrom {
            message_id: u
                .uuid
                .clone()
                .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
            sender: self.parent.clone(),
            recipient: child.clone(),
            text,
        };
        Some(in_child(Some(&child), message))
    }

    /// A subagent's final report, as claude hands it back to the Agent call that ran it in the
    /// foreground (its result's `tool_use_result`: `status` completed, the `agentId`, the
    /// report's text blocks without claude's hand-back frame), as the message this session
    /// received from the child, when `foreground`; `line` is the result's line in claude's
    /// transcript.
    pub(super) fn report(
        &mut self,
        foreground: bool,
        structured: Option<&Value>,
        line: Option<&str>,
    ) -> Option<SessionUpdate> {
        let result = structured.filter(|_| self.children && foreground)?;
        if result.get("status").and_then(Value::as_str) != Some("completed") {
            return None;
        }
        let agent = result.get("agentId").and_then(Value::as_str)?;
        if !self.reported.insert(agent.to_owned()) {
            return None;
        }
        let text = result
            .get("content")
            .and_then(Value::as_array)?
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n");
        if text.is_empty() {
            return None;
        }
        Some(self.report_of(agent, line, text))
    }

    /// A background subagent's report, which claude gives as its end's `summary`
    /// (`summary_is_report`), as the message this session received from the child.
    pub(super) fn background_report(&mut self, s: &SystemMessage) -> Option<SessionUpdate> {
        let is_report = s.rest.get("summary_is_report") == Some(&Value::Bool(true));
        let completed = s.str_field("status") == Some("completed");
        let task = s
            .str_field("task_id")
            .filter(|_| is_report && completed && self.children)?;
        if s.subtype != "task_notification" || !self.running.contains(task) {
            return None;
        }
        let text = s.str_field("summary").filter(|t| !t.is_empty())?.to_owned();
        if !self.reported.insert(task.to_owned()) {
            return None;
        }
        Some(self.report_of(task, s.str_field("uuid"), text))
    }

    fn report_of(&self, task: &str, line: Option<&str>, text: String) -> SessionUpdate {
        SessionUpdate::MessageFrom {
            message_id: line.map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned),
            sender: subagent_session_id(&self.parent, task),
            recipient: self.parent.clone(),
            text,
        }
    }

    /// What claude's `system` line tells of its subagents: one started or ended, and a
    /// background one's report.
    pub(super) fn updates_of(&mut self, s: &SystemMessage) -> Vec<SessionUpdate> {
        let report = self.background_report(s);
        let mut updates: Vec<SessionUpdate> = self
            .on_system(s)
            .map(SessionUpdate::Subagent)
            .into_iter()
            .collect();
        updates.extend(report);
        updates
    }

    /// A subagent started or ended, as claude's `system` line says.
    pub(crate) fn on_system(&mut self, s: &SystemMessage) -> Option<SubagentUpdate> {
        let task_id = s.str_field("task_id")?;
        match s.subtype.as_str() {
            "task_started" if s.str_field("task_type") == Some("local_agent") => {
                self.running.insert(task_id.to_owned());
                if let Some(call) = s.str_field("tool_use_id") {
                    self.calls.insert(call.to_owned(), task_id.to_owned());
                }
                Some(SubagentUpdate {
                    session_id: subagent_session_id(&self.parent, task_id),
                    title: s.str_field("description").map(str::to_owned),
                    description: s.str_field("subagent_type").map(str::to_owned),
                    state: SubagentState::Running,
                })
            }
            "task_notification" if self.running.remove(task_id) => {
                self.forget(task_id);
                let state = match s.str_field("status") {
                    Some("completed") => SubagentState::Completed,
                    Some("stopped") => SubagentState::Cancelled,
                    _ => SubagentState::Failed,
                };
                Some(ended(&self.parent, task_id, state))
            }
            _ => None,
        }
    }

    /// claude ended: the subagents it ran end with it.
    pub(crate) fn claude_ended(&mut self) -> Vec<SubagentUpdate> {
        let mut gone: Vec<String> = self.running.drain().collect();
        gone.sort();
        self.calls.clear();
        self.blocks.clear();
        self.reported.clear();
        gone.iter()
            .map(|task| ended(&self.parent, task, SubagentState::Gone))
            .collect()
    }

    fn forget(&mut self, task_id: &str) {
        self.calls.retain(|_, task| task != task_id);
        self.blocks
            .remove(&subagent_session_id(&self.parent, task_id));
    }
}

/// `update`, told on the child session `child` if there is one, else on this session.
pub(super) fn in_child(child: Option<&str>, update: SessionUpdate) -> SessionUpdate {
    match child {
        Some(child) => SessionUpdate::InSubagent {
            session_id: child.to_owned(),
            update: Box::new(update),
        },
        None => update,
    }
}

fn ended(parent: &str, task_id: &str, state: SubagentState) -> SubagentUpdate {
    SubagentUpdate {
        session_id: subagent_session_id(parent, task_id),
        title: None,
        description: None,
        state,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::parse_subagent_session_id;
    use serde_json::json;

    fn system(v: Value) -> SystemMessage {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_subagent_is_announced_running_then_ended_once() {
        let mut agents = Subagents::new("sess-1");
        // claude 2.1.332's lines for a foreground Agent call, captured on the mock API.
        let started = json!({"type": "system", "subtype": "task_started",
            "task_id": "a5550f1a60a514da8", "tool_use_id": "toolu_1", "description": "Look around",
            "subagent_type": "general-purpose", "is_backgrounded": false, "task_type": "local_agent"});
        let bash = json!({"type": "system", "subtype": "task_started", "task_id": "b1",
            "tool_use_id": "toolu_2", "description": "Build", "task_type": "local_bash"});
        assert_eq!(
            agents.on_system(&system(bash)),
            None,
            "a command is no subagent"
        );
        let up = agents.on_system(&system(started)).unwrap();
        assert_eq!(up.session_id, "sess-1/subagent/a5550f1a60a514da8");
        assert_eq!(
            parse_subagent_session_id(&up.session_id),
            Some(("sess-1", "a5550f1a60a514da8"))
        );
        assert_eq!(up.title.as_deref(), Some("Look around"));
        assert_eq!(up.description.as_deref(), Some("general-purpose"));
        assert_eq!(up.state, SubagentState::Running);
        assert!(agents.runs("a5550f1a60a514da8"));
        let stopped = json!({"type": "system", "subtype": "task_notification",
            "task_id": "a5550f1a60a514da8", "status": "stopped", "summary": "Look around"});
        let end = agents.on_system(&system(stopped.clone())).unwrap();
        assert_eq!(end.state, SubagentState::Cancelled);
        assert_eq!(agents.on_system(&system(stopped)), None, "told once");
        assert!(!agents.runs("a5550f1a60a514da8"));
        assert_eq!(parse_subagent_session_id("sess-1"), None);
    }

    #[test]
    fn the_subagents_of_an_ended_claude_end_with_it() {
        let mut agents = Subagents::new("s");
        for id in ["a2", "a1"] {
            let started = json!({"type": "system", "subtype": "task_started", "task_id": id,
                "task_type": "local_agent", "description": "x"});
            agents.on_system(&system(started));
        }
        let gone = agents.claude_ended();
        let states: Vec<_> = gone
            .iter()
            .map(|u| (u.session_id.as_str(), u.state))
            .collect();
        assert_eq!(
            states,
            [
                ("s/subagent/a1", SubagentState::Gone),
                ("s/subagent/a2", SubagentState::Gone)
            ]
        );
        assert!(agents.claude_ended().is_empty());
    }
}
