//! The adapter's own types -> ACP payloads.

use agent_client_protocol::v1::schema as acp;

use super::schema_1_20::{PromptSuggestion, PromptSuggestionsUpdate, SessionUpdate1_20};

use crate::domain::{
    AnchorMessage, CompactionStatus, ConfigOption, ContentChunk, Cursor, ElicitationField,
    ModeState, Notice, NoticeSeverity, PermissionOption, PermissionOptionKind, PlanEntry,
    PlanPriority, PlanStatus, RateLimitWindow, RateLimits, SessionUpdate, SlashCommand, StopReason,
    ToolCall, ToolCallUpdate, ToolContent, ToolKind, ToolLocation, ToolStatus, TurnUsage, Usage,
};

pub fn session_update(update: SessionUpdate) -> acp::SessionUpdate {
    use acp::SessionUpdate as U;
    match update {
        SessionUpdate::UserMessageChunk { content, .. } => U::UserMessageChunk(chunk(content)),
        SessionUpdate::AgentMessageChunk { content, .. } => U::AgentMessageChunk(chunk(content)),
        SessionUpdate::AgentThoughtChunk { content, .. } => U::AgentThoughtChunk(chunk(content)),
        SessionUpdate::SubagentMessageChunk {
            text,
            parent_tool_use_id,
        } => U::AgentMessageChunk(chunk(ContentChunk::text(text)).meta(claude_code_meta(
            "parentToolUseId",
            parent_tool_use_id.into(),
        ))),
        SessionUpdate::ToolCall(call) => U::ToolCall(tool_call(call)),
        SessionUpdate::ToolCallUpdate(update) => U::ToolCallUpdate(tool_call_update(update)),
        SessionUpdate::Plan { entries } => U::Plan(acp::Plan::new(
            entries.into_iter().map(plan_entry).collect(),
        )),
        SessionUpdate::Usage(usage) => U::UsageUpdate(usage_update(usage)),
        SessionUpdate::CurrentMode { mode_id } => {
            U::CurrentModeUpdate(acp::CurrentModeUpdate::new(mode_id))
        }
        SessionUpdate::AvailableCommands { commands } => U::AvailableCommandsUpdate(
            acp::AvailableCommandsUpdate::new(commands.into_iter().map(command).collect()),
        ),
        SessionUpdate::ConfigOptions { options } => {
            U::ConfigOptionUpdate(acp::ConfigOptionUpdate::new(config_options(options)))
        }
        SessionUpdate::SessionInfo { title, updated_at } => {
            // Only what is known: a `null` would clear what the editor has.
            let mut info = acp::SessionInfoUpdate::new();
            if let Some(title) = title {
                info = info.title(title);
            }
            if let Some(updated_at) = updated_at {
                info = info.updated_at(updated_at);
            }
            U::SessionInfoUpdate(info)
        }
        SessionUpdate::Compaction { id, status } => {
            let status = match status {
                CompactionStatus::InProgress => acp::CompactionStatus::InProgress,
                CompactionStatus::Completed => acp::CompactionStatus::Completed,
                CompactionStatus::Failed => acp::CompactionStatus::Failed,
            };
            U::CompactionUpdate(acp::CompactionUpdate::new(id, status))
        }
        SessionUpdate::Notice(notice) => U::Notice(self::notice(notice)),
        SessionUpdate::Subagent(subagent) => super::subagents::subagent_update(subagent),
        // The SDK's Markdown plan has no `path`: the editor's client writes 1.20's
        // (`markdown_plan`); this is the same update short of it.
        SessionUpdate::MarkdownPlan { content, .. } => U::PlanUpdate(acp::PlanUpdate::new(
            acp::PlanUpdateContent::markdown(PLAN_FILE_ID, content),
        )),
        // The SDK has no suggestions: the TypeScript adapter's `_meta` is the nearest in its
        // types (the editor's client writes 1.20's `prompt_suggestions_update` instead).
        SessionUpdate::PromptSuggestions(suggestions) => {
            let mut meta = acp::Meta::new();
            meta.insert("promptSuggestions".into(), suggestions.into());
            U::SessionInfoUpdate(acp::SessionInfoUpdate::new().meta(meta))
        }
        // The child's id is the caller's (the editor's client sends it under that id).
        SessionUpdate::InSubagent { update, .. } => session_update(*update),
        SessionUpdate::MessageFrom {
            message_id,
            sender,
            recipient,
            text,
        } => super::subagents::session_message(message_id, sender, recipient, text),
        // Never reached: the editor's client writes a cursor in 1.20's form (`cursor_update`),
        // which the SDK has not, or drops it; this is the update that says nothing.
        SessionUpdate::Cursor(_) => U::SessionInfoUpdate(acp::SessionInfoUpdate::new()),
    }
}

