//! What ACP schema 1.20.0 carries that the pinned SDK (schema 1.17) lacks, written by hand from
//! 1.20.0's definitions: the schema crate of 1.20 cannot sit beside the SDK's `=1.17.0` pin in
//! one build. Each type names the definition it follows; the definitions themselves are vendored
//! in `src/acp/tests/schema_1_20/` (`v1.json`, `v2.json`), and the conformance test and the
//! integration tests check what these types write against them. Where the SDK has a type (behind
//! its `unstable_*` features) it is used instead: nothing here repeats one.

use agent_client_protocol::JsonRpcRequest;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::AgentError;

/// `CursorId`: one position in a session's timeline, made by the agent and never reused.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct CursorId(pub(crate) String);

/// `CursorForkCapabilities`: `session/fork` accepts the cursor.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CursorForkCapabilities {}

/// `CursorCapabilities`: the methods that accept a cursor now.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CursorCapabilities {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fork: Option<CursorForkCapabilities>,
}

/// `CursorAnchorPosition`: before or after the anchoring entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CursorAnchorPosition {
    Before,
    After,
}

/// `CursorMessageAnchor`: a message the editor holds, by its `messageId`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CursorMessageAnchor {
    pub(crate) message_id: String,
    pub(crate) position: CursorAnchorPosition,
}

/// `CursorAnchor`: where a cursor is, relative to something the editor holds (the message
/// anchors; the schema's tool-call and compaction anchors are not sent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum CursorAnchor {
    UserMessage(CursorMessageAnchor),
    AgentMessage(CursorMessageAnchor),
}

/// `CursorUpdate`: a cursor announced (with its anchor, on its first update) or its
/// capabilities changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CursorUpdate {
    pub(crate) cursor_id: CursorId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) capabilities: Option<CursorCapabilities>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) anchor: Option<CursorAnchor>,
}

/// `ReplayComplete` (v2): the replay `session/resume {replayFrom}` asked for is over.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ReplayComplete {}

/// `PlanMarkdown`: a plan as Markdown, with the absolute path of the file that holds it (the
/// SDK's lacks `path`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PlanMarkdown {
    pub(crate) plan_id: String,
    pub(crate) content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) path: Option<String>,
}

/// `PlanUpdateContent`'s Markdown variant, in 1.20's form (the items are the SDK's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum PlanContent {
    Markdown(PlanMarkdown),
}

/// The `SessionUpdate` variants of 1.20 the SDK's enum lacks or writes short of 1.20, in the
/// `sessionUpdate`-tagged form of `session/update`'s `update`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "sessionUpdate", rename_all = "snake_case")]
pub(crate) enum SessionUpdate1_20 {
    CursorUpdate(CursorUpdate),
    /// v2 only.
    ReplayComplete(ReplayComplete),
    /// `PlanUpdate` of a Markdown plan with its file's path.
    PlanUpdate {
        plan: PlanContent,
    },
    PromptSuggestionsUpdate(PromptSuggestionsUpdate),
}

/// `PromptSuggestion`: a prompt the editor may send as it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PromptSuggestion {
    pub(crate) prompt: Vec<agent_client_protocol::v1::schema::ContentBlock>,
}

/// `PromptSuggestionsUpdate`: the session's suggestions now, most likely first (replacing the
/// ones before; an empty list withdraws them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PromptSuggestionsUpdate {
    pub(crate) suggestions: Vec<PromptSuggestion>,
}

/// `IdempotencyKey` (v2 `session/prompt`): one prompt's submission across retries, 1 to 255
/// characters, scoped to its session.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct IdempotencyKey(String);

