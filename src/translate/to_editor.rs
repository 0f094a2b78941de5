//! claude's stdout lines -> the session updates the editor sees, one turn at a time.
//!
//! Rules (checked against the pinned CLI's transcripts):
//! - Text and thinking are relayed from `stream_event` deltas as they arrive. claude then prints an
//!   assembled `assistant` line per content block, *before* that block's `content_block_stop`; that
//!   line's block is the one most recently started in its message. Whatever the deltas already relayed
//!   of it is not sent again (only a tail the deltas missed is). Without stream events for a message,
//!   the `assistant` lines' text and thinking are sent whole.
//! - Subagent traffic (`parent_tool_use_id` set): its text and thinking are not the main agent's words
//!   and are dropped (its text is forwarded, tagged with its Task call, to a client that opted in);
//!   its tool calls and their results are shown, so the user sees what runs.
//! - Every `tool_use` becomes a tool call, including TodoWrite and the Task* tools, which also update
//!   the plan (main thread only: a subagent's to-do list is not the session's plan).
//! - `system/task_started` (a command or subagent starts) puts its call `in_progress`; `tool_progress`
//!   heartbeats of a running tool (every 30 s from the pinned claude): the call is `in_progress`, with the elapsed time
//!   (`_meta.claudeCode.elapsedSeconds`, and the body of a Bash or Task call, which has none yet).
//! - `user` lines: tool results end their tool calls; claude's injected text ("[Request interrupted
//!   by user]") is not shown. A result for a tool use this translator never saw is dropped.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;

use super::message_blocks::Stream;
use super::plan::{self, TaskList};
use super::session_info::InitInfo;
use super::subagents::in_child;
use super::tool_result::{ToolResult, tool_result_update};
use super::tools::tool_call_for;
use super::turn_end::{self, ContextTokens, TurnEnd};
use super::usage::SessionTotals;
use crate::claude::wire::{
    AssistantMessage, ClaudeMessage, ContentBlock, RateLimitInfo, ResultMessage, StreamEvent,
    SystemMessage, ToolProgress, UserContent, UserEcho,
};
use crate::domain::{RateLimits, SessionUpdate, ToolCallUpdate, ToolContent, ToolStatus, Usage};

/// Something the session must act on, beyond forwarding updates.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TurnSignal {
    /// claude started a turn (`system/init`).
    Init(InitInfo),
    /// claude's permission mode is not the one last observed (init or `system/status`), e.g. after
    /// ExitPlanMode or a mode set from elsewhere.
    ModeChanged(String),
    /// A command claude ran in the background ended: its card is updated once its output is read.
    BackgroundJobEnded(super::JobEnd),
}

/// What one stdout line means for the editor.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Translation {
    pub(crate) updates: Vec<SessionUpdate>,
    pub(crate) signals: Vec<TurnSignal>,
}

/// A tool use waiting for its result.
struct PendingTool {
    name: String,
    main_thread: bool,
    /// The child session of the subagent whose call it is, where its card is shown.
    child: Option<String>,
    /// Kept only for the Task* tools and ExitPlanMode, whose result is read against their input.
    input: Option<Value>,
}

/// Translates one session's claude output. One per session; `start_turn` at each prompt.
pub(crate) struct TurnTranslator {
    cwd: PathBuf,
    stream: Stream,
    tools: HashMap<String, PendingTool>,
    tasks: TaskList,
    mode: Option<String>,
    /// The last main-thread API response of the turn and its context size.
    last_context: Option<(Option<String>, ContextTokens)>,
    compactions: super::Compactions,
    notices: super::notices::Notices,
    /// The subscription's usage windows, from claude's `rate_limit_event`s.
    rate_limits: RateLimits,
    /// The last context usage told, sent again with new limits when a rate-limit event comes.
    last_usage: Option<Usage>,
    /// The session's cost and tokens per model, from the last `result` (claude's totals).
    totals: SessionTotals,
    /// Commands running in the background, followed across turns until they end.
    background: super::background::BackgroundJobs,
    /// Whether subagents' text goes to the editor (`_meta.claudeCode.options.forwardSubagentText`).
    forward_subagent_text: bool,
    /// The subagents that run, as child sessions of this one.
    subagents: super::subagents::Subagents,
    /// Which block of its API message each main-thread assistant line is.
    assembled: super::message_blocks::StoredBlocks,
}

