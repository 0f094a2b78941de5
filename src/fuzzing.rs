//! Entry points for the fuzz targets in `fuzz/`: each feeds arbitrary bytes to one side's real
//! input path and panics when a promise to the user breaks. Built with the `fuzzing` feature (the
//! fuzz crate turns it on) and in unit tests, which replay seeds through the same bodies; not part
//! of the adapter's interface.
//!
//! - [`claude_stdout`]: the bytes are claude's stdout. The stdout reader, the parser, the turn
//!   translation, the control-request triage and the permission choices run on them; the
//!   big-line path must read every line as the normal one does; every update
//!   must read back with the editor's SDK, every permission ask must offer a way to reject, and the
//!   log masking must leave no API key and be stable.
//! - [`editor_stdin`]: the bytes are the editor's stdin. Our transport and the SDK's dispatch run
//!   on them over a core that answers at once (it still checks `_meta` options as `session/new`
//!   does); everything written back must be JSON-RPC, no request id is answered twice, and a
//!   well-formed request after the bytes must still be answered.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use crate::acp::fuzzing::{PROBE_ID, check_update_reads_back, serve_bytes};
use crate::claude::fuzzing::{
    log_excerpt, redact_secrets, stdout_messages, stdout_messages_all_big,
};
use crate::claude::wire::ClaudeMessage;
use crate::domain::{
    AgentCore, AgentError, AgentFeatures, ConfigOption, NewSession, PermissionOptionKind,
    PromptBlock, SessionOpened, SessionPage, StopReason, TurnOutcome,
};
use crate::permissions;
use crate::session::{ControlAction, classify_control_request, meta};
use crate::translate::TurnTranslator;

/// The bytes as claude's whole stdout.
pub fn claude_stdout(bytes: &[u8]) {
    let messages = stdout_messages(bytes);
    assert_eq!(
        stdout_messages_all_big(bytes),
        messages,
        "the big-line path reads the lines as the normal one does"
    );
    let lines = bytes.split(|b| *b == b'\n').count();
    assert!(
        messages.len() <= lines,
        "{} messages from {lines} lines",
        messages.len()
    );
    let cwd = Path::new("/home/user/project");
    let mut translator = TurnTranslator::new(cwd.to_path_buf());
    for message in messages {
        let updates = match message {
            ClaudeMessage::Result(result) => translator.on_result(&result).updates,
            ClaudeMessage::ControlRequest(request) => {
                control_request(request, cwd);
                continue;
            }
            other => translator.on_message(other).updates,
        };
        for update in updates {
            check_update_reads_back(update);
        }
    }
    for line in bytes.split(|b| *b == b'\n') {
        check_masking(&String::from_utf8_lossy(line));
    }
}

/// A control request claude sends: triaged as the session does; a permission ask gets its choices.
fn control_request(request: crate::claude::wire::InboundControlRequest, cwd: &Path) {
    if let ControlAction::AskPermission(ask) = classify_control_request(request) {
        let choices = permissions::permission_choices(&ask, cwd);
        let rejects = choices
            .options
            .iter()
            .filter(|o| o.kind == PermissionOptionKind::RejectOnce)
            .count();
        assert_eq!(rejects, 1, "every ask offers Reject once: {choices:?}");
    }
}

/// What the log may show of a line of claude's: no key left, masking twice changes nothing, and
/// the excerpt stays short.
fn check_masking(line: &str) {
    const KEY_PREFIX: &str = "sk-ant-";
    let masked = redact_secrets(line);
    for (at, _) in masked.match_indices(KEY_PREFIX) {
        assert!(
            masked[at + KEY_PREFIX.len()..].starts_with("[REDACTED]"),
            "a key survived masking: {masked:?}"
        );
    }
    assert_eq!(redact_secrets(&masked), masked, "masking is not stable");
    let excerpt = log_excerpt(line, 200);
    assert!(
        excerpt.len() <= 200 * 3 + 32,
        "a log excerpt of {} bytes",
        excerpt.len()
    );
}

