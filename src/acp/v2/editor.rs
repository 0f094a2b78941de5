//! The editor side of a v2 connection: what is sent to an editor that negotiated ACP v2, in
//! v2's form ([`super::convert`]), through the same measured queue as v1's. v2 has no client
//! file system and no client terminals, so such an editor is declared to have neither and
//! claude's own Read, Write, Edit and Bash run.

use std::collections::HashMap;
use std::sync::Mutex;

use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v2::schema as v2;
use serde_json::Value;

use super::convert::{self, Stream};
use crate::acp::shared::client::EditorForm;
use crate::acp::shared::permission_request::{PermissionRequest, Version};
use crate::acp::shared::schema_1_20::{ReplayComplete, SessionUpdate1_20};
use crate::acp::shared::to_proto;
use crate::acp::shared::tool_call_json::ToolCallNotification;
use crate::acp::transport::{Notification, Outbound};
use crate::domain::{EditorError, PermissionAsk, PermissionOutcome, SessionUpdate, TurnState};

/// Per connection: the message each session's chunks currently belong to.
#[derive(Default)]
pub(crate) struct V2Editor {
    /// Session id -> the kind and id of the message its last chunk was part of; any other
    /// update ends that message, so the next chunk starts a new one.
    messages: Mutex<HashMap<String, (Stream, String)>>,
    /// Session id -> how many permission requests are before the user: while any is, the turn
    /// `requires_action`.
    open_asks: Mutex<HashMap<String, usize>>,
}

/// What a v2 editor's capabilities mean in v1's terms, which the session reads: no `fs/*`, no
/// `terminal/*`, and every v2 client takes boolean options, notices, compaction updates and
/// subagents (`subagent_update` is v2's own session update, with no capability to declare).
/// Forms and pages (`elicitation/create`) are v1's, as the editor declares them.
pub(crate) fn declared_as_v1(request: &v2::InitializeRequest) -> acp::ClientCapabilities {
    let session = serde_json::json!({
        "configOptions": {"boolean": {}},
        "notices": {},
        "compaction": {},
    });
    let mut caps = acp::ClientCapabilities::new();
    caps.session = serde_json::from_value(session).ok();
    caps.subagents = Some(acp::SubagentCapabilities::new());
    caps.auth.terminal = request
        .capabilities
        .auth
        .as_ref()
        .is_some_and(|a| a.terminal.is_some());
    caps.auth.meta = request
        .capabilities
        .auth
        .as_ref()
        .and_then(|a| a.meta.clone());
    caps.meta = request.capabilities.meta.clone();
    // v2 kept v1's elicitation, capabilities and requests alike.
    caps.elicitation = request
        .capabilities
        .elicitation
        .as_ref()
        .and_then(|e| serde_json::from_value(serde_json::to_value(e).ok()?).ok());
    caps
}

impl V2Editor {
    /// One of the session's updates to the editor in v2's form (made from v1's, with what v1's
    /// form cannot say).
    fn write_update(
        &self,
        outbound: &Outbound,
        session_id: &str,
        update: SessionUpdate,
        may_be_large: bool,
    ) {
        if let SessionUpdate::ToolCall(call) = update {
            // Its input shared and a Write's patch written from it, as v1's is (it holds a file).
            self.end_message(session_id);
            let note = ToolCallNotification::v2(session_id, call);
            outbound.push_json(Notification::new("session/update", note), true);
            return;
        }
        let beyond = convert::Beyond::of(&update);
        if let SessionUpdate::ToolCallUpdate(call) = update {
            let call = to_proto::tool_call_update(call);
            match convert::tool_call_update(call, &beyond) {
                Ok(update) => {
                    self.end_message(session_id);
                    let session_id = session_id.to_owned();
                    let note = UpdateParams { session_id, update };
                    outbound.push_json(Notification::new("session/update", note), may_be_large);
                }
                Err(call) => {
                    match serde_json::to_value(acp::SessionUpdate::ToolCallUpdate(*call)) {
                        Ok(v1) => self.send(outbound, session_id, v1, beyond, may_be_large),
                        Err(e) => tracing::debug!("session update not sent: {e}"),
                    }
                }
            }
            return;
        }
        match serde_json::to_value(to_proto::session_update(update)) {
            Ok(v1) => self.send(outbound, session_id, v1, beyond, may_be_large),
            Err(e) => tracing::debug!("session update not sent: {e}"),
        }
    }

    /// One v1 update, already in ACP's v1 form, to the editor in v2's.
    fn write_sdk_update(
        &self,
        outbound: &Outbound,
        session_id: &str,
        update: Value,
        may_be_large: bool,
    ) {
        self.send(
            outbound,
            session_id,
            update,
            convert::Beyond::default(),
            may_be_large,
        );
    }

    fn send(
        &self,
        outbound: &Outbound,
        session_id: &str,
        update: Value,
        beyond: convert::Beyond,
        may_be_large: bool,
    ) {
        let update = convert::session_update(update, beyond, |stream, known| {
            self.message_id(session_id, stream, known)
        });
        let Some(update) = update else { return };
        if !update["sessionUpdate"]
            .as_str()
            .is_some_and(|k| k.ends_with("_chunk"))
        {
            self.end_message(session_id);
        }
        let child = convert::child_state(&update);
        push_update(outbound, session_id, update, may_be_large);
        // A subagent's state is its child session's own too, told right after the parent's copy.
        if let Some((child, state)) = child {
            push_update(outbound, &child, state, false);
        }
    }

