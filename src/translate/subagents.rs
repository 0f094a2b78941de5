//! claude's subagents as ACP child sessions: each local agent task claude starts
//! (`system/task_started`, task type `local_agent`, in the foreground or the background) is
//! announced running, and its end (`system/task_notification`: completed, stopped, failed) is
//! told once. Pure; whether the editor gets them is the ACP edge's business.

use std::collections::HashSet;

use crate::claude::wire::SystemMessage;
use crate::domain::{SubagentState, SubagentUpdate, subagent_session_id};

/// The subagents of one session that run.
#[derive(Debug, Default)]
pub(crate) struct Subagents {
    /// The parent session's id, which names the children.
    parent: String,
    running: HashSet<String>,
}

impl Subagents {
    pub(crate) fn new(parent: &str) -> Self {
        Subagents {
            parent: parent.to_owned(),
            running: HashSet::new(),
        }
    }

    /// Whether claude's task `task_id` is a subagent that runs.
    pub(crate) fn runs(&self, task_id: &str) -> bool {
        self.running.contains(task_id)
    }

    /// A subagent started or ended, as claude's `system` line says.
    pub(crate) fn on_system(&mut self, s: &SystemMessage) -> Option<SubagentUpdate> {
        let task_id = s.str_field("task_id")?;
        match s.subtype.as_str() {
            "task_started" if s.str_field("task_type") == Some("local_agent") => {
                self.running.insert(task_id.to_owned());
                Some(SubagentUpdate {
                    session_id: subagent_session_id(&self.parent, task_id),
                    title: s.str_field("description").map(str::to_owned),
                    description: s.str_field("subagent_type").map(str::to_owned),
                    state: SubagentState::Running,
                })
            }
            "task_notification" if self.running.remove(task_id) => {
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
        gone.iter()
            .map(|task| ended(&self.parent, task, SubagentState::Gone))
            .collect()
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
    use serde_json::{Value, json};

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