/// The bytes as the editor's stdin.
pub fn editor_stdin(bytes: &[u8]) {
    let written = serve_bytes(Arc::new(InstantCore), bytes);
    let mut answered: HashMap<String, usize> = HashMap::new();
    for message in &written {
        assert!(
            message.get("jsonrpc").and_then(Value::as_str) == Some("2.0"),
            "not JSON-RPC 2.0: {message}"
        );
        let is_answer = message.get("result").is_some() || message.get("error").is_some();
        if let (true, Some(id)) = (is_answer, message.get("id"))
            && !id.is_null()
        {
            *answered.entry(id.to_string()).or_default() += 1;
        }
    }
    let sent_ids = request_ids(bytes);
    for (id, count) in &answered {
        let sent = sent_ids.get(id).copied().unwrap_or(0);
        assert!(
            *count <= sent.max(1),
            "id {id} answered {count} times, sent {sent} times"
        );
    }
    let probe = Value::String(PROBE_ID.to_owned()).to_string();
    // Answered with a result; on a connection the bytes made v2 and used, with v2's refusal of
    // an `initialize` after other requests (`-32600`), which is an answer too.
    let probe_answered = written.iter().any(|m| {
        m.get("id").map(Value::to_string) == Some(probe.clone())
            && (m["result"].is_object() || m["error"]["code"] == -32600)
    });
    assert!(
        probe_answered,
        "a well-formed request after the input went unanswered: {written:?}"
    );
}

/// How many lines of the input carry each request id (as JSON text). Read as the transport reads
/// them: a line that is not UTF-8 is still answered under its id, so it counts too.
fn request_ids(bytes: &[u8]) -> HashMap<String, usize> {
    let mut ids = HashMap::new();
    for line in bytes.split(|b| *b == b'\n') {
        let line = String::from_utf8_lossy(line);
        if let Ok(Value::Object(message)) = serde_json::from_str::<Value>(&line)
            && let Some(id) = message.get("id")
        {
            *ids.entry(id.to_string()).or_default() += 1;
        }
    }
    ids
}

/// A core that answers every request at once, with every feature the adapter has on: the fuzzer's
/// editor side runs alone over it, and the conformance test reads what it advertises. The one
/// stand-in for the agent-core seam.
pub(crate) struct InstantCore;

#[async_trait]
impl AgentCore for InstantCore {
    fn features(&self) -> AgentFeatures {
        crate::session::config::features()
    }
    async fn authenticate(
        &self,
        _method_id: &str,
        _gateway: Option<crate::domain::Gateway>,
    ) -> Result<(), AgentError> {
        Ok(())
    }
    async fn new_session(&self, req: NewSession) -> Result<SessionOpened, AgentError> {
        opened(req)
    }
    async fn load_session(&self, _: &str, req: NewSession) -> Result<SessionOpened, AgentError> {
        opened(req)
    }
    async fn resume_session(&self, _: &str, req: NewSession) -> Result<SessionOpened, AgentError> {
        opened(req)
    }
    async fn fork_session(&self, _: &str, req: NewSession) -> Result<SessionOpened, AgentError> {
        opened(req)
    }
    async fn list_sessions(
        &self,
        _cwd: Option<PathBuf>,
        _cursor: Option<String>,
        _archived: crate::domain::ArchiveFilter,
    ) -> Result<SessionPage, AgentError> {
        Ok(SessionPage {
            sessions: Vec::new(),
            next_cursor: None,
        })
    }
    async fn close_session(&self, _: &str) -> Result<(), AgentError> {
        Ok(())
    }
    async fn prompt(
        &self,
        _: &str,
        blocks: Vec<PromptBlock>,
        _: Option<crate::domain::AnswerWritten>,
    ) -> Result<TurnOutcome, AgentError> {
        Ok(if blocks.is_empty() {
            StopReason::Refusal
        } else {
            StopReason::EndTurn
        }
        .into())
    }
    fn cancel(&self, _: &str) {}
    async fn set_mode(&self, _: &str, _: &str) -> Result<(), AgentError> {
        Ok(())
    }
    async fn set_config_option(
        &self,
        _: &str,
        _: &str,
        _: &str,
    ) -> Result<Vec<ConfigOption>, AgentError> {
        Ok(Vec::new())
    }
    async fn shutdown(&self) {}
}

/// `session/new` and its kin: `_meta` options are checked as the real sessions check them.
fn opened(req: NewSession) -> Result<SessionOpened, AgentError> {
    meta::flags_from_meta(req.meta.as_ref())
        .map_err(|e| AgentError::InvalidParams(e.to_string()))?;
    Ok(SessionOpened {
        session_id: "fuzz-session".to_owned(),
        modes: None,
        config_options: Vec::new(),
    })
}

#[cfg(test)]
mod tests;
