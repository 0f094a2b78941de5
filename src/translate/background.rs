//! Commands and subagents claude runs in the background, followed to their end: the tool call
//! stays `in_progress` after claude's immediate "running in background" / "Async agent launched"
//! result (its job's id in `_meta.claudeCode.asyncTaskId`), and completes or fails when claude's
//! `system/task_notification` says the job ended, however many turns later. Pure: the session
//! reads a command's output file.

use std::collections::HashMap;

use serde_json::Value;

use crate::claude::wire::SystemMessage;
use crate::domain::{ToolCallUpdate, ToolContent, ToolStatus};

/// How a background job ended, for the card of the call that started it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JobEnd {
    pub(crate) tool_call_id: String,
    pub(crate) task_id: String,
    pub(crate) failed: bool,
    /// Stopped before it ended on its own (`stop_task`, TaskStop, the editor's cancel).
    pub(crate) stopped: bool,
    /// claude's line about it ("Background command \"...\" completed (exit code 0)").
    pub(crate) summary: Option<String>,
    /// Where claude wrote a command's output (a subagent's file is its whole transcript, never
    /// shown: its report is the summary).
    pub(crate) output_file: Option<String>,
    /// Closed by a resumed claude, which found it unfinished in the conversation after the claude
    /// that ran it ended (`reason: "unfinished_at_resume"`, the pinned claude).
    pub(crate) unfinished_at_resume: bool,
}

/// What a background job runs.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Job {
    Command,
    Subagent,
}

/// The jobs started by tool calls of this session that have not ended (task id -> call id).
#[derive(Debug, Default)]
pub(crate) struct BackgroundJobs {
    running: HashMap<String, (String, Job)>,
    /// Jobs that were running when their claude ended, whose cards failed then: a resumed claude
    /// may still say what became of them.
    ended_with_claude: HashMap<String, (String, Job)>,
}

impl BackgroundJobs {
    /// A command's result: the job's id when claude runs it in the background
    /// (`tool_use_result.backgroundTaskId`), now followed.
    pub(crate) fn started(
        &mut self,
        tool_use_id: &str,
        structured: Option<&Value>,
    ) -> Option<String> {
        let task_id = structured?
            .get("backgroundTaskId")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())?
            .to_owned();
        self.running
            .insert(task_id.clone(), (tool_use_id.to_owned(), Job::Command));
        Some(task_id)
    }

    /// A Task (Agent) call's result: the subagent's id when claude runs it in the background
    /// (`tool_use_result.isAsync` with its `agentId`, as the pinned claude reports it), now followed.
    pub(crate) fn subagent_started(
        &mut self,
        tool_use_id: &str,
        structured: Option<&Value>,
    ) -> Option<String> {
        let structured = structured?;
        let launched = structured.get("isAsync").and_then(Value::as_bool) == Some(true)
            || structured.get("status").and_then(Value::as_str) == Some("async_launched");
        let task_id = structured
            .get("agentId")
            .and_then(Value::as_str)
            .filter(|id| launched && !id.is_empty())?
            .to_owned();
        self.running
            .insert(task_id.clone(), (tool_use_id.to_owned(), Job::Subagent));
        Some(task_id)
    }

    /// The job the tool call `tool_call_id` started, while it runs: the one thing of a call
    /// claude can stop without ending the turn.
    pub(crate) fn task_of(&self, tool_call_id: &str) -> Option<&str> {
        self.running
            .iter()
            .find(|(_, (call, _))| call == tool_call_id)
            .map(|(task, _)| task.as_str())
    }

    /// claude ended: its jobs ended with it, each card failed (no notification will come).
    pub(crate) fn claude_ended(&mut self) -> Vec<ToolCallUpdate> {
        self.ended_with_claude.extend(self.running.clone());
        let mut gone: Vec<(String, String)> = self
            .running
            .drain()
            .map(|(task, (call, _))| (task, call))
            .collect();
        gone.sort();
        gone.into_iter()
            .map(|(task, call)| ToolCallUpdate {
                id: call,
                status: Some(ToolStatus::Failed),
                async_task_id: Some(task),
                ..ToolCallUpdate::default()
            })
            .collect()
    }

    /// `system/task_notification` for a followed job that ended.
    pub(crate) fn ended(&mut self, s: &SystemMessage) -> Option<JobEnd> {
        if s.subtype != "task_notification" {
            return None;
        }
        let task_id = s.str_field("task_id")?;
        let unfinished_at_resume = s.str_field("reason") == Some("unfinished_at_resume");
        let (tool_call_id, job) = match self.running.remove(task_id) {
            Some(running) => running,
            None if unfinished_at_resume => self.ended_with_claude.remove(task_id)?,
            None => return None,
        };
        Some(JobEnd {
            tool_call_id,
            task_id: task_id.to_owned(),
            failed: s.str_field("status") != Some("completed"),
            stopped: s.str_field("status") == Some("stopped"),
            summary: s.str_field("summary").map(str::to_owned),
            output_file: s
                .str_field("output_file")
                .filter(|_| job == Job::Command)
                .map(str::to_owned),
            unfinished_at_resume,
        })
    }
}