/// A cursor as 1.20's `cursor_update`, announced with its anchor and the fork it takes.
pub(crate) fn cursor_update(cursor: Cursor) -> serde_json::Value {
    use super::schema_1_20::{
        CursorAnchor, CursorAnchorPosition, CursorCapabilities, CursorForkCapabilities, CursorId,
        CursorMessageAnchor, CursorUpdate, SessionUpdate1_20,
    };
    let anchor = CursorMessageAnchor {
        message_id: cursor.message_id,
        position: if cursor.after {
            CursorAnchorPosition::After
        } else {
            CursorAnchorPosition::Before
        },
    };
    let update = SessionUpdate1_20::CursorUpdate(CursorUpdate {
        cursor_id: CursorId(cursor.id),
        capabilities: Some(CursorCapabilities {
            fork: Some(CursorForkCapabilities {}),
        }),
        anchor: Some(match cursor.message {
            AnchorMessage::User => CursorAnchor::UserMessage(anchor),
            AnchorMessage::Agent => CursorAnchor::AgentMessage(anchor),
        }),
    });
    serde_json::to_value(update).expect("a cursor update serialises")
}

/// The subscription's windows as `_meta`: `claudeCode.rateLimits.{fiveHour, weekly}` with
/// `status`, `usedShare` (0 to 1) and `resetsAt` (RFC 3339), and the TypeScript adapter's
/// `_claude/rateLimit` (the most pressing window in claude's own shape). `None` when claude
/// reported no limits (API key, Bedrock, Vertex).
pub fn rate_limits_meta(limits: &RateLimits) -> Option<acp::Meta> {
    if limits.is_empty() {
        return None;
    }
    let window = |w: &Option<RateLimitWindow>| {
        w.map(|w| {
            serde_json::json!({
                "status": w.status.as_str(),
                "usedShare": w.used_share,
                "resetsAt": w.resets_at.map(|t| crate::time::rfc3339(
                    std::time::UNIX_EPOCH + std::time::Duration::from_secs(t.max(0.0) as u64))),
            })
        })
    };
    let pressing = [
        ("five_hour", limits.five_hour),
        ("seven_day", limits.weekly),
    ]
    .into_iter()
    .filter_map(|(kind, w)| w.map(|w| (kind, w)))
    .max_by(|a, b| {
        let rank = |w: &RateLimitWindow| (w.status as u8, w.used_share.unwrap_or(0.0));
        rank(&a.1)
            .partial_cmp(&rank(&b.1))
            .unwrap_or(std::cmp::Ordering::Equal)
    })
    .map(|(kind, w)| {
        serde_json::json!({
            "status": w.status.as_str(),
            "rateLimitType": kind,
            "utilization": w.used_share,
            "resetsAt": w.resets_at,
        })
    });
    let mut meta = acp::Meta::new();
    meta.insert(
        "claudeCode".into(),
        serde_json::json!({"rateLimits": {
            "fiveHour": window(&limits.five_hour),
            "weekly": window(&limits.weekly),
        }}),
    );
    if let Some(pressing) = pressing {
        meta.insert("_claude/rateLimit".into(), pressing);
    }
    Some(meta)
}

/// `_meta: {"claudeCode": {"kind": ...}}`, which both forms of a notice carry.
fn notice_meta(kind: &str) -> acp::Meta {
    let mut meta = acp::Meta::new();
    meta.insert("claudeCode".into(), serde_json::json!({ "kind": kind }));
    meta
}

fn notice(n: Notice) -> acp::Notice {
    let severity = match n.severity {
        NoticeSeverity::Info => acp::NoticeSeverity::Info,
        NoticeSeverity::Warning => acp::NoticeSeverity::Warning,
        NoticeSeverity::Error => acp::NoticeSeverity::Error,
    };
    acp::Notice::new(severity, n.title)
        .description(n.description)
        .meta(notice_meta(n.kind))
}

/// A notice for an editor that did not declare `session.notices`: a short agent line, marked
/// with the notice's kind.
pub fn notice_as_message(n: Notice) -> acp::SessionUpdate {
    let chunk = acp::ContentChunk::new(acp::ContentBlock::Text(acp::TextContent::new(n.as_text())))
        .meta(notice_meta(n.kind));
    acp::SessionUpdate::AgentMessageChunk(chunk)
}