impl TurnTranslator {
    pub(crate) fn new(cwd: PathBuf) -> Self {
        TurnTranslator {
            cwd,
            stream: Stream::default(),
            tools: HashMap::new(),
            background: super::background::BackgroundJobs::default(),
            forward_subagent_text: false,
            subagents: super::subagents::Subagents::default(),
            assembled: Default::default(),
            tasks: TaskList::default(),
            mode: None,
            last_context: None,
            compactions: super::Compactions::default(),
            notices: super::notices::Notices::default(),
            rate_limits: RateLimits::default(),
            last_usage: None,
            totals: SessionTotals::default(),
        }
    }

    /// Sends subagents' text to the editor from now on, tagged with their Task call.
    pub(crate) fn forward_subagent_text(&mut self, on: bool) {
        self.forward_subagent_text = on;
    }

    /// The session's id, which names its subagents' child sessions.
    pub(crate) fn name_session(&mut self, id: &str) {
        self.subagents = super::subagents::Subagents::new(id);
    }

    /// Sends each subagent's own output (text, thinking, tool calls) to its child session.
    pub(crate) fn route_subagents(&mut self, on: bool) {
        self.subagents.route_to_children(on);
    }

    /// Whether claude's task `task_id` is a subagent that runs.
    pub(crate) fn subagent_runs(&self, task_id: &str) -> bool {
        self.subagents.runs(task_id)
    }

    /// claude's task for the background job tool call `tool_call_id` started, while it runs.
    pub(crate) fn background_task_of(&self, tool_call_id: &str) -> Option<String> {
        self.background.task_of(tool_call_id).map(str::to_owned)
    }

    /// claude ended: what the editor must be told of the work that ended with it (its subagents,
    /// and the cards of its background jobs, which no notification will end now).
    pub(crate) fn claude_ended(&mut self) -> Vec<SessionUpdate> {
        let subagents = self.subagents.claude_ended().into_iter();
        let jobs = self.background.claude_ended().into_iter();
        subagents
            .map(SessionUpdate::Subagent)
            .chain(jobs.map(SessionUpdate::ToolCallUpdate))
            .collect()
    }

    /// Forgets the previous turn's streaming and tool state. The plan and the mode carry over.
    pub(crate) fn start_turn(&mut self) {
        self.stream = Stream::default();
        self.tools.clear();
        self.last_context = None;
    }

    /// A prompt of the editor's starts: the streaming state starts afresh, but the tool calls
    /// still waiting for their results keep them (a turn claude ran on its own, cancelled just
    /// before, reports its denied call after this prompt reached it).
    pub(crate) fn prompt_starts(&mut self) {
        self.stream = Stream::default();
        self.last_context = None;
    }

    /// One stdout line, taken by value so that a tool's output moves into its update instead of
    /// being copied (outputs can be tens of MiB). `result` lines go to
    /// [`TurnTranslator::on_result`]; control traffic is the session's and yields nothing here.
    pub(crate) fn on_message(&mut self, msg: ClaudeMessage) -> Translation {
        let mut out = Translation::default();
        match msg {
            ClaudeMessage::StreamEvent(e) => self.on_stream_event(*e, &mut out),
            ClaudeMessage::Assistant(a) => self.on_assistant(*a, &mut out),
            ClaudeMessage::User(u) => self.on_user(*u, &mut out),
            ClaudeMessage::System(s) => self.on_system(&s, &mut out),
            ClaudeMessage::ToolProgress(p) => self.on_tool_progress(&p, &mut out),
            ClaudeMessage::RateLimit(r) => self.on_rate_limit(&r.rate_limit_info, &mut out),
            // ACP: a suggestion is never empty or only whitespace.
            ClaudeMessage::PromptSuggestion(s) if !s.suggestion.trim().is_empty() => {
                let suggestions = vec![s.suggestion];
                out.updates
                    .push(SessionUpdate::PromptSuggestions(suggestions));
            }
            _ => {}
        }
        out
    }

    /// The end of the turn: the usage update and the stop reason. Resets the turn state.
    pub(crate) fn on_result(&mut self, r: &ResultMessage) -> TurnEnd {
        let last = self.last_context.take().map(|(_, tokens)| tokens);
        let mut usage = turn_end::usage_update(r, last);
        if let Some(SessionUpdate::Usage(u)) = usage.as_mut() {
            u.rate_limits = self.rate_limits;
            self.last_usage = Some(u.clone());
        }
        self.totals.on_result(r);
        let end = TurnEnd {
            updates: turn_end::unchecked_denials(r)
                .into_iter()
                .chain(usage)
                .collect(),
            outcome: turn_end::outcome(r),
            usage: turn_end::turn_usage(r),
            rate_limits: self.rate_limits,
            sign_in_needed: r.startup_needs_sign_in(),
        };
        self.start_turn();
        end
    }