    /// Where the turn stands, as v2's `user_message` and `state_update`s.
    fn write_turn_state(&self, outbound: &Outbound, session_id: &str, state: TurnState) {
        self.end_message(session_id);
        let updates = match state {
            TurnState::Started { message_id, prompt } => vec![
                convert::user_message(&message_id, &prompt),
                convert::state("running"),
            ],
            TurnState::Joined { message_id, prompt } => {
                vec![convert::user_message(&message_id, &prompt)]
            }
            TurnState::RequiresAction => vec![convert::state("requires_action")],
            TurnState::Running => vec![convert::state("running")],
            TurnState::Ended { outcome } => vec![convert::idle(&outcome)],
        };
        for update in updates {
            push_update(outbound, session_id, update, false);
        }
    }

    /// A request goes before the user: the first one makes the turn `requires_action` (told
    /// before the request, so the editor knows why it waits).
    fn open_ask(&self, outbound: &Outbound, session_id: &str) {
        let first = {
            let mut open = self.open_asks.lock().expect("open asks");
            let count = open.entry(session_id.to_owned()).or_default();
            *count += 1;
            *count == 1
        };
        if first {
            self.end_message(session_id);
            push_update(
                outbound,
                session_id,
                convert::state("requires_action"),
                false,
            );
        }
    }

    /// Answered, the turn runs again once none is left; withdrawn (a cancel), it says nothing,
    /// as the turn's end follows.
    fn close_ask(&self, outbound: &Outbound, session_id: &str, answered: bool) {
        let left = {
            let mut open = self.open_asks.lock().expect("open asks");
            let count = open.entry(session_id.to_owned()).or_default();
            *count = count.saturating_sub(1);
            let left = *count;
            if left == 0 {
                open.remove(session_id);
            }
            left
        };
        if left == 0 && answered {
            push_update(outbound, session_id, convert::state("running"), false);
        }
    }

    /// The id of the message a chunk of `stream` is part of: the one the session knows (which
    /// the chunks after it without one continue), else the current run's, else a new one.
    fn message_id(&self, session_id: &str, stream: Stream, known: Option<String>) -> String {
        let mut messages = self.messages.lock().expect("message ids");
        match (messages.get(session_id), known) {
            (_, Some(id)) => {
                messages.insert(session_id.to_owned(), (stream, id.clone()));
                id
            }
            (Some((current, id)), None) if *current == stream => id.clone(),
            _ => {
                let id = uuid::Uuid::new_v4().to_string();
                messages.insert(session_id.to_owned(), (stream, id.clone()));
                id
            }
        }
    }

    fn end_message(&self, session_id: &str) {
        self.messages
            .lock()
            .expect("message ids")
            .remove(session_id);
    }
}

/// A `session/update`'s params with an update that serialises itself.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct UpdateParams<U> {
    session_id: String,
    update: U,
}

fn push_update(outbound: &Outbound, session_id: &str, update: Value, may_be_large: bool) {
    let note = serde_json::json!({
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session_id, "update": update},
    });
    outbound.push_json(note, may_be_large);
}

/// v2's answer to a permission request: an option selected, or anything else (dismissed,
/// declined by policy, an outcome newer than this adapter), which is no approval.
fn permission_outcome(answer: &Value) -> PermissionOutcome {
    match (
        answer["outcome"]["outcome"].as_str(),
        answer["outcome"]["optionId"].as_str(),
    ) {
        (Some("selected"), Some(id)) => PermissionOutcome::Selected {
            option_id: id.to_owned(),
        },
        _ => PermissionOutcome::Cancelled,
    }
}

/// The form of an editor that negotiated v2.
pub(crate) fn form() -> Box<dyn EditorForm> {
    Box::new(V2Editor::default())
}

impl EditorForm for V2Editor {
    fn session_update(
        &self,
        outbound: &Outbound,
        session_id: &str,
        update: SessionUpdate,
        may_be_large: bool,
    ) {
        self.write_update(outbound, session_id, update, may_be_large);
    }

    fn sdk_update(
        &self,
        outbound: &Outbound,
        session_id: &str,
        update: acp::SessionUpdate,
        may_be_large: bool,
    ) {
        match serde_json::to_value(update) {
            Ok(update) => self.write_sdk_update(outbound, session_id, update, may_be_large),
            Err(e) => tracing::debug!("session update not sent: {e}"),
        }
    }

    fn json_update(&self, outbound: &Outbound, session_id: &str, update: Value) {
        self.write_sdk_update(outbound, session_id, update, false);
    }

    fn turn_state(&self, outbound: &Outbound, session_id: &str, state: TurnState) {
        self.write_turn_state(outbound, session_id, state);
    }

    fn follows_turns(&self) -> bool {
        true
    }

    fn takes_cursors(&self) -> bool {
        true
    }

    fn replay_complete(&self, outbound: &Outbound, session_id: &str) {
        self.end_message(session_id);
        let update = SessionUpdate1_20::ReplayComplete(ReplayComplete {});
        let update = serde_json::to_value(update).expect("a unit update serialises");
        push_update(outbound, session_id, update, false);
    }

    fn ask_opened(&self, outbound: &Outbound, session_id: &str) {
        self.open_ask(outbound, session_id);
    }

    fn ask_closed(&self, outbound: &Outbound, session_id: &str, answered: bool) {
        self.close_ask(outbound, session_id, answered);
    }

    fn permission_request(&self, ask: PermissionAsk) -> PermissionRequest {
        PermissionRequest::new(ask, Version::V2)
    }

    fn permission_outcome(&self, answer: Value) -> Result<PermissionOutcome, EditorError> {
        Ok(permission_outcome(&answer))
    }
}