/// The card of an ended job: completed or failed, with its output (if it could be read) and
/// claude's summary.
pub(crate) fn job_end_update(end: &JobEnd, output: Option<String>) -> ToolCallUpdate {
    let mut content = Vec::new();
    if end.unfinished_at_resume {
        content.push(ToolContent::Text {
            text: "Unfinished: claude stopped while this ran, and the claude that resumed the \
                   session found no end to it."
                .into(),
        });
    }
    if let Some(output) = output.filter(|o| !o.trim().is_empty()) {
        content.push(ToolContent::Text {
            text: super::tool_result::fenced_text(output),
        });
    }
    if let Some(summary) = &end.summary {
        content.push(ToolContent::Text {
            text: summary.clone(),
        });
    }
    ToolCallUpdate {
        id: end.tool_call_id.clone(),
        status: Some(match (end.stopped, end.failed) {
            (true, _) => ToolStatus::Cancelled,
            (false, true) => ToolStatus::Failed,
            (false, false) => ToolStatus::Completed,
        }),
        content: Some(content),
        async_task_id: Some(end.task_id.clone()),
        ..ToolCallUpdate::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn system(v: Value) -> SystemMessage {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_job_claude_ended_with_is_closed_by_the_resumed_claudes_notification() {
        let mut jobs = BackgroundJobs::default();
        let structured = json!({"backgroundTaskId": "b1"});
        jobs.started("t1", Some(&structured));
        assert_eq!(jobs.claude_ended().len(), 1);
        let other = json!({"type": "system", "subtype": "task_notification", "task_id": "b1",
            "status": "stopped", "summary": "late"});
        assert_eq!(
            jobs.ended(&system(other)),
            None,
            "only a resume's word counts"
        );
        let note = json!({"type": "system", "subtype": "task_notification", "task_id": "b1",
            "tool_use_id": "t1", "status": "stopped", "reason": "unfinished_at_resume",
            "summary": "Background shell command"});
        let end = jobs.ended(&system(note)).expect("the card is closed");
        assert!(end.unfinished_at_resume && end.stopped);
        assert_eq!(end.tool_call_id, "t1");
        let update = job_end_update(&end, None);
        assert_eq!(update.status, Some(ToolStatus::Cancelled));
        let shown = format!("{:?}", update.content);
        assert!(
            shown.contains("Unfinished: claude stopped while this ran"),
            "{shown}"
        );
        assert!(shown.contains("Background shell command"), "{shown}");
    }

    #[test]
    fn a_background_job_is_followed_from_its_result_to_its_notification() {
        let mut jobs = BackgroundJobs::default();
        // A foreground command's result has no task id.
        assert_eq!(jobs.started("t0", Some(&json!({"stdout": "hi"}))), None);
        assert_eq!(jobs.started("t0", None), None);
        let structured = json!({"stdout": "", "backgroundTaskId": "b1"});
        assert_eq!(jobs.started("t1", Some(&structured)), Some("b1".into()));
        // Captured from the pinned claude on the mock API.
        let note = json!({"type": "system", "subtype": "task_notification", "task_id": "b1",
            "tool_use_id": "t1", "status": "completed", "output_file": "/tmp/b1.output",
            "summary": "Background command \"Sleep then echo\" completed (exit code 0)"});
        let other = json!({"type": "system", "subtype": "task_notification", "task_id": "b9",
            "status": "completed"});
        assert_eq!(jobs.ended(&system(other)), None, "not a job of ours");
        let end = jobs.ended(&system(note.clone())).unwrap();
        assert_eq!(end.tool_call_id, "t1");
        assert!(!end.failed);
        assert_eq!(end.output_file.as_deref(), Some("/tmp/b1.output"));
        assert_eq!(jobs.ended(&system(note)), None, "told once");

        // A subagent started in the background (claude 2.1.332's Agent result and notification,
        // captured on the mock API): its card ends with its report, never its transcript file.
        let launched = json!({"isAsync": true, "status": "async_launched",
            "agentId": "ae51f4a1e9e6d2ed1", "description": "Look around",
            "outputFile": "/tmp/tasks/ae51f4a1e9e6d2ed1.output", "canReadOutputFile": true});
        assert_eq!(
            jobs.subagent_started(
                "t3",
                Some(&json!({"status": "completed",
            "agentId": "a0", "content": []}))
            ),
            None,
            "a foreground subagent's result"
        );
        assert_eq!(
            jobs.subagent_started("t3", Some(&launched)),
            Some("ae51f4a1e9e6d2ed1".into())
        );
        let report = json!({"type": "system", "subtype": "task_notification",
            "task_id": "ae51f4a1e9e6d2ed1", "tool_use_id": "t3", "status": "completed",
            "output_file": "/tmp/tasks/ae51f4a1e9e6d2ed1.output",
            "summary": "subagent-report: all fine", "summary_is_report": true,
            "usage": {"total_tokens": 7149, "tool_uses": 0, "duration_ms": 2816}});
        let end = jobs.ended(&system(report)).unwrap();
        assert_eq!((end.tool_call_id.as_str(), end.failed), ("t3", false));
        assert_eq!(
            end.output_file, None,
            "a subagent's transcript is not its output"
        );
        assert_eq!(end.summary.as_deref(), Some("subagent-report: all fine"));

        jobs.started("t2", Some(&json!({"backgroundTaskId": "b2"})));
        let failed = json!({"type": "system", "subtype": "task_notification", "task_id": "b2",
            "status": "failed", "summary": "Background command \"x\" failed with exit code 1"});
        let end = jobs.ended(&system(failed)).unwrap();
        assert!(end.failed);
        let update = job_end_update(&end, Some("oops\n".into()));
        assert_eq!(update.status, Some(ToolStatus::Failed));
        assert_eq!(update.async_task_id.as_deref(), Some("b2"));
        let texts: Vec<String> = update
            .content
            .unwrap()
            .into_iter()
            .map(|c| match c {
                ToolContent::Text { text } => text,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            texts,
            [
                "```\noops\n```",
                "Background command \"x\" failed with exit code 1"
            ]
        );
    }
}
