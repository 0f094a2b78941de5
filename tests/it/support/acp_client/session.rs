//! ACP v1 conveniences on top of the raw client: the calls an editor makes and the views of
//! `session/update` a user would see (streamed text, tool call cards).

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::time::Duration;

use serde_json::{Value, json};

use super::{AcpClient, RpcError};

/// The option `id` of an answer's or update's `configOptions` list, if there is one.
pub fn config_option(options: &Value, id: &str) -> Option<Value> {
    options.as_array()?.iter().find(|o| o["id"] == id).cloned()
}

/// A responder for `session/request_permission` that selects the first option of `kind`
/// (`allow_once`, `allow_always`, `reject_once`, `reject_always`).
pub fn choose_permission(
    kind: &'static str,
) -> impl Fn(&Value) -> Result<Value, (i64, String)> + Send + Sync + 'static {
    move |params| {
        let options = params.get("options").and_then(Value::as_array);
        let chosen = options
            .into_iter()
            .flatten()
            .find(|option| option.get("kind").and_then(Value::as_str) == Some(kind))
            .and_then(|option| option.get("optionId").cloned());
        match chosen {
            Some(option_id) => {
                Ok(json!({"outcome": {"outcome": "selected", "optionId": option_id}}))
            }
            None => Err((
                -32603,
                format!(
                    "scripted test client: no option of kind {kind} in {}",
                    params["options"]
                ),
            )),
        }
    }
}

impl AcpClient {
    /// `initialize` with protocol version 1 and no fs/terminal capabilities; panics on error.
    pub async fn initialize(&self) -> Value {
        self.initialize_with(false).await
    }

    /// `initialize`, advertising form elicitation when `elicitation_form` is set.
    pub async fn initialize_with(&self, elicitation_form: bool) -> Value {
        let mut capabilities = json!({
            "fs": {"readTextFile": false, "writeTextFile": false},
            "terminal": false,
        });
        if elicitation_form {
            capabilities["elicitation"] = json!({"form": {}});
        }
        self.initialize_with_capabilities(capabilities).await
    }

    /// `initialize` declaring exactly these client capabilities; panics on error.
    pub async fn initialize_with_capabilities(&self, capabilities: Value) -> Value {
        let params = json!({
            "protocolVersion": 1,
            "clientCapabilities": capabilities,
            "clientInfo": {"name": "claude-acp-tests", "version": "0.0.0"},
        });
        self.request("initialize", params)
            .await
            .unwrap_or_else(|e| panic!("initialize failed: {e}\n{}", self.diagnostics()))
    }

    /// `session/new` in `cwd` with no MCP servers; its whole answer (id, modes, config options).
    pub async fn open_session(&self, cwd: impl AsRef<Path>) -> Value {
        let params = json!({"cwd": cwd.as_ref(), "mcpServers": []});
        self.request("session/new", params)
            .await
            .unwrap_or_else(|e| panic!("session/new failed: {e}\n{}", self.diagnostics()))
    }

    /// The config options of the session `opened` (an answer to `session/new`) once they hold
    /// option `id`: the answer's own, or those of the update that follows when the answer could
    /// not wait for them. A process's first session waits at most 1.8 s for claude's list, and a
    /// claude starting cold on a busy machine takes longer.
    pub async fn options_holding(&self, opened: &Value, id: &str) -> Value {
        if config_option(&opened["configOptions"], id).is_some() {
            return opened["configOptions"].clone();
        }
        let session = opened["sessionId"].as_str().unwrap_or_default().to_owned();
        self.wait_for_update(
            |u| {
                u["sessionId"] == session.as_str()
                    && config_option(&u["update"]["configOptions"], id).is_some()
            },
            Duration::from_secs(60),
        )
        .await["update"]["configOptions"]
            .clone()
    }

    /// `session/new` in `cwd` with no MCP servers; returns the session id; panics on error.
    pub async fn new_session(&self, cwd: impl AsRef<Path>) -> String {
        let result = self.open_session(cwd).await;
        match result.get("sessionId").and_then(Value::as_str) {
            Some(id) => id.to_owned(),
            None => panic!("session/new answered without sessionId: {result}"),
        }
    }

