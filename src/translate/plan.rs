//! claude's to-do tools -> the editor's plan: TodoWrite replaces the whole list; TaskCreate,
//! TaskUpdate and TaskList change a task list kept here, and the whole plan is sent after each change.
//! Plan mode's plan file, read by ExitPlanMode, is a plan of its own, in Markdown.

use serde_json::Value;

use crate::domain::{PlanEntry, PlanPriority, PlanStatus, SessionUpdate};

/// The plan of a TodoWrite input `{todos:[{content,status,activeForm}]}`.
pub(crate) fn todo_write_plan(input: &Value) -> Option<Vec<PlanEntry>> {
    let todos = input.get("todos")?.as_array()?;
    Some(
        todos
            .iter()
            .filter_map(|todo| {
                let content = todo.get("content").and_then(Value::as_str)?;
                Some(entry(content, todo.get("status").and_then(Value::as_str)))
            })
            .collect(),
    )
}

/// Whether a tool feeds the task list (TodoWrite is handled on its own, from its input).
/// Plan mode's plan, from an ExitPlanMode call's result: what claude read from its plan file
/// (`tool_use_result.plan`) and where that file is (`filePath`), else the plan the call itself
/// gave. `None` when there is no plan text.
pub(crate) fn plan_file(
    input: Option<&Value>,
    structured: Option<&Value>,
) -> Option<SessionUpdate> {
    let read = structured
        .and_then(|r| r.get("plan"))
        .and_then(Value::as_str);
    let given = input.and_then(|i| i.get("plan")).and_then(Value::as_str);
    let content = read.or(given).filter(|text| !text.trim().is_empty())?;
    let path = structured
        .and_then(|r| r.get("filePath"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    Some(SessionUpdate::MarkdownPlan {
        content: content.to_owned(),
        path,
    })
}

pub(crate) fn is_task_tool(name: &str) -> bool {
    matches!(name, "TaskCreate" | "TaskUpdate" | "TaskList")
}

#[derive(Debug, Clone, PartialEq)]
struct Task {
    id: String,
    subject: String,
    status: String,
}

/// The task list claude's Task* tools build, in creation order.
#[derive(Debug, Default, Clone)]
pub(crate) struct TaskList {
    tasks: Vec<Task>,
}

impl TaskList {
    /// Applies a successful Task* tool result. `input` is the tool_use input, `structured` the line's
    /// `tool_use_result`, `text` the result text. Returns the new plan when the list changed.
    pub(crate) fn apply(
        &mut self,
        tool: &str,
        input: &Value,
        structured: Option<&Value>,
        text: &str,
    ) -> Option<Vec<PlanEntry>> {
        let before = self.tasks.clone();
        match tool {
            "TaskCreate" => {
                // claude assigns the id; it is only in the result ("Task #1 created successfully: ...").
                let id = structured
                    .and_then(|r| r.pointer("/task/id"))
                    .and_then(id_string)
                    .or_else(|| created_id_from_text(text))?;
                let subject = structured
                    .and_then(|r| r.pointer("/task/subject"))
                    .or_else(|| input.get("subject"))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                self.tasks.retain(|t| t.id != id);
                self.tasks.push(Task {
                    id,
                    subject,
                    status: "pending".into(),
                });
            }
            "TaskUpdate" => {
                let id = input.get("taskId").and_then(id_string)?;
                let status = input.get("status").and_then(Value::as_str).or_else(|| {
                    structured
                        .and_then(|r| r.pointer("/statusChange/to"))
                        .and_then(Value::as_str)
                });
                if status == Some("deleted") {
                    self.tasks.retain(|t| t.id != id);
                } else {
                    let task = self.tasks.iter_mut().find(|t| t.id == id)?;
                    if let Some(status) = status {
                        task.status = status.to_owned();
                    }
                    if let Some(subject) = input.get("subject").and_then(Value::as_str) {
                        task.subject = subject.to_owned();
                    }
                }
            }
            "TaskList" => {
                // The full list as claude knows it: trust it over what this side pieced together.
                let listed = structured?.get("tasks")?.as_array()?;
                self.tasks = listed
                    .iter()
                    .filter_map(|t| {
                        Some(Task {
                            id: t.get("id").and_then(id_string)?,
                            subject: t
                                .get("subject")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_owned(),
                            status: t
                                .get("status")
                                .and_then(Value::as_str)
                                .unwrap_or("pending")
                                .to_owned(),
                        })
                    })
                    .collect();
            }
            _ => return None,
        }
        (self.tasks != before).then(|| self.plan())
    }

    pub(crate) fn plan(&self) -> Vec<PlanEntry> {
        self.tasks
            .iter()
            .map(|t| entry(&t.subject, Some(&t.status)))
            .collect()
    }
}

fn entry(content: &str, status: Option<&str>) -> PlanEntry {
    let status = match status {
        Some("in_progress") => PlanStatus::InProgress,
        Some("completed") => PlanStatus::Completed,
        _ => PlanStatus::Pending,
    };
    PlanEntry {
        content: content.to_owned(),
        priority: PlanPriority::Medium,
        status,
    }
}

fn id_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn created_id_from_text(text: &str) -> Option<String> {
    let rest = text.strip_prefix("Task #")?;
    let id: String = rest
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect();
    (!id.is_empty()).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn statuses(plan: &[PlanEntry]) -> Vec<(&str, PlanStatus)> {
        plan.iter()
            .map(|e| (e.content.as_str(), e.status))
            .collect()
    }

    #[test]
    fn todo_write_lists_every_todo_with_its_status() {
        let plan = todo_write_plan(&json!({"todos": [
            {"content": "Read", "status": "completed", "activeForm": "Reading"},
            {"content": "Fix", "status": "in_progress", "activeForm": "Fixing"},
            {"content": "Ship", "status": "pending", "activeForm": "Shipping"},
        ]}))
        .unwrap();
        assert_eq!(
            statuses(&plan),
            vec![
                ("Read", PlanStatus::Completed),
                ("Fix", PlanStatus::InProgress),
                ("Ship", PlanStatus::Pending)
            ]
        );
        assert!(plan.iter().all(|e| e.priority == PlanPriority::Medium));
    }

    #[test]
    fn tasks_get_their_id_from_the_result_and_updates_change_them() {
        let mut list = TaskList::default();
        let plan = list
            .apply(
                "TaskCreate",
                &json!({"subject": "Read"}),
                Some(&json!({"task": {"id": "1", "subject": "Read"}})),
                "",
            )
            .unwrap();
        assert_eq!(statuses(&plan), vec![("Read", PlanStatus::Pending)]);
        // No structured result: the id comes from the text.
        let plan = list
            .apply(
                "TaskCreate",
                &json!({"subject": "Fix"}),
                None,
                "Task #2 created successfully: Fix",
            )
            .unwrap();
        assert_eq!(
            statuses(&plan),
            vec![("Read", PlanStatus::Pending), ("Fix", PlanStatus::Pending)]
        );
        let plan = list
            .apply(
                "TaskUpdate",
                &json!({"taskId": "2", "status": "in_progress"}),
                None,
                "",
            )
            .unwrap();
        assert_eq!(
            statuses(&plan),
            vec![
                ("Read", PlanStatus::Pending),
                ("Fix", PlanStatus::InProgress)
            ]
        );
        let plan = list
            .apply(
                "TaskUpdate",
                &json!({"taskId": "1", "status": "deleted"}),
                None,
                "",
            )
            .unwrap();
        assert_eq!(statuses(&plan), vec![("Fix", PlanStatus::InProgress)]);
        // Nothing changed: no plan to send.
        assert_eq!(
            list.apply(
                "TaskUpdate",
                &json!({"taskId": "2", "status": "in_progress"}),
                None,
                ""
            ),
            None
        );
        assert_eq!(
            list.apply(
                "TaskUpdate",
                &json!({"taskId": "9", "status": "completed"}),
                None,
                ""
            ),
            None
        );
    }

    #[test]
    fn task_list_result_replaces_the_list() {
        let mut list = TaskList::default();
        let listed = json!({"tasks": [
            {"id": "1", "subject": "Read", "status": "completed", "blockedBy": []},
            {"id": "2", "subject": "Fix", "status": "pending", "blockedBy": []},
        ]});
        let plan = list
            .apply("TaskList", &json!({}), Some(&listed), "")
            .unwrap();
        assert_eq!(
            statuses(&plan),
            vec![
                ("Read", PlanStatus::Completed),
                ("Fix", PlanStatus::Pending)
            ]
        );
    }
}