    /// The subscription's usage windows as claude last reported them.
    pub(crate) fn rate_limits(&self) -> RateLimits {
        self.rate_limits
    }

    /// What `/usage` shows: the session's cost, tokens per model, and the limits.
    pub(crate) fn usage_report(&self) -> String {
        super::usage::usage_text(&self.totals, &self.rate_limits)
    }

    /// A window moved: the notice if it nears or reaches its limit, and the usage again with the
    /// new figures (once a turn has told the context's size).
    fn on_rate_limit(&mut self, info: &RateLimitInfo, out: &mut Translation) {
        out.updates.extend(
            self.notices
                .on_rate_limit(info)
                .into_iter()
                .map(SessionUpdate::Notice),
        );
        if !super::usage::apply_rate_limit(&mut self.rate_limits, info) {
            return;
        }
        if let Some(usage) = self.last_usage.as_mut() {
            usage.rate_limits = self.rate_limits;
            out.updates.push(SessionUpdate::Usage(usage.clone()));
        }
    }

    /// Takes the event by value: a delta's text moves into its chunk.
    fn on_stream_event(&mut self, e: StreamEvent, out: &mut Translation) {
        if e.parent_tool_use_id.is_some() {
            return;
        }
        let event = e.event;
        let index = event.index;
        match event.kind.as_deref().unwrap_or_default() {
            "message_start" => {
                let message = event.message.as_ref();
                let id = message
                    .and_then(|m| m.get("id"))
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                if let Some(usage) = message.and_then(|m| m.get("usage")) {
                    self.last_context = Some((id.clone(), ContextTokens::from_usage(usage)));
                }
                self.stream = Stream {
                    message_id: id,
                    ..Stream::default()
                };
            }
            "content_block_start" => self.stream.block = index,
            "content_block_delta" => {
                let delta = event.delta;
                let (text, thought) = match delta.kind.as_deref() {
                    Some("text_delta") => (delta.text, false),
                    Some("thinking_delta") => (delta.thinking, true),
                    _ => return,
                };
                let Some(text) = text.filter(|t| !t.is_empty()) else {
                    return;
                };
                *self.stream.relayed.entry(index.unwrap_or(0)).or_default() += text.len();
                let message = self.stream.message_id.as_deref();
                out.updates.push(super::message_blocks::chunk(
                    text,
                    thought,
                    message,
                    index.unwrap_or(0),
                ));
            }
            "message_delta" => {
                // The final output count; the assembled lines carry the count at message start.
                let output = event
                    .usage
                    .as_ref()
                    .and_then(|usage| usage.get("output_tokens"))
                    .and_then(Value::as_u64);
                if let (Some(output), Some((id, tokens))) = (output, self.last_context.as_mut())
                    && *id == self.stream.message_id
                {
                    tokens.output = tokens.output.max(output);
                }
            }
            _ => {}
        }
    }

    /// Takes the message by value: a tool use's input moves into its tool call (a Write's input
    /// holds the whole file).
    fn on_assistant(&mut self, mut a: AssistantMessage, out: &mut Translation) {
        if let Some(child) = self.subagents.child_of(a.parent_tool_use_id.as_deref()) {
            for block in self.subagents.own_words(&child, &mut a, &mut out.updates) {
                if let ContentBlock::ToolUse { id, name, input } = block {
                    self.on_tool_use(&a, &id, &name, input, out);
                }
            }
            return;
        }
        let main_thread = a.parent_tool_use_id.is_none();
        let message_id = a.message.id.clone();
        let streamed = main_thread && message_id.is_some() && message_id == self.stream.message_id;
        if main_thread && let Some(usage) = &a.message.usage {
            let mut tokens = ContextTokens::from_usage(usage);
            if let Some((id, seen)) = &self.last_context
                && *id == message_id
            {
                tokens.output = tokens.output.max(seen.output);
            }
            self.last_context = Some((message_id.clone(), tokens));
        }
        // Unstreamed (a transcript), a one-block line's index is how many of its message came before.
        let line_of_message = match main_thread {
            true => self.assembled.line_of(message_id.as_deref()),
            false => 0,
        };
        let single = a.message.content.len() == 1;
        let blocks = std::mem::take(&mut a.message.content);
        for (position, block) in blocks.into_iter().enumerate() {
            // claude prints one block per line; a line with several is a whole message.
            let index = if single && streamed {
                self.stream.block.unwrap_or(0)
            } else if single {
                line_of_message
            } else {
                position as u64
            };
            match block {
                ContentBlock::Text { text } if main_thread => out.updates.extend(self.stream.rest(
                    &text,
                    (streamed, message_id.as_deref()),
                    index,
                    false,
                )),
                ContentBlock::Thinking { thinking, .. } if main_thread => out.updates.extend(
                    self.stream
                        .rest(&thinking, (streamed, message_id.as_deref()), index, true),
                ),
                ContentBlock::Text { text } if self.forward_subagent_text && !text.is_empty() => {
                    if let Some(parent) = &a.parent_tool_use_id {
                        out.updates.push(SessionUpdate::SubagentMessageChunk {
                            text,
                            parent_tool_use_id: parent.clone(),
                        });
                    }
                }
                ContentBlock::ToolUse { id, name, input } => {
                    self.on_tool_use(&a, &id, &name, input, out)
                }
                _ => {}
            }
        }
    }