    /// Waits for the first `available_commands_update` (the slash commands offered); that update.
    pub async fn wait_for_commands(&self, within: Duration) -> Value {
        self.wait_for_update(
            |u| u["update"]["sessionUpdate"] == "available_commands_update",
            within,
        )
        .await
    }

    /// `session/load` of `session` in `cwd`; a failure panics with the client's diagnostics.
    pub async fn load_session(&self, session: &str, cwd: impl AsRef<Path>) -> Value {
        let params = json!({"sessionId": session, "cwd": cwd.as_ref(), "mcpServers": []});
        self.request("session/load", params)
            .await
            .unwrap_or_else(|e| panic!("session/load: {e}\n{}", self.diagnostics()))
    }

    /// A prompt that must end its turn normally; anything else panics with the diagnostics.
    pub async fn prompt_to_end_turn(&self, session: &str, text: &str) {
        let stop = self
            .prompt(session, text)
            .await
            .unwrap_or_else(|e| panic!("{text}: {e}\n{}", self.diagnostics()));
        assert_eq!(stop["stopReason"], "end_turn", "{}", self.diagnostics());
    }

    /// `session/prompt` with one text block. Lines are handled in arrival order, so when this
    /// returns every update the adapter sent before its response is already recorded.
    pub async fn prompt(&self, session: &str, text: &str) -> Result<Value, RpcError> {
        self.prompt_blocks(session, vec![json!({"type": "text", "text": text})])
            .await
    }

    pub async fn prompt_blocks(
        &self,
        session: &str,
        blocks: Vec<Value>,
    ) -> Result<Value, RpcError> {
        self.request(
            "session/prompt",
            json!({"sessionId": session, "prompt": blocks}),
        )
        .await
    }

