//! ACP v2's forms of what the session tells the editor, made from the v1 forms `to_proto` gives
//! (one translation of claude's events; this is only the wire's difference): tool calls become
//! `tool_call_update`s whose diffs are structured file changes, the plan a `plan_update` of
//! items, chunks carry the id of their message, config options name themselves `configId`, and
//! the turn's states are `user_message` and `state_update`s.

use serde_json::{Map, Value, json};

use agent_client_protocol::v1::schema as acp;

use crate::acp::shared::file_changes::tool_content;
use crate::acp::shared::to_proto;
use crate::domain::{AgentError, PromptBlock, SessionUpdate, StopReason, ToolStatus, TurnOutcome};

/// The id of a session's one plan: claude keeps one per session, replaced whole.
pub(crate) const PLAN_ID: &str = "plan";

/// What kind of message a chunk belongs to, for its `messageId`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Agent,
    Thought,
    User,
}

/// What v2 says of an update that v1's form cannot carry, read from the session's update before
/// it becomes v1's.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Beyond {
    /// A tool call ended `cancelled` (v1, which lacks the status, says `failed`).
    cancelled: bool,
    /// A tool call's `capabilities`: `Some(true)` offers `tool_call/cancel`, `Some(false)` takes
    /// it back (`null`).
    cancellable: Option<bool>,
    /// The message a chunk is part of, where the session knows it (the same live and replayed).
    message_id: Option<String>,
    /// The commands of a command list that are claude's skills, listed as `skill` entries
    /// (schema 1.20; marked only for an editor that declared `session.commands.skill`).
    skills: Vec<String>,
}

impl Beyond {
    /// A tool call whose background job runs (it carries the job's id) can be cancelled alone:
    /// claude stops the job (`stop_task`) and the turn goes on. Its final status takes that back.
    pub(crate) fn of(update: &SessionUpdate) -> Self {
        let call = match update {
            SessionUpdate::ToolCallUpdate(call) => call,
            SessionUpdate::UserMessageChunk { message_id, .. }
            | SessionUpdate::AgentMessageChunk { message_id, .. }
            | SessionUpdate::AgentThoughtChunk { message_id, .. } => {
                return Beyond {
                    message_id: message_id.clone(),
                    ..Beyond::default()
                };
            }
            SessionUpdate::AvailableCommands { commands } => {
                let skills = commands.iter().filter(|c| c.skill);
                return Beyond {
                    skills: skills.map(|c| c.name.clone()).collect(),
                    ..Beyond::default()
                };
            }
            _ => return Beyond::default(),
        };
        let cancellable = match (&call.async_task_id, call.status) {
            (None, _) | (Some(_), None) => None,
            (Some(_), Some(ToolStatus::InProgress)) => Some(true),
            (Some(_), Some(ToolStatus::Pending)) => None,
            (Some(_), Some(_)) => Some(false),
        };
        Beyond {
            cancelled: call.status == Some(ToolStatus::Cancelled),
            cancellable,
            ..Beyond::default()
        }
    }
}

/// A tool call's update in v2's form without a JSON copy of v1's (its output may be MiBs): the
/// SDK's v1 update with v2's tag, status and capabilities; the update given back when its
/// content holds a diff, which takes v2's own form (see [`session_update`]).
pub(crate) fn tool_call_update(
    mut call: acp::ToolCallUpdate,
    beyond: &Beyond,
) -> Result<impl serde::Serialize + Send + 'static, Box<acp::ToolCallUpdate>> {
    let diff = |item: &acp::ToolCallContent| matches!(item, acp::ToolCallContent::Diff(_));
    if call.fields.content.iter().flatten().any(diff) {
        return Err(Box::new(call));
    }
    let status = beyond.cancelled.then(|| {
        call.fields.status = None;
        "cancelled"
    });
    let capabilities = beyond.cancellable.map(|on| match on {
        true => json!({"cancel": {}}),
        false => Value::Null,
    });
    Ok(CallUpdate {
        session_update: "tool_call_update",
        call,
        status,
        capabilities,
    })
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct CallUpdate {
    session_update: &'static str,
    #[serde(flatten)]
    call: acp::ToolCallUpdate,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    capabilities: Option<Value>,
}

