//! One claude-acp with one ACP session, running the real claude CLI (the pinned one unless told) against its own mock API
//! in its own environment, for the real-CLI scenario tests; plus the process and stored-conversation
//! helpers those scenarios need.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::acp_client::AcpClient;
use super::mock_api::{MockApi, Rule};
#[cfg(target_os = "linux")]
use super::procs;
use super::real_cli::{ClaudeEnv, pinned_version};

/// One adapter with one session, on its own mock and environment.
pub struct RealSession {
    pub mock: MockApi,
    pub env: ClaudeEnv,
    pub client: AcpClient,
    pub id: String,
    started: Instant,
}

impl RealSession {
    /// Starts the adapter in a fresh environment and opens one session in its work dir. Rules that
    /// need the work dir are pushed afterwards with `mock.push_rule`.
    pub async fn start(rules: Vec<Rule>) -> RealSession {
        Self::start_with_env(rules, &[]).await
    }

    /// Like [`RealSession::start`], with extra environment variables for the adapter (and so claude).
    pub async fn start_with_env(rules: Vec<Rule>, vars: &[(&str, &str)]) -> RealSession {
        Self::start_on_with_env(pinned_version(), rules, vars).await
    }

    /// Like [`RealSession::start`], on claude `version`.
    pub async fn start_on(version: &str, rules: Vec<Rule>) -> RealSession {
        Self::start_on_with_env(version, rules, &[]).await
    }

    async fn start_on_with_env(
        version: &str,
        rules: Vec<Rule>,
        vars: &[(&str, &str)],
    ) -> RealSession {
        let started = Instant::now();
        let mock = MockApi::start(rules);
        let mut env =
            ClaudeEnv::for_version(&mock, version).with_env("RUST_LOG", "claude_acp=debug,info");
        for (key, value) in vars {
            env = env.with_env(*key, *value);
        }
        let client = AcpClient::from_command(env.command(crate::support::adapter()));
        client.initialize().await;
        let id = client.new_session(env.work_dir()).await;
        RealSession {
            mock,
            env,
            client,
            id,
            started,
        }
    }

    pub async fn prompt(&self, text: &str) -> Value {
        self.client
            .prompt(&self.id, text)
            .await
            .unwrap_or_else(|e| {
                panic!("prompt {text:?} failed: {e}\n{}", self.client.diagnostics())
            })
    }

    /// A tool call as the editor shows it at the end of the turn.
    pub fn tool_call(&self, call: &Value) -> Value {
        let id = call["toolCallId"].as_str().expect("toolCallId");
        self.client
            .tool_call_state(&self.id, id)
            .expect("announced tool call")
    }

    /// The one tool call of this turn announced for `tool`, as the editor shows it now.
    pub fn only_tool_call(&self, kind: &str) -> Value {
        let calls: Vec<Value> = self
            .client
            .tool_calls(&self.id)
            .iter()
            .map(|call| self.tool_call(call))
            .filter(|call| call["kind"] == kind)
            .collect();
        assert_eq!(calls.len(), 1, "one {kind} tool call: {calls:#?}");
        calls.into_iter().next().unwrap()
    }

    /// How many responses the adapter sent to this session's `session/prompt` requests.
    pub fn prompt_responses(&self) -> usize {
        let ids: Vec<Value> = self
            .client
            .sent()
            .iter()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|m| m["method"] == "session/prompt")
            .map(|m| m["id"].clone())
            .collect();
        self.client
            .transcript()
            .iter()
            .filter(|m| m.get("method").is_none() && ids.contains(&m["id"]))
            .count()
    }

    /// Prints how long the scenario took. Not an assertion: on a loaded machine a wall-clock
    /// limit flakes (16 s seen on 2 busy cores), and hangs are caught by every wait's own timeout;
    /// speed is the benchmarks' business.
    pub fn assert_quick(&self) {
        eprintln!("scenario took {:?}", self.started.elapsed());
    }
}

/// Text of the content of a tool call (its output as the editor renders it).
pub fn content_text(call: &Value) -> String {
    serde_json::to_string(&call["content"]).unwrap_or_default()
}

/// The claude process the adapter runs for its session (not its helpers, not the adapter).
#[cfg(target_os = "linux")]
pub fn claude_pid(adapter: u32) -> Option<u32> {
    procs::children_of(adapter).into_iter().find(|&pid| {
        procs::cmdline(pid).is_some_and(|line| line.contains("--input-format stream-json"))
    })
}

#[cfg(target_os = "linux")]
pub fn kill_claude(adapter: u32) -> u32 {
    let pid = claude_pid(adapter).expect("claude runs under the adapter");
    // SAFETY: kill(2) on a pid we just found as our adapter's child.
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    pid
}

/// Waits until claude has written `text` into its stored conversation `<HOME>/.claude/projects/*/<id>.jsonl`.
/// claude writes it a little after it sends the request to the API, not before.
pub async fn wait_until_stored(env: &ClaudeEnv, id: &str, text: &str) {
    let projects = env.home_dir().join(".claude/projects");
    let file_name = format!("{id}.jsonl");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let stored = std::fs::read_dir(&projects)
            .into_iter()
            .flatten()
            .flatten()
            .map(|project| project.path().join(&file_name))
            .any(|file| std::fs::read_to_string(file).is_ok_and(|t| t.contains(text)));
        if stored {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "claude never stored {text:?} in {}",
            projects.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Removes `<HOME>/.claude/projects/*/<id>.jsonl`, as if claude had died before writing it.
pub fn forget_stored_conversation(env: &ClaudeEnv, id: &str) {
    let file_name = format!("{id}.jsonl");
    for project in std::fs::read_dir(env.home_dir().join(".claude/projects"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let _ = std::fs::remove_file(project.path().join(&file_name));
    }
}

/// Cuts `<HOME>/.claude/projects/*/<id>.jsonl` to its lines that hold no conversation (none
/// records a cwd), as claude leaves it when it dies before writing the conversation.
pub fn keep_only_what_holds_no_conversation(env: &ClaudeEnv, id: &str) {
    let file_name = format!("{id}.jsonl");
    for project in std::fs::read_dir(env.home_dir().join(".claude/projects"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let file = project.path().join(&file_name);
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let kept: String = text
            .lines()
            .filter(|line| !line.contains("\"cwd\""))
            .map(|line| format!("{line}\n"))
            .collect();
        assert!(
            !kept.is_empty(),
            "claude wrote nothing but its conversation into {}",
            file.display()
        );
        std::fs::write(&file, kept).expect("rewrite the transcript");
    }
}
