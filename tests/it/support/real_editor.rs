//! The scripted editor and the model scripts for `real_cli/permissions/adapter.rs`: claude-acp
//! started on the real claude with a fresh mock API, and what the mock model does in each scenario.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::{ClaudeEnv, pinned_version};

/// Longest wait for one request or update (claude's first start on a fresh HOME takes a few seconds).
pub const STEP: Duration = Duration::from_secs(60);

/// One editor connected to claude-acp, which runs the real claude against `mock`.
pub struct Editor {
    pub mock: MockApi,
    pub env: ClaudeEnv,
    pub c: AcpClient,
    pub id: String,
}

impl Editor {
    /// Starts claude-acp with `args` on the pinned claude; `forms` advertises form elicitation.
    pub async fn start(args: &[&str], forms: bool) -> Editor {
        Self::start_on(pinned_version(), args, forms).await
    }

    /// Like [`Editor::start`], on claude `version`.
    pub async fn start_on(version: &str, args: &[&str], forms: bool) -> Editor {
        let mock = MockApi::start(Vec::new());
        let env = ClaudeEnv::for_version(&mock, version);
        Self::start_in(mock, env, args, forms).await
    }

    pub async fn start_in(mock: MockApi, env: ClaudeEnv, args: &[&str], forms: bool) -> Editor {
        let mut command = env.command(crate::support::adapter());
        command.args(args);
        let c = AcpClient::from_command(command);
        c.set_timeout(STEP);
        c.initialize_with(forms).await;
        let id = c.new_session(env.work_dir()).await;
        Editor { mock, env, c, id }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.env.work_dir().join(name)
    }

    /// Runs one prompt to its end and checks it ended normally.
    pub async fn turn(&self, text: &str) {
        let stop = self
            .c
            .prompt(&self.id, text)
            .await
            .unwrap_or_else(|err| panic!("prompt {text:?}: {err}\n{}", self.c.diagnostics()));
        assert_eq!(stop["stopReason"], "end_turn", "{}", self.c.diagnostics());
    }

    /// The params of every `session/request_permission` so far.
    pub fn asks(&self) -> Vec<Value> {
        self.c
            .requests()
            .into_iter()
            .filter(|r| r.method == "session/request_permission")
            .map(|r| r.params)
            .collect()
    }

    pub fn tool_result(&self) -> String {
        self.mock.last_tool_result_text().unwrap_or_default()
    }

    /// Sets the mode and waits until the editor is told claude is in it.
    pub async fn switch_mode(&self, method: &str, mode: &str) {
        let params = match method {
            "session/set_mode" => json!({"sessionId": self.id, "modeId": mode}),
            _ => json!({"sessionId": self.id, "configId": "mode", "value": mode}),
        };
        self.c.request(method, params).await.unwrap();
        self.c
            .wait_for_update(
                |u| u["update"]["currentModeId"] == mode,
                Duration::from_secs(10),
            )
            .await;
    }
}

pub fn write(path: &Path, content: &str) -> Reply {
    Reply::tool_use("Write", json!({"file_path": path, "content": content}))
}

pub fn bash(command: &str) -> Reply {
    Reply::tool_use("Bash", json!({"command": command, "description": "Run it"}))
}

/// The model writes `name` when asked to "create" it, then says "Done."
pub fn script_write(e: &Editor, name: &str, content: &str) -> PathBuf {
    let path = e.path(name);
    e.mock
        .push_rule(Rule::on_prompt("create", write(&path, content)));
    e.mock.push_rule(Rule::on_tool_result(Reply::text("Done.")));
    path
}

pub fn option_names(ask: &Value) -> Vec<String> {
    ask["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Answers each permission prompt with the option named by the next entry of `names`.
pub fn pick_by_name(
    names: &'static [&'static str],
) -> impl Fn(&Value) -> Result<Value, (i64, String)> + Send + Sync + 'static {
    let script = Mutex::new(names.iter().copied());
    move |params| {
        let name = script
            .lock()
            .unwrap()
            .next()
            .expect("no more prompts expected");
        let option = params["options"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == name)
            .unwrap_or_else(|| panic!("no option {name:?} in {}", params["options"]));
        Ok(json!({"outcome": {"outcome": "selected", "optionId": option["optionId"]}}))
    }
}

pub const COLOR: &str = "Which color should the button be?";
pub const SIZES: &str = "Which sizes do you need?";

/// The model asks two questions (one multiSelect) when asked, then thanks.
pub fn script_questions(e: &Editor) {
    let questions = json!([
        {"question": COLOR, "header": "Color", "multiSelect": false,
         "options": [{"label": "Blue", "description": "A calm blue"},
                     {"label": "Red", "description": "A loud red"}]},
        {"question": SIZES, "header": "Sizes", "multiSelect": true,
         "options": [{"label": "Small", "description": "s"}, {"label": "Medium", "description": "m"},
                     {"label": "Large", "description": "l"}]}
    ]);
    e.mock.push_rule(Rule::on_prompt(
        "ask me",
        Reply::tool_use("AskUserQuestion", json!({"questions": questions})),
    ));
    e.mock
        .push_rule(Rule::on_tool_result(Reply::text("Thanks.")));
}

/// The plan file claude asks for in plan mode, read from the system prompt it sent.
pub fn plan_file(mock: &MockApi) -> String {
    let body = mock.requests()[0].body.to_string();
    let start = body
        .find("create your plan at ")
        .expect("plan mode names the plan file")
        + "create your plan at ".len();
    let len = body[start..].find(" using").unwrap();
    body[start..start + len].to_owned()
}

/// A claude whose stdio permission channel is gone: a wrapper that drops
/// `--permission-prompt-tool stdio` (claude then denies every ask by itself) but keeps any other
/// permission tool, so the adapter's MCP tool still works after the switch. It wraps `env`'s claude
/// and lives in its HOME.
pub fn broken_stdio_claude(env: &ClaudeEnv) -> PathBuf {
    let wrapper = env.home_dir().join("claude-without-stdio-prompts");
    let script = format!(
        r#"#!/bin/sh
tool_next=0
for arg do
  shift
  if [ "$tool_next" = 1 ]; then
    tool_next=0
    [ "$arg" = stdio ] || set -- "$@" --permission-prompt-tool "$arg"
    continue
  fi
  if [ "$arg" = --permission-prompt-tool ]; then tool_next=1; continue; fi
  set -- "$@" "$arg"
done
exec '{}' "$@"
"#,
        env.claude_binary().display()
    );
    std::fs::write(&wrapper, script).unwrap();
    let mut permissions = std::fs::metadata(&wrapper).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&wrapper, permissions).unwrap();
    wrapper
}