fn chunk(content: ContentChunk) -> acp::ContentChunk {
    acp::ContentChunk::new(content_block(content))
}

fn content_block(content: ContentChunk) -> acp::ContentBlock {
    match content {
        ContentChunk::Text { text } => acp::ContentBlock::Text(acp::TextContent::new(text)),
        ContentChunk::Image { data, mime_type } => {
            acp::ContentBlock::Image(acp::ImageContent::new(data, mime_type))
        }
    }
}

pub fn tool_kind(kind: ToolKind) -> acp::ToolKind {
    match kind {
        ToolKind::Read => acp::ToolKind::Read,
        ToolKind::Edit => acp::ToolKind::Edit,
        ToolKind::Delete => acp::ToolKind::Delete,
        ToolKind::Move => acp::ToolKind::Move,
        ToolKind::Search => acp::ToolKind::Search,
        ToolKind::Execute => acp::ToolKind::Execute,
        ToolKind::Think => acp::ToolKind::Think,
        ToolKind::Fetch => acp::ToolKind::Fetch,
        ToolKind::SwitchMode => acp::ToolKind::SwitchMode,
        ToolKind::Other => acp::ToolKind::Other,
    }
}

fn tool_status(status: ToolStatus) -> acp::ToolCallStatus {
    match status {
        ToolStatus::Pending => acp::ToolCallStatus::Pending,
        ToolStatus::InProgress => acp::ToolCallStatus::InProgress,
        ToolStatus::Completed => acp::ToolCallStatus::Completed,
        ToolStatus::Failed | ToolStatus::Cancelled => acp::ToolCallStatus::Failed,
    }
}

fn location(l: ToolLocation) -> acp::ToolCallLocation {
    acp::ToolCallLocation::new(l.path).line(l.line)
}

/// `input` is the call's raw input, which a [`ToolContent::DiffOfInput`]'s text is copied from
/// (on the SDK's own paths; ours write it from the input, see `tool_call_json`).
pub(crate) fn tool_content(
    c: ToolContent,
    input: Option<&serde_json::Value>,
) -> acp::ToolCallContent {
    match c {
        ToolContent::Text { text } => acp::ToolCallContent::Content(acp::Content::new(
            acp::ContentBlock::Text(acp::TextContent::new(text)),
        )),
        ToolContent::Diff {
            path,
            old_text,
            new_text,
        } => acp::ToolCallContent::Diff(acp::Diff::new(path, new_text).old_text(old_text)),
        ToolContent::Terminal { terminal_id } => {
            acp::ToolCallContent::Terminal(acp::Terminal::new(terminal_id))
        }
        ToolContent::DiffOfInput { path } => {
            let text = input
                .and_then(|input| input.get("content"))
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default();
            acp::ToolCallContent::Diff(acp::Diff::new(path, text))
        }
    }
}

pub fn tool_call(call: ToolCall) -> acp::ToolCall {
    let meta = call
        .parent_tool_call
        .map(|parent| claude_code_meta("parentToolUseId", parent.into()));
    acp::ToolCall::new(call.id, call.title)
        .kind(tool_kind(call.kind))
        .status(tool_status(call.status))
        .locations(call.locations.into_iter().map(location).collect())
        .content(
            call.content
                .into_iter()
                .map(|c| tool_content(c, call.raw_input.as_ref()))
                .collect(),
        )
        .raw_input(call.raw_input)
        .meta(meta)
}

/// `{"claudeCode": {key: value}}`: what only claude knows about a tool call, in its `_meta`
/// (the key the TypeScript adapter's clients read).
fn claude_code_meta(key: &str, value: serde_json::Value) -> acp::Meta {
    let mut inner = serde_json::Map::new();
    inner.insert(key.to_owned(), value);
    let mut meta = acp::Meta::new();
    meta.insert("claudeCode".into(), serde_json::Value::Object(inner));
    meta
}

