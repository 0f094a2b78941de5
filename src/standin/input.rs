//! How the engine reads stdin: expectations, branches, handlers, and mismatch reports.

use super::engine::{EXIT_MISMATCH, EXIT_SCRIPT_ERROR, Engine, Stop, shown};
use super::pattern::matches;
use super::runtime::fields;
use super::script::{Expectation, LocatedStep};
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite};

impl<R, W, E> Engine<R, W, E>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
    E: AsyncWrite + Unpin,
{
    pub(super) async fn expect_one(
        &mut self,
        n: usize,
        located: &LocatedStep,
        expectation: &Expectation,
    ) -> Result<(), Stop> {
        // An optional step leaves an unmatched line to the next step, handlers included.
        let line = if expectation.optional {
            self.next_line().await
        } else {
            self.next_for(n, located, &[&expectation.pattern]).await?
        };
        let Some(line) = line else {
            return Err(Stop::Eof);
        };
        let received = serde_json::from_str::<Value>(&line).ok();
        let matched = match &received {
            Some(value) => self.check(n, located, &expectation.pattern, value)?,
            None => false,
        };
        match (matched, received) {
            (true, Some(value)) => self.bind(n, located, expectation, &value),
            _ if expectation.optional => {
                self.pending = Some(line);
                Ok(())
            }
            _ => Err(mismatch(n, located, &expectation.pattern, &line)),
        }
    }

    /// Reads one line and returns the label of the first alternative it matches.
    pub(super) async fn branch<'s>(
        &mut self,
        n: usize,
        located: &LocatedStep,
        alternatives: &'s [(Expectation, String)],
    ) -> Result<&'s str, Stop> {
        let patterns: Vec<&Value> = alternatives.iter().map(|(e, _)| &e.pattern).collect();
        let Some(line) = self.next_for(n, located, &patterns).await? else {
            return Err(Stop::Eof);
        };
        let all = Value::Array(
            alternatives
                .iter()
                .map(|(e, _)| e.pattern.clone())
                .collect(),
        );
        let Ok(value) = serde_json::from_str::<Value>(&line) else {
            return Err(mismatch(n, located, &all, &line));
        };
        for (expectation, label) in alternatives {
            if self.check(n, located, &expectation.pattern, &value)? {
                self.bind(n, located, expectation, &value)?;
                return Ok(label);
            }
        }
        Err(mismatch(n, located, &all, &line))
    }

    pub(super) async fn expect_any_order(
        &mut self,
        n: usize,
        located: &LocatedStep,
        items: &[Expectation],
    ) -> Result<(), Stop> {
        let mut remaining: Vec<&Expectation> = items.iter().collect();
        while !remaining.is_empty() {
            let patterns: Vec<&Value> = remaining.iter().map(|e| &e.pattern).collect();
            let Some(line) = self.next_for(n, located, &patterns).await? else {
                return Err(Stop::Eof);
            };
            let all = Value::Array(remaining.iter().map(|e| e.pattern.clone()).collect());
            let Ok(value) = serde_json::from_str::<Value>(&line) else {
                return Err(mismatch(n, located, &all, &line));
            };
            let mut hit = None;
            for (i, e) in remaining.iter().enumerate() {
                if self.check(n, located, &e.pattern, &value)? {
                    hit = Some(i);
                    break;
                }
            }
            let Some(i) = hit else {
                return Err(mismatch(n, located, &all, &line));
            };
            let expectation = remaining.remove(i);
            self.bind(n, located, expectation, &value)?;
        }
        Ok(())
    }

    fn check(
        &self,
        n: usize,
        located: &LocatedStep,
        pattern: &Value,
        value: &Value,
    ) -> Result<bool, Stop> {
        matches(pattern, value, &self.vars).map_err(|e| {
            Stop::Fail(
                EXIT_SCRIPT_ERROR,
                format!("step {n}: {e} (at {})", located.origin),
            )
        })
    }

    fn bind(
        &mut self,
        n: usize,
        located: &LocatedStep,
        e: &Expectation,
        value: &Value,
    ) -> Result<(), Stop> {
        self.vars.bind(&e.bind, value).map_err(|err| {
            Stop::Fail(
                EXIT_MISMATCH,
                format!(
                    "step {n}: {err} in {} (at {})",
                    shown(&value.to_string()),
                    located.origin
                ),
            )
        })
    }

    /// The next line that none of the `on` handlers takes: a line that matches one of `patterns`
    /// (what the step wants) goes to the step, else the first handler that matches answers it.
    pub(super) async fn next_for(
        &mut self,
        n: usize,
        located: &LocatedStep,
        patterns: &[&Value],
    ) -> Result<Option<String>, Stop> {
        // Whatever was emitted goes out before waiting on the adapter.
        self.flush_stdout().await?;
        // A prompt held earlier, if this step wants it (claude reads its queued prompts in order).
        if let Some(held) = self.held_prompts.front().cloned()
            && let Ok(value) = serde_json::from_str::<Value>(&held)
        {
            for pattern in patterns {
                if self.check(n, located, pattern, &value)? {
                    self.held_prompts.pop_front();
                    return Ok(Some(held));
                }
            }
        }
        // claude, waiting for the answer to a request of its own, queues the prompts it reads.
        let holds_prompts = patterns.iter().any(|p| p["type"] == "control_response")
            && !patterns.iter().any(|p| p["type"] == "user");
        loop {
            let Some(line) = self.next_line().await else {
                // A held prompt no step wanted is what this step got instead.
                return Ok(self.held_prompts.pop_front());
            };
            let Ok(value) = serde_json::from_str::<Value>(&line) else {
                return Ok(Some(line));
            };
            for pattern in patterns {
                if self.check(n, located, pattern, &value)? {
                    return Ok(Some(line));
                }
            }
            let mut taken = None;
            for (i, handler) in self.handlers.iter().enumerate() {
                if self.check(n, located, &handler.expectation.pattern, &value)? {
                    taken = Some(i);
                    break;
                }
            }
            let Some(i) = taken else {
                if let Some(answer) = builtin_answer(&value, &self.vars) {
                    self.write_stdout(&answer.to_string()).await?;
                    continue;
                }
                // A prompt that came before the control answer this step waits for (the
                // editor's prompt crossing claude's MCP handshake): kept for a later step.
                if value["type"] == "user" && holds_prompts {
                    self.held_prompts.push_back(line);
                    continue;
                }
                return Ok(Some(line));
            };
            let handler = self.handlers[i].clone();
            self.bind(n, located, &handler.expectation, &value)?;
            for reply in &handler.replies {
                let line = self.vars.substitute(reply).map_err(|e| {
                    Stop::Fail(
                        EXIT_SCRIPT_ERROR,
                        format!("step {n}: {e} (in a handler from {})", handler.origin),
                    )
                })?;
                self.write_stdout(&line.to_string()).await?;
            }
        }
    }

    /// The next stdin line (without its newline), logged; `None` at end of input.
    pub(super) async fn next_line(&mut self) -> Option<String> {
        if let Some(line) = self.pending.take() {
            return Some(line);
        }
        let mut buf = String::new();
        loop {
            buf.clear();
            match self.stdin.read_line(&mut buf).await {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            let line = buf.trim_end_matches(['\n', '\r']);
            // The CLI skips blank lines; so does the stand-in.
            if line.trim().is_empty() {
                continue;
            }
            let logged = serde_json::from_str::<Value>(line).unwrap_or_else(|_| json!(line));
            self.log.record("recv", fields(vec![("line", logged)]));
            return Some(line.to_owned());
        }
    }
}