    fn on_tool_use(
        &mut self,
        a: &AssistantMessage,
        id: &str,
        name: &str,
        input: Value,
        out: &mut Translation,
    ) {
        if self.tools.contains_key(id) {
            return;
        }
        let main_thread = a.parent_tool_use_id.is_none();
        let meta = a.tool_use_meta.iter().flatten().find(|m| m.id == id);
        let todo_plan = (main_thread && name == "TodoWrite")
            .then(|| plan::todo_write_plan(&input))
            .flatten();
        let kept = (plan::is_task_tool(name) || name == "ExitPlanMode").then(|| input.clone());
        let mut call = tool_call_for(name, id, input, &self.cwd, meta);
        // A subagent's call is its own card: in its child session, or here linked to the Task
        // call that runs the subagent.
        let child = self.subagents.child_of(a.parent_tool_use_id.as_deref());
        if child.is_none() {
            call.parent_tool_call = a.parent_tool_use_id.clone();
        }
        let call = SessionUpdate::ToolCall(call);
        out.updates.push(in_child(child.as_deref(), call));
        if let Some(entries) = todo_plan {
            out.updates.push(SessionUpdate::Plan { entries });
        }
        let input = kept;
        self.tools.insert(
            id.to_owned(),
            PendingTool {
                name: super::tools::shown_name(name).to_owned(),
                main_thread,
                child,
                input,
            },
        );
    }

    /// claude's heartbeat for a tool still running: the call is in progress, for so long. A Bash
    /// command or a subagent shows nothing until it ends, so its body says how long it has run.
    fn on_tool_progress(&mut self, p: &ToolProgress, out: &mut Translation) {
        // A heartbeat has an id of its own and names the running tool as its parent; a tool's own
        // progress (a subagent's command) names the tool and its Task as the parent.
        let Some((id, tool)) = [Some(&p.tool_use_id), p.parent_tool_use_id.as_ref()]
            .into_iter()
            .flatten()
            .find_map(|id| self.tools.get(id).map(|tool| (id.clone(), tool)))
        else {
            return;
        };
        let seconds = p.elapsed_time_seconds.max(0.0);
        let name = tool.name.as_str();
        let content = (super::tools::is_command_tool(name) || matches!(name, "Task" | "Agent"))
            .then(|| {
                vec![ToolContent::Text {
                    text: format!("Running for {}…", elapsed(seconds)),
                }]
            });
        let update = SessionUpdate::ToolCallUpdate(ToolCallUpdate {
            id,
            status: Some(ToolStatus::InProgress),
            content,
            elapsed_seconds: Some(seconds),
            async_task_id: None,
            ..ToolCallUpdate::default()
        });
        out.updates.push(in_child(tool.child.as_deref(), update));
    }