/// The SDK's update, whole: a value held out of `raw_output` is copied back in (our own writing
/// of v1's update writes it from the shown text instead, see `tool_call_json`).
pub fn tool_call_update(mut u: ToolCallUpdate) -> acp::ToolCallUpdate {
    u.copy_shown_output();
    let mut fields = acp::ToolCallUpdateFields::new();
    fields.title = u.title;
    fields.kind = u.kind.map(tool_kind);
    fields.status = u.status.map(tool_status);
    fields.locations = u.locations.map(|ls| ls.into_iter().map(location).collect());
    fields.content = u.content.map(|cs| {
        cs.into_iter()
            .map(|c| tool_content(c, u.raw_input.as_deref()))
            .collect()
    });
    fields.raw_input = u.raw_input.map(std::sync::Arc::unwrap_or_clone);
    fields.raw_output = u.raw_output.map(serde_json::Value::Object);
    let mut claude_code = serde_json::Map::new();
    if let Some(seconds) = u.elapsed_seconds {
        claude_code.insert("elapsedSeconds".into(), seconds.into());
    }
    if let Some(task) = u.async_task_id {
        claude_code.insert("asyncTaskId".into(), task.into());
    }
    let meta = (!claude_code.is_empty()).then(|| {
        let mut meta = acp::Meta::new();
        meta.insert("claudeCode".into(), serde_json::Value::Object(claude_code));
        meta
    });
    acp::ToolCallUpdate::new(u.id, fields).meta(meta)
}

/// The id of a session's one item plan: claude keeps one to-do list per session, replaced whole.
pub const ITEM_PLAN_ID: &str = "plan";

/// The id of plan mode's plan, a Markdown plan beside the to-do list.
pub const PLAN_FILE_ID: &str = "plan-file";

/// Plan mode's plan with its file's path, as 1.20 writes it (`session/update`'s `update`).
pub fn markdown_plan(content: String, path: Option<String>) -> serde_json::Value {
    use super::schema_1_20::{PlanContent, PlanMarkdown, SessionUpdate1_20};
    let plan = PlanMarkdown {
        plan_id: PLAN_FILE_ID.into(),
        content,
        path,
    };
    let update = SessionUpdate1_20::PlanUpdate {
        plan: PlanContent::Markdown(plan),
    };
    serde_json::to_value(update).unwrap_or_default()
}

/// The session's plan as a plan operation, for an editor that declared `plan`: the whole list
/// (`plan_update` of items), or, once claude's list is empty, `plan_removed`.
pub fn plan_operation(entries: Vec<PlanEntry>) -> acp::SessionUpdate {
    if entries.is_empty() {
        return acp::SessionUpdate::PlanRemoved(acp::PlanRemoved::new(ITEM_PLAN_ID));
    }
    let entries = entries.into_iter().map(plan_entry).collect();
    acp::SessionUpdate::PlanUpdate(acp::PlanUpdate::new(acp::PlanUpdateContent::items(
        ITEM_PLAN_ID,
        entries,
    )))
}

fn plan_entry(e: PlanEntry) -> acp::PlanEntry {
    let priority = match e.priority {
        PlanPriority::High => acp::PlanEntryPriority::High,
        PlanPriority::Medium => acp::PlanEntryPriority::Medium,
        PlanPriority::Low => acp::PlanEntryPriority::Low,
    };
    let status = match e.status {
        PlanStatus::Pending => acp::PlanEntryStatus::Pending,
        PlanStatus::InProgress => acp::PlanEntryStatus::InProgress,
        PlanStatus::Completed => acp::PlanEntryStatus::Completed,
    };
    acp::PlanEntry::new(e.content, priority, status)
}

fn usage_update(u: Usage) -> acp::UsageUpdate {
    acp::UsageUpdate::new(u.used, u.size)
        .cost(u.cost_usd.map(|c| acp::Cost::new(c, "USD")))
        .meta(rate_limits_meta(&u.rate_limits))
}

fn command(c: SlashCommand) -> acp::AvailableCommand {
    acp::AvailableCommand::new(c.name, c.description).input(
        c.input_hint.filter(|h| !h.is_empty()).map(|h| {
            acp::AvailableCommandInput::Unstructured(acp::UnstructuredCommandInput::new(h))
        }),
    )
}

pub fn config_options(options: Vec<ConfigOption>) -> Vec<acp::SessionConfigOption> {
    options
        .into_iter()
        .map(|o| {
            let values: Vec<acp::SessionConfigSelectOption> = o
                .values
                .into_iter()
                .map(|v| {
                    acp::SessionConfigSelectOption::new(v.id, v.name).description(v.description)
                })
                .collect();
            let category = o.category.map(|c| match c.as_str() {
                "mode" => acp::SessionConfigOptionCategory::Mode,
                "model" => acp::SessionConfigOptionCategory::Model,
                _ => acp::SessionConfigOptionCategory::Other(c),
            });
            let option = if o.boolean {
                acp::SessionConfigOption::boolean(o.id, o.name, o.current == ConfigOption::ON)
            } else {
                acp::SessionConfigOption::select(o.id, o.name, o.current, values)
            };
            option.description(o.description).category(category)
        })
        .collect()
}