    /// Starts `session/prompt` with `text` and drives it until its request is written, so that
    /// prompts go out in the order of the calls; the future it returns waits for the answer.
    pub async fn send_prompt<'a>(
        &'a self,
        session: &'a str,
        text: &'a str,
    ) -> Pin<Box<dyn Future<Output = Result<Value, RpcError>> + 'a>> {
        let before = self.sent().len();
        let mut answer: Pin<Box<dyn Future<Output = _> + 'a>> =
            Box::pin(self.prompt(session, text));
        let written = async {
            while self.sent().len() == before {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::select! {
            early = &mut answer => return Box::pin(std::future::ready(early)),
            () = written => {}
        }
        answer
    }

    /// The `session/prompt` requests sent so far: each one's first text block and JSON-RPC id.
    pub fn prompt_ids(&self) -> Vec<(String, Value)> {
        self.sent()
            .iter()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|m| m["method"] == "session/prompt")
            .map(|m| {
                let text = m["params"]["prompt"][0]["text"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned();
                (text, m["id"].clone())
            })
            .collect()
    }

    /// What the editor saw, in order: each prompt's answer as `answer <text>: <stop reason>`
    /// (`an error` for an error), and the agent text streamed before it as one `text ...` entry.
    pub fn answers_and_text(&self) -> Vec<String> {
        let ids = self.prompt_ids();
        let mut seen = Vec::new();
        let mut text = String::new();
        for message in self.transcript() {
            if message["method"] == "session/update"
                && message["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
            {
                text.push_str(
                    message["params"]["update"]["content"]["text"]
                        .as_str()
                        .unwrap_or(""),
                );
            } else if message.get("method").is_none()
                && let Some((prompt, _)) = ids.iter().find(|(_, id)| *id == message["id"])
            {
                if !text.is_empty() {
                    seen.push(format!("text {}", std::mem::take(&mut text)));
                }
                let stop = message["result"]["stopReason"]
                    .as_str()
                    .unwrap_or("an error");
                seen.push(format!("answer {prompt}: {stop}"));
            }
        }
        seen
    }

    /// `session/cancel` notification.
    pub async fn cancel(&self, session: &str) {
        self.notify("session/cancel", json!({"sessionId": session}))
            .await;
    }

    /// Answers every later permission request by selecting its `allow_once` option.
    pub fn allow_permissions(&self) {
        self.on_request(
            "session/request_permission",
            choose_permission("allow_once"),
        );
    }

    /// The `update` objects of every `session/update` for `session`, in order.
    pub fn updates(&self, session: &str) -> Vec<Value> {
        let record = self.shared.lock();
        record
            .updates
            .iter()
            .filter(|params| params.get("sessionId").and_then(Value::as_str) == Some(session))
            .map(|params| params.get("update").cloned().unwrap_or(Value::Null))
            .collect()
    }

    /// How many `session/update` notifications (all sessions) arrived so far: a cursor for
    /// [`AcpClient::wait_for_update_from`].
    pub fn update_count(&self) -> usize {
        self.shared.lock().updates.len()
    }

    /// Waits for a `session/update` whose params (`{sessionId, update}`) satisfy `pred`, looking at
    /// every update received since the start; panics with diagnostics on timeout.
    pub async fn wait_for_update(&self, pred: impl Fn(&Value) -> bool, timeout: Duration) -> Value {
        self.wait_for_update_from(0, pred, timeout).await
    }

    /// Like `wait_for_update`, ignoring the first `start` updates.
    pub async fn wait_for_update_from(
        &self,
        start: usize,
        pred: impl Fn(&Value) -> bool,
        timeout: Duration,
    ) -> Value {
        let found = self
            .shared
            .wait_for(timeout, |record| {
                record.updates.iter().skip(start).find(|u| pred(u)).cloned()
            })
            .await;
        found.unwrap_or_else(|why| {
            panic!(
                "waiting for a matching session/update: {why}\n{}",
                self.diagnostics()
            )
        })
    }

    /// The agent's streamed reply: the text of every `agent_message_chunk`, concatenated.
    pub fn agent_text(&self, session: &str) -> String {
        self.chunk_text(session, "agent_message_chunk")
    }

    /// The streamed reasoning: the text of every `agent_thought_chunk`, concatenated.
    pub fn thought_text(&self, session: &str) -> String {
        self.chunk_text(session, "agent_thought_chunk")
    }

    fn chunk_text(&self, session: &str, kind: &str) -> String {
        self.updates_of_kind(session, kind)
            .iter()
            .filter(|update| update["content"]["type"] == "text")
            .filter_map(|update| update["content"]["text"].as_str().map(str::to_owned))
            .collect()
    }

    /// Every update of one `sessionUpdate` kind (`tool_call`, `plan`, ...) for `session`.
    pub fn updates_of_kind(&self, session: &str, kind: &str) -> Vec<Value> {
        self.updates(session)
            .into_iter()
            .filter(|u| u["sessionUpdate"] == kind)
            .collect()
    }

    /// The `tool_call` updates (tool call announcements) for `session`, in order.
    pub fn tool_calls(&self, session: &str) -> Vec<Value> {
        self.updates_of_kind(session, "tool_call")
    }

    /// A tool call as the editor shows it at the end: its `tool_call` announcement with every
    /// later `tool_call_update` field laid over it. `None` if the id was never announced or
    /// updated.
    pub fn tool_call_state(&self, session: &str, tool_call_id: &str) -> Option<Value> {
        let mut state: Option<Value> = None;
        for update in self.updates(session) {
            let kind = update["sessionUpdate"].as_str().unwrap_or_default();
            if !matches!(kind, "tool_call" | "tool_call_update")
                || update["toolCallId"] != tool_call_id
            {
                continue;
            }
            let merged = state.get_or_insert_with(|| json!({}));
            for (key, value) in update.as_object().into_iter().flatten() {
                if !value.is_null() && key != "sessionUpdate" {
                    merged[key] = value.clone();
                }
            }
        }
        state
    }
}