/// A v1 `session/update` payload (its `update`) in v2's form: `None` for what v2 has no
/// counterpart of (`current_mode_update`: the mode is the `mode` config option, whose update
/// always comes with it). `message_id` names the message of a chunk, given the id the session
/// knows for it, if any; `beyond` is what v1's form lost of the session's update.
pub(crate) fn session_update(
    mut update: Value,
    beyond: Beyond,
    message_id: impl FnOnce(Stream, Option<String>) -> String,
) -> Option<Value> {
    let object = update.as_object_mut()?;
    let kind = object.get("sessionUpdate")?.as_str()?.to_owned();
    match kind.as_str() {
        "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk" => {
            let stream = match kind.as_str() {
                "agent_message_chunk" => Stream::Agent,
                "agent_thought_chunk" => Stream::Thought,
                _ => Stream::User,
            };
            let id = message_id(stream, beyond.message_id);
            object.insert("messageId".into(), Value::String(id));
        }
        "tool_call" | "tool_call_update" => {
            object.insert("sessionUpdate".into(), "tool_call_update".into());
            tool_call(object);
            if beyond.cancelled {
                object.insert("status".into(), "cancelled".into());
            }
            match beyond.cancellable {
                Some(true) => {
                    object.insert("capabilities".into(), json!({"cancel": {}}));
                }
                Some(false) => {
                    object.insert("capabilities".into(), Value::Null);
                }
                None => {}
            }
        }
        "plan" => {
            let entries = object.remove("entries").unwrap_or_else(|| json!([]));
            let meta = object.remove("_meta");
            let mut plan = json!({
                "sessionUpdate": "plan_update",
                "plan": {"type": "items", "planId": PLAN_ID, "entries": entries},
            });
            if let Some(meta) = meta {
                plan["_meta"] = meta;
            }
            return Some(plan);
        }
        "config_option_update" => {
            if let Some(Value::Array(options)) = object.get_mut("configOptions") {
                options.iter_mut().for_each(config_option);
            }
        }
        "available_commands_update" => {
            // Each is v2's `command`; v1's unstructured input (a hint) is v2's `text` input.
            let commands = object
                .get_mut("availableCommands")
                .and_then(Value::as_array_mut);
            for command in commands.into_iter().flatten() {
                let Some(command) = command.as_object_mut() else {
                    continue;
                };
                let is_skill = command
                    .get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|name| beyond.skills.iter().any(|s| s == name));
                if is_skill {
                    // 1.20's `Skill`: invoked by a `skill` block, so it takes no input.
                    command.insert("type".into(), "skill".into());
                    command.remove("input");
                    continue;
                }
                command.insert("type".into(), "command".into());
                if let Some(Value::Object(input)) = command.get_mut("input") {
                    input.entry("type").or_insert_with(|| "text".into());
                }
            }
        }
        "current_mode_update" => return None,
        _ => {}
    }
    Some(update)
}

/// The child session's own `state_update` for a `subagent_update` that reports the subagent's
/// state (v2 reports it on the child's stream as for any session, and mirrors it on the parent).
pub(crate) fn child_state(update: &Value) -> Option<(String, Value)> {
    if update["sessionUpdate"] != "subagent_update" {
        return None;
    }
    let child = update["sessionId"].as_str()?.to_owned();
    let mut state = update.get("state")?.as_object()?.clone();
    state.insert("sessionUpdate".into(), "state_update".into());
    Some((child, Value::Object(state)))
}

/// A v1 tool call (or its update) as v2's patch of the same call: the diffs as file changes.
pub(crate) fn tool_call(call: &mut Map<String, Value>) {
    if let Some(Value::Array(content)) = call.get_mut("content") {
        content.iter_mut().for_each(tool_content);
    }
}

/// A v1 config option as v2's: the same, its `id` named `configId`.
pub(crate) fn config_option(option: &mut Value) {
    if let Some(object) = option.as_object_mut()
        && let Some(id) = object.remove("id")
    {
        object.insert("configId".into(), id);
    }
}

/// The prompt as the content of its `user_message`.
pub(crate) fn user_message(message_id: &str, prompt: &[PromptBlock]) -> Value {
    let content: Vec<Value> = prompt.iter().map(content_block).collect();
    json!({"sessionUpdate": "user_message", "messageId": message_id, "content": content})
}

fn content_block(block: &PromptBlock) -> Value {
    match block {
        PromptBlock::Text(text) => json!({"type": "text", "text": text}),
        PromptBlock::Image {
            data,
            mime_type,
            uri,
        } => {
            let mut image = json!({"type": "image", "data": data, "mimeType": mime_type});
            if let Some(uri) = uri {
                image["uri"] = json!(uri);
            }
            image
        }
        PromptBlock::ResourceLink { uri, name } => {
            json!({"type": "resource_link", "uri": uri, "name": name})
        }
        PromptBlock::EmbeddedText {
            uri,
            text,
            mime_type,
        } => {
            let mut resource = json!({"uri": uri, "text": text});
            if let Some(mime) = mime_type {
                resource["mimeType"] = json!(mime);
            }
            json!({"type": "resource", "resource": resource})
        }
        PromptBlock::EmbeddedBlob {
            uri,
            blob,
            mime_type,
        } => {
            let mut resource = json!({"uri": uri, "blob": blob});
            if let Some(mime) = mime_type {
                resource["mimeType"] = json!(mime);
            }
            json!({"type": "resource", "resource": resource})
        }
    }
}

/// `state_update` of a running or blocked turn.
pub(crate) fn state(state: &str) -> Value {
    json!({"sessionUpdate": "state_update", "state": state})
}

/// The `idle` that ends a turn: its stop reason and tokens, or the JSON-RPC error v1 answers
/// the prompt with (so `-32000` still starts the editor's sign-in).
pub(crate) fn idle(outcome: &Result<TurnOutcome, AgentError>) -> Value {
    let mut idle = state("idle");
    match outcome {
        Ok(outcome) => {
            idle["stopReason"] = json!(stop_reason(outcome.stop_reason));
            if let Some(usage) = outcome.usage {
                idle["usage"] =
                    serde_json::to_value(to_proto::turn_usage(usage)).unwrap_or(Value::Null);
            }
            if let Some(meta) = to_proto::rate_limits_meta(&outcome.rate_limits) {
                idle["_meta"] = Value::Object(meta);
            }
        }
        Err(e) => {
            idle["stopReason"] = json!("error");
            let error = crate::acp::shared::errors::to_rpc(e.clone());
            idle["error"] = serde_json::to_value(error).unwrap_or(Value::Null);
        }
    }
    idle
}

fn stop_reason(reason: StopReason) -> &'static str {
    match reason {
        StopReason::EndTurn => "end_turn",
        StopReason::MaxTokens => "max_tokens",
        StopReason::MaxTurnRequests => "max_turn_requests",
        StopReason::Refusal => "refusal",
        StopReason::Cancelled => "cancelled",
    }
}