pub fn modes(m: ModeState) -> acp::SessionModeState {
    acp::SessionModeState::new(
        m.current,
        m.available
            .into_iter()
            .map(|mode| acp::SessionMode::new(mode.id, mode.name).description(mode.description))
            .collect(),
    )
}

pub fn permission_option(o: PermissionOption) -> acp::PermissionOption {
    let kind = match o.kind {
        PermissionOptionKind::AllowOnce => acp::PermissionOptionKind::AllowOnce,
        PermissionOptionKind::AllowAlways => acp::PermissionOptionKind::AllowAlways,
        PermissionOptionKind::RejectOnce => acp::PermissionOptionKind::RejectOnce,
        PermissionOptionKind::RejectAlways => acp::PermissionOptionKind::RejectAlways,
    };
    acp::PermissionOption::new(o.id, o.name, kind)
}

/// ACP's end-turn usage (unstable `unstable_end_turn_token_usage`).
pub fn turn_usage(u: TurnUsage) -> acp::Usage {
    let mut usage = acp::Usage::new(u.total(), u.input, u.output);
    usage.thought_tokens = u.thinking;
    usage.cached_read_tokens = Some(u.cache_read);
    usage.cached_write_tokens = Some(u.cache_write);
    usage
}

pub fn stop_reason(r: StopReason) -> acp::StopReason {
    match r {
        StopReason::EndTurn => acp::StopReason::EndTurn,
        StopReason::MaxTokens => acp::StopReason::MaxTokens,
        StopReason::MaxTurnRequests => acp::StopReason::MaxTurnRequests,
        StopReason::Refusal => acp::StopReason::Refusal,
        StopReason::Cancelled => acp::StopReason::Cancelled,
    }
}

pub fn session_status(s: crate::domain::SessionStatus) -> acp::SessionStatus {
    match s {
        crate::domain::SessionStatus::Open => acp::SessionStatus::Open,
        crate::domain::SessionStatus::Saved => acp::SessionStatus::Saved,
    }
}

/// The one provider of `providers/list`: claude's route, which may be turned off (`required`
/// false: `providers/disable` gives claude the environment's route again).
pub fn provider(route: crate::domain::ProviderRoute) -> acp::ProviderInfo {
    let protocol = |api: crate::domain::ApiKind| match api {
        crate::domain::ApiKind::Anthropic => acp::LlmProtocol::Anthropic,
        crate::domain::ApiKind::Bedrock => acp::LlmProtocol::Bedrock,
        crate::domain::ApiKind::Vertex => acp::LlmProtocol::Vertex,
    };
    use crate::domain::ApiKind::{Anthropic, Bedrock, Vertex};
    acp::ProviderInfo::new(
        crate::domain::MAIN_PROVIDER,
        [Anthropic, Bedrock, Vertex]
            .into_iter()
            .map(protocol)
            .collect(),
        false,
        acp::ProviderCurrentConfig::new(protocol(route.api), route.base_url),
    )
}

/// One question of a form (`elicitation/create`): a single or multiple choice among labels.
pub(crate) fn form_field(field: &ElicitationField) -> acp::ElicitationPropertySchema {
    let choices: Vec<acp::EnumOption> = field
        .options
        .iter()
        .map(|(label, description)| {
            acp::EnumOption::new(label.clone(), label.clone()).description(description.clone())
        })
        .collect();
    if field.multiple {
        acp::MultiSelectPropertySchema::titled(choices)
            .title(field.title.clone())
            .description(field.description.clone())
            .min_items(1)
            .into()
    } else {
        acp::StringPropertySchema::new()
            .title(field.title.clone())
            .description(field.description.clone())
            .one_of(choices)
            .into()
    }
}

/// 1.20's `prompt_suggestions_update`: each suggestion a prompt of one text block.
pub(crate) fn prompt_suggestions(suggestions: Vec<String>) -> serde_json::Value {
    let update = SessionUpdate1_20::PromptSuggestionsUpdate(PromptSuggestionsUpdate {
        suggestions: suggestions
            .into_iter()
            .map(|text| PromptSuggestion {
                prompt: vec![acp::ContentBlock::Text(acp::TextContent::new(text))],
            })
            .collect(),
    });
    serde_json::to_value(update).unwrap_or_default()
}