impl IdempotencyKey {
    /// The key a prompt's params carry (`idempotencyKey`), if any; a key of the wrong type or
    /// length is invalid params, never ignored (a retry would run the prompt twice).
    pub(crate) fn of_params(params: &Value) -> Result<Option<Self>, AgentError> {
        match params.get("idempotencyKey") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(key)) if (1..=255).contains(&key.chars().count()) => {
                Ok(Some(Self(key.clone())))
            }
            Some(_) => Err(AgentError::InvalidParams(
                "idempotencyKey must be a string of 1 to 255 characters".into(),
            )),
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

/// `PromptRequest` (v2) as 1.20 has it: the pinned SDK's drops `idempotencyKey`, so its params
/// are taken as they came, read as the SDK's request, and the key read beside it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "session/prompt", response = agent_client_protocol::v2::schema::PromptResponse)]
pub(crate) struct PromptRequestV2(Value);

impl PromptRequestV2 {
    /// The request and its key; a malformed one is invalid params naming the fault.
    pub(crate) fn parse(
        self,
    ) -> Result<
        (
            agent_client_protocol::v2::schema::PromptRequest,
            Option<IdempotencyKey>,
        ),
        AgentError,
    > {
        let key = IdempotencyKey::of_params(&self.0)?;
        let mut params = self.0;
        skill_as_text(&mut params)?;
        let request = serde_json::from_value(params)
            .map_err(|e| AgentError::InvalidParams(format!("session/prompt: {e}")))?;
        Ok((request, key))
    }
}

/// A `skill` block (1.20's `SkillReference`: one, first in the prompt, as `session.prompt.skill`
/// allows) made what claude runs a skill from: `/name` at the start of the prompt's text.
fn skill_as_text(params: &mut Value) -> Result<(), AgentError> {
    let Some(blocks) = params.get_mut("prompt").and_then(Value::as_array_mut) else {
        return Ok(());
    };
    let is_skill = |block: &Value| block.get("type").and_then(Value::as_str) == Some("skill");
    let skills = blocks.iter().filter(|b| is_skill(b)).count();
    if skills == 0 {
        return Ok(());
    }
    if skills > 1 || !is_skill(&blocks[0]) {
        return Err(AgentError::InvalidParams(
            "a prompt takes one skill block, as its first block".into(),
        ));
    }
    let name = blocks[0]
        .get("name")
        .and_then(Value::as_str)
        .filter(|name| !name.is_empty() && !name.contains(char::is_whitespace))
        .ok_or_else(|| AgentError::InvalidParams("a skill block names a skill".into()))?;
    let command = format!("/{name}");
    let next_text = blocks
        .get_mut(1)
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .and_then(|b| b.get_mut("text"));
    match next_text {
        Some(Value::String(text)) => {
            *text = format!("{command} {text}");
            blocks.remove(0);
        }
        _ => blocks[0] = serde_json::json!({"type": "text", "text": command}),
    }
    Ok(())
}

/// `ForkSessionRequest.cursorId` (1.20): the point a fork starts from, if not the end.
pub(crate) fn fork_cursor(params: &Value) -> Result<Option<CursorId>, AgentError> {
    match params.get("cursorId") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(id)) if !id.is_empty() => Ok(Some(CursorId(id.clone()))),
        Some(_) => Err(AgentError::InvalidParams(
            "cursorId must be a cursor's id, a non-empty string".into(),
        )),
    }
}

/// What an editor declares at `initialize` under 1.20 that the pinned SDK's
/// `ClientSessionCapabilities` drops, as plain booleans: read from the request's raw
/// capabilities (v1's `clientCapabilities`, v2's `capabilities`; both keep them under `session`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Declared1_20 {
    /// `session.promptSuggestions`: the editor takes `prompt_suggestions_update`.
    pub(crate) prompt_suggestions: bool,
    /// `session.commands.skill` (v2): the editor takes `skill` entries in its command list.
    pub(crate) skill_commands: bool,
    /// `session.cursors` (v1; a v2 editor takes them undeclared): the editor takes
    /// `cursor_update`s.
    pub(crate) cursors: bool,
}

impl Declared1_20 {
    /// Whether the editor speaks schema 1.20: it declared a capability only 1.20 defines, so it
    /// knows what else 1.20 adds with no capability of its own (the `speed` config category).
    pub(crate) fn knows_1_20(&self) -> bool {
        self.prompt_suggestions || self.skill_commands || self.cursors
    }

    /// Read from `initialize`'s params, in either version's form. A capability is declared by an
    /// object (`{}`); absent, `null` or anything else is not (1.20 reads a malformed one as
    /// absent: `x-deserialize-default-on-error`).
    pub(crate) fn of_initialize(params: &Value) -> Self {
        let session = params
            .get("clientCapabilities")
            .or_else(|| params.get("capabilities"))
            .and_then(|caps| caps.get("session"));
        let declared = |path: &[&str]| {
            path.iter()
                .try_fold(session?, |value, key| value.get(key))
                .map(Value::is_object)
        };
        Declared1_20 {
            prompt_suggestions: declared(&["promptSuggestions"]).unwrap_or(false),
            skill_commands: declared(&["commands", "skill"]).unwrap_or(false),
            cursors: declared(&["cursors"]).unwrap_or(false),
        }
    }
}

#[cfg(test)]
mod tests;
