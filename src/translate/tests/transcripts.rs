//! Feeds every `claude->client` line of a recorded transcript to a translator and snapshots what
//! the editor would see. The transcripts (`fixtures/transcripts/`) are captures of the real CLI.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::claude::wire::ClaudeMessage;
use crate::domain::{ContentChunk, SessionUpdate, StopReason};
use crate::translate::{TurnSignal, TurnTranslator};

/// The working directory the transcripts were recorded in (rewritten by the recorder).
pub(crate) const TRANSCRIPT_CWD: &str = "/run/work";

/// What the editor sees for one transcript: per line that produced anything, the updates,
/// the signals, and for `result` lines the turn's outcome.
pub(crate) struct Replay {
    pub(crate) updates: Vec<SessionUpdate>,
    pub(crate) outcomes: Vec<Result<StopReason, String>>,
    pub(crate) signals: Vec<TurnSignal>,
    pub(crate) log: Vec<Value>,
}

pub(crate) fn replay(name: &str) -> Replay {
    replay_for(name, TurnTranslator::new(PathBuf::from(TRANSCRIPT_CWD)))
}

/// [`replay`] through `translator`, set up as a session would.
fn replay_for(name: &str, mut translator: TurnTranslator) -> Replay {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/transcripts")
        .join(format!("{name}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut replay = Replay {
        updates: vec![],
        outcomes: vec![],
        signals: vec![],
        log: vec![],
    };
    for line in text.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        if record["dir"] == "client->claude" && record["msg"]["type"] == "user" {
            translator.start_turn();
            continue;
        }
        if record["dir"] != "claude->client" {
            continue;
        }
        let seq = record["seq"].clone();
        let message = ClaudeMessage::from_value(record["msg"].clone()).unwrap();
        let entry = if let ClaudeMessage::Result(r) = &message {
            let end = translator.on_result(r);
            replay.outcomes.push(end.outcome.clone());
            replay.updates.extend(end.updates.iter().cloned());
            json!({"seq": seq, "result": format!("{:?}", end.outcome), "updates": end.updates})
        } else {
            let out = translator.on_message(message.clone());
            if out.updates.is_empty() && out.signals.is_empty() {
                continue;
            }
            let signals: Vec<String> = out.signals.iter().map(describe).collect();
            replay.updates.extend(out.updates.iter().cloned());
            replay.signals.extend(out.signals);
            let mut entry = json!({"seq": seq, "updates": out.updates});
            if !signals.is_empty() {
                entry["signals"] = json!(signals);
            }
            entry
        };
        replay.log.push(entry);
    }
    replay
}

fn describe(signal: &TurnSignal) -> String {
    match signal {
        TurnSignal::Init(info) => format!(
            "init version={} model={} mode={}",
            info.claude_code_version.as_deref().unwrap_or("?"),
            info.model.as_deref().unwrap_or("?"),
            info.permission_mode.as_deref().unwrap_or("?")
        ),
        other => format!("{other:?}"),
    }
}

/// All agent message text, in order.
pub(crate) fn agent_text(updates: &[SessionUpdate]) -> String {
    updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::AgentMessageChunk {
                content: ContentChunk::Text { text },
                ..
            } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

macro_rules! transcript_snapshots {
    ($($name:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            let log = replay(stringify!($name)).log;
            insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
                insta::assert_json_snapshot!(stringify!($name), log);
            });
        }
    )*};
}

transcript_snapshots!(
    a_text,
    b_write_allow,
    c_write_deny,
    d_ask_user_question,
    e_sdk_mcp,
    e2_sdk_mcp_no_toolsearch,
    f_interrupt,
    f2_interrupt_pending_permission,
    g_set_permission_mode,
    h_partial_messages,
    i_resume,
    j_no_permission_prompt_tool,
    j2_permission_prompts_none,
    k_mcp_permission_prompt_tool,
    k2_mcp_permission_prompt_tool_structured,
    l_bash_edit,
    m_todowrite,
    m2_task_tools,
    n_malformed_input,
    o_permission_reply_variants,
    p_close_stdin_midturn,
    q_rate_limit_event,
    r_subagent,
);

/// A subagent's run for an editor that follows child sessions: its instructions, words and
/// tool calls go to its child (the `InSubagent` updates), where `r_subagent` (an editor
/// without `subagents`) shows only its tool calls.
#[test]
fn r_subagent_children() {
    let mut translator = TurnTranslator::new(PathBuf::from(TRANSCRIPT_CWD));
    translator.name_session("s");
    translator.route_subagents(true);
    let log = replay_for("r_subagent", translator).log;
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_json_snapshot!("r_subagent_children", log);
    });
}