fn mismatch(n: usize, located: &LocatedStep, pattern: &Value, line: &str) -> Stop {
    Stop::Fail(
        EXIT_MISMATCH,
        format!(
            "step {n}: expected {pattern} got {} (at {})",
            shown(line),
            located.origin
        ),
    )
}

/// What claude answers whenever it is asked, unless the step wants the line itself: its settings
/// (`get_settings`, which claude-acp asks at every start), as the pinned claude answers them for an
/// API-key login; and a name for the session (`rename_session`), which the pinned claude takes and
/// records in the transcript when there is one (without one it keeps the name in memory, which a
/// stand-in has not).
fn builtin_answer(line: &Value, vars: &crate::standin::pattern::Vars) -> Option<Value> {
    if line["type"] == "control_request" && line["request"]["subtype"] == "rename_session" {
        let (title, id) = (&line["request"]["title"], &line["request"]["session_id"]);
        if let (Some(title), Some(id), Some(dir)) = (
            title.as_str(),
            id.as_str(),
            crate::claude::config_dir::default_config_dir(),
        ) {
            let _ = crate::history::write_title(&dir, id, title);
        }
        return Some(json!({"type": "control_response", "response": {
            "subtype": "success", "request_id": line["request_id"]}}));
    }
    if line["type"] == "control_request" && line["request"]["subtype"] == "list_permission_rules" {
        let cwd = vars.get("cwd").and_then(Value::as_str).unwrap_or_default();
        return Some(json!({"type": "control_response", "response": {
            "subtype": "success", "request_id": line["request_id"], "response": {
                "state": permission_rules(std::path::Path::new(cwd))}}}));
    }
    if line["type"] != "control_request" || line["request"]["subtype"] != "get_settings" {
        return None;
    }
    let model = vars
        .get("model")
        .cloned()
        .unwrap_or(json!("claude-opus-5-5"));
    Some(json!({"type": "control_response", "response": {
        "subtype": "success", "request_id": line["request_id"], "response": {
            "effective": {},
            "sources": [],
            "applied": {"model": model, "ultracode": false, "ultracodeRequested": false,
                        "ultracodeAvailable": true, "ultrathinkAvailable": false}}}}))
}

/// The rules the pinned claude lists (`list_permission_rules`) for a session in `cwd` started with
/// no rule flags: the user's settings, the project's (its allow rules only where the user accepted
/// the workspace's trust dialog) and the local ones.
fn permission_rules(cwd: &std::path::Path) -> Value {
    let config = crate::claude::config_dir::default_config_dir();
    let trusted = config
        .as_ref()
        .and_then(|dir| dir.parent())
        .and_then(|home| std::fs::read_to_string(home.join(".claude.json")).ok())
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .is_some_and(|c| {
            c["projects"][cwd.to_string_lossy().as_ref()]["hasTrustDialogAccepted"] == true
        });
    let mut files = Vec::new();
    if let Some(dir) = &config {
        files.push((dir.join("settings.json"), "userSettings", true));
    }
    files.push((
        cwd.join(".claude/settings.json"),
        "projectSettings",
        trusted,
    ));
    files.push((
        cwd.join(".claude/settings.local.json"),
        "localSettings",
        true,
    ));
    let mut rules = Vec::new();
    for (file, source, allow) in files {
        let Some(settings) = std::fs::read_to_string(&file)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        else {
            continue;
        };
        for behavior in ["allow", "ask", "deny"] {
            if behavior == "allow" && !allow {
                continue;
            }
            for rule in settings["permissions"][behavior]
                .as_array()
                .into_iter()
                .flatten()
            {
                rules.push(json!({"behavior": behavior, "source": source, "rule": rule,
                    "editability": "persistent"}));
            }
        }
    }
    json!({"rules": rules, "workspaceDirectories": [], "originalCwd": cwd, "managedOnly": false})
}
