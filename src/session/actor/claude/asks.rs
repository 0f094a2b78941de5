//! The asks of claude's that wait on the editor, by claude's request id: permission asks and MCP
//! servers' questions (`elicitation`). Each runs in a task of its own; withdrawn when claude
//! withdraws it, the turn is cancelled, or claude ends.

use std::collections::HashMap;

use tokio::task::JoinHandle;

/// What claude is owed when an ask is withdrawn while it still runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AskKind {
    /// A deny.
    Permission,
    /// A cancel, for the MCP server.
    Elicitation,
}

#[derive(Default)]
pub(super) struct PendingAsks {
    tasks: HashMap<String, (JoinHandle<()>, AskKind)>,
}

impl PendingAsks {
    pub(super) fn started(&mut self, request_id: String, task: JoinHandle<()>, kind: AskKind) {
        self.tasks.insert(request_id, (task, kind));
    }

    /// Whether an ask still waits on the editor.
    pub(super) fn any_open(&self) -> bool {
        !self.tasks.is_empty()
    }

    /// The ask was answered: nothing left to withdraw.
    pub(super) fn answered(&mut self, request_id: &str) {
        self.tasks.remove(request_id);
    }

    /// Withdraws one ask: the editor's request ends and a late answer is dropped.
    pub(super) fn withdraw(&mut self, request_id: &str) {
        if let Some((task, _)) = self.tasks.remove(request_id) {
            task.abort();
        }
    }

    /// Withdraws every ask; returns their request ids (each still owed an answer if claude runs).
    pub(super) fn withdraw_all(&mut self) -> Vec<(String, AskKind)> {
        self.tasks
            .drain()
            .map(|(request_id, (task, kind))| {
                task.abort();
                (request_id, kind)
            })
            .collect()
    }
}