    fn on_user(&mut self, u: UserEcho, out: &mut Translation) {
        out.updates.extend(self.subagents.instructions(&u));
        let UserContent::Blocks(blocks) = u.message.content else {
            return;
        };
        let results = blocks
            .iter()
            .filter(|b| matches!(b, ContentBlock::ToolResult { .. }))
            .count();
        // `tool_use_result` describes the line's only result; with several it is ambiguous.
        let mut structured = if results == 1 {
            u.tool_use_result
        } else {
            None
        };
        for block in blocks {
            let ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } = block
            else {
                continue;
            };
            let Some(tool) = self.tools.remove(&tool_use_id) else {
                tracing::debug!(tool_use_id, "a result for an unseen tool use was dropped");
                continue;
            };
            let is_error = is_error.unwrap_or(false);
            // Task tools' results are small: read them before the result moves into its update.
            let plan_file = match (is_error, tool.main_thread, tool.name.as_str()) {
                (false, true, "ExitPlanMode") => {
                    plan::plan_file(tool.input.as_ref(), structured.as_ref())
                }
                _ => None,
            };
            let plan = match (is_error, tool.main_thread, &tool.input) {
                (false, true, Some(input)) => {
                    self.tasks
                        .apply(&tool.name, input, structured.as_ref(), &content.text())
                }
                _ => None,
            };
            // A command or subagent sent to the background goes on after this result: it is
            // not done yet.
            let (job, subagent) = match tool.name.as_str() {
                _ if is_error => (None, false),
                name if super::tools::is_command_tool(name) => (
                    self.background.started(&tool_use_id, structured.as_ref()),
                    false,
                ),
                "Task" | "Agent" => (
                    self.background
                        .subagent_started(&tool_use_id, structured.as_ref()),
                    true,
                ),
                _ => (None, false),
            };
            // A foreground subagent's report (not a nested one's): to the parent from its child.
            let foreground = subagent && job.is_none() && u.parent_tool_use_id.is_none();
            let (subagents, line) = (&mut self.subagents, u.uuid.as_deref());
            let report = subagents.report(foreground, structured.as_ref(), line);
            let mut update = tool_result_update(ToolResult {
                tool_use_id,
                tool_name: Some(&tool.name),
                content,
                is_error,
                structured: structured.take(),
            });
            if job.is_some() {
                update.status = Some(ToolStatus::InProgress);
                update.async_task_id = job;
                if subagent {
                    // claude's launch note is metadata for the model ("never quote ... agentId");
                    // the card says what happens instead, until the subagent's report replaces it.
                    update.remove_content();
                    update.content = Some(vec![ToolContent::Text {
                        text: "Working in the background…".into(),
                    }]);
                }
            }
            let update = SessionUpdate::ToolCallUpdate(update);
            out.updates.push(in_child(tool.child.as_deref(), update));
            out.updates.extend(report);
            if let Some(entries) = plan {
                out.updates.push(SessionUpdate::Plan { entries });
            }
            out.updates.extend(plan_file);
        }
    }

    fn on_system(&mut self, s: &SystemMessage, out: &mut Translation) {
        let news = self.compactions.on_system(s);
        out.updates.extend(news.update);
        out.updates.extend(
            self.notices
                .on_system(s)
                .into_iter()
                .map(SessionUpdate::Notice),
        );
        if let Some(after) = news.context_after {
            // The context shrank: the turn's usage is what is left, until the next response.
            let tokens = ContextTokens {
                input: after,
                output: 0,
            };
            self.last_context = Some((None, tokens));
        }
        if let Some(end) = self.background.ended(s) {
            out.signals.push(TurnSignal::BackgroundJobEnded(end));
        }
        out.updates.extend(self.subagents.updates_of(s));
        match s.subtype.as_str() {
            "init" => {
                let info = InitInfo::from_system(s);
                let mode = info.permission_mode.clone();
                out.signals.push(TurnSignal::Init(info));
                if let Some(mode) = mode {
                    self.observe_mode(&mode, out);
                }
            }
            "status" => {
                if let Some(mode) = s.str_field("permissionMode") {
                    self.observe_mode(mode, out);
                }
            }
            // A command or subagent started running (its permission, if any, was given).
            "task_started" => {
                if let Some((id, tool)) = s
                    .str_field("tool_use_id")
                    .and_then(|id| self.tools.get_key_value(id))
                {
                    let update = SessionUpdate::ToolCallUpdate(ToolCallUpdate {
                        id: id.to_owned(),
                        status: Some(ToolStatus::InProgress),
                        ..ToolCallUpdate::default()
                    });
                    out.updates.push(in_child(tool.child.as_deref(), update));
                }
            }
            _ => {}
        }
    }

    fn observe_mode(&mut self, mode: &str, out: &mut Translation) {
        if self.mode.as_deref() != Some(mode) {
            self.mode = Some(mode.to_owned());
            out.signals.push(TurnSignal::ModeChanged(mode.to_owned()));
        }
    }
}

/// `42 s`, `3 min 05 s`.
fn elapsed(seconds: f64) -> String {
    let whole = seconds as u64;
    match whole {
        0..60 => format!("{whole} s"),
        _ => format!("{} min {:02} s", whole / 60, whole % 60),
    }
}
