//! The permission flow against the real pinned claude CLI: claude is spawned directly in stream-json
//! mode, every `can_use_tool` goes through `permissions::decide` with the test editor choosing by a script, and the
//! replies (and deny rules) go back exactly as the session actor sends them.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::mock_api::{Block, MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use crate::support::stream_json::StreamJsonProcess;
use claude_acp::claude::wire::CanUseTool;
use claude_acp::domain::PermissionAsk;
use claude_acp::permissions::{
    self, ACCEPT_EDITS, ALLOW_ALWAYS, Decision, REJECT_ALWAYS, SessionRules,
};
use claude_acp::testing::TestEditor;
use serde_json::{Value, json};

const STEP: Duration = Duration::from_secs(30);

/// One claude session with the adapter's permission handling.
struct Session {
    claude: StreamJsonProcess,
    editor: Arc<TestEditor>,
    rules: SessionRules,
    cwd: std::path::PathBuf,
    decisions: Vec<Decision>,
    flag_requests: usize,
}

impl Session {
    fn start(env: &ClaudeEnv, editor: Arc<TestEditor>, extra: &[&str]) -> Session {
        let session_id = uuid::Uuid::new_v4().to_string();
        let mut args = vec!["--session-id", session_id.as_str()];
        args.extend_from_slice(extra);
        Session {
            claude: StreamJsonProcess::spawn(env.claude_stream_json(args)),
            editor,
            rules: SessionRules::new(),
            cwd: env.work_dir(),
            decisions: Vec::new(),
            flag_requests: 0,
        }
    }

    /// Sends a prompt and answers every ask until the turn's result, which it returns.
    async fn turn(&mut self, prompt: &str) -> Value {
        self.claude.send_user_text(prompt).await;
        loop {
            let message = self
                .claude
                .read_until("an ask or the result", STEP, |m| {
                    m["type"] == "result"
                        || (m["type"] == "control_request"
                            && m["request"]["subtype"] == "can_use_tool")
                })
                .await;
            if message["type"] == "result" {
                return message;
            }
            let request_id = message["request_id"].as_str().unwrap().to_owned();
            let ask: CanUseTool = serde_json::from_value(message["request"].clone()).unwrap();
            let decision =
                permissions::decide(self.editor.clone(), "sess", &self.cwd, ask, &self.rules).await;
            if let Some(settings) = &decision.flag_settings {
                self.flag_requests += 1;
                let id = format!("flags_{}", self.flag_requests);
                self.claude
                    .send(&json!({"type": "control_request", "request_id": id,
                        "request": {"subtype": "apply_flag_settings", "settings": settings}}))
                    .await;
                let answer = self
                    .claude
                    .read_until("apply_flag_settings answer", STEP, |m| {
                        m["type"] == "control_response" && m["response"]["request_id"] == id
                    })
                    .await;
                assert_eq!(answer["response"]["subtype"], "success", "{answer}");
            }
            let reply = serde_json::to_value(&decision.reply).unwrap();
            self.claude.answer_control(&request_id, reply).await;
            self.decisions.push(decision);
        }
    }

    fn ask_count(&self) -> usize {
        self.editor.asks().len()
    }
}

fn bash(command: &str) -> Reply {
    Reply::tool_use("Bash", json!({"command": command, "description": "Run it"}))
}

fn option_named(ask: &PermissionAsk, id: &str) -> String {
    ask.options
        .iter()
        .find(|o| o.id == id)
        .map(|o| o.name.clone())
        .unwrap_or_else(|| panic!("no option {id} in {:?}", ask.options))
}

#[tokio::test]
async fn always_allow_applies_claudes_suggestion_so_the_same_call_is_not_asked_again() {
    let command = "node -e 'console.log(6*7)'";
    let mock = MockApi::start(vec![
        Rule::on_prompt("first", bash(command)),
        Rule::on_prompt("second", bash(command)),
        Rule::on_tool_result(Reply::text("ran it")),
    ]);
    let env = ClaudeEnv::new(&mock);
    let editor = Arc::new(TestEditor::choosing(|_| ALLOW_ALWAYS.to_owned()));
    let mut session = Session::start(&env, editor.clone(), &[]);

    session.turn("first run").await;
    assert_eq!(session.ask_count(), 1);
    let label = option_named(&editor.asks()[0], ALLOW_ALWAYS);
    assert_eq!(
        label,
        format!(
            "Always allow Bash({command}) in this project (saved in .claude/settings.local.json)"
        )
    );
    assert_eq!(mock.last_tool_result_text().as_deref(), Some("42"));

    session.turn("second run").await;
    assert_eq!(
        session.ask_count(),
        1,
        "the identical call must not be asked again"
    );
    assert_eq!(mock.last_tool_result_text().as_deref(), Some("42"));
    // Where the label says the rule is kept.
    let settings = std::fs::read_to_string(env.work_dir().join(".claude/settings.local.json"))
        .expect("claude wrote the project's local settings");
    // claude escapes the parentheses of a rule's content.
    let saved: Value = serde_json::from_str(&settings).unwrap();
    assert_eq!(
        saved["permissions"]["allow"],
        json!([r"Bash(node -e 'console.log\(6*7\)')"]),
        "{settings}"
    );
    session.claude.finish(STEP).await;
}

#[tokio::test]
async fn always_reject_denies_the_same_call_later_without_asking() {
    let command = "node -e 'console.log(6*9)'";
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    let target = env.work_dir().join("never.txt");
    for rule in [
        Rule::on_prompt("first", bash(command)),
        Rule::on_prompt("second", bash(command)),
        Rule::on_prompt(
            "write one",
            Reply::tool_use("Write", json!({"file_path": target, "content": "x"})),
        ),
        Rule::on_prompt(
            "write again",
            Reply::tool_use("Write", json!({"file_path": target, "content": "y"})),
        ),
        Rule::on_tool_result(Reply::text("noted")),
    ] {
        mock.push_rule(rule);
    }
    let editor = Arc::new(TestEditor::choosing(|_| REJECT_ALWAYS.to_owned()));
    let mut session = Session::start(&env, editor.clone(), &[]);

    session.turn("first run").await;
    let first = mock.last_tool_result_text().unwrap();
    assert!(first.contains("rejected this Bash call"), "{first}");
    session.turn("second run").await;
    assert_eq!(
        session.ask_count(),
        1,
        "a rejected-always call must not be asked again"
    );
    let second = mock.last_tool_result_text().unwrap();
    assert!(second.contains("has been denied"), "{second}");

    // Writes are ruled on by path (an `Edit(//abs)` rule), and the earlier Bash rule stays.
    session.turn("write one").await;
    session.turn("write again").await;
    assert_eq!(session.ask_count(), 2);
    assert!(mock.last_tool_result_text().unwrap().contains("denied"));
    assert!(!target.exists());
    session.turn("second run").await;
    assert_eq!(session.ask_count(), 2);
    assert!(
        editor.asks()[1]
            .options
            .iter()
            .any(|o| o.name.contains("Edit(/")),
        "{:?}",
        editor.asks()[1].options
    );
    session.claude.finish(STEP).await;
}

#[tokio::test]
async fn ask_user_question_answers_reach_the_model() {
    let questions = json!([
        {"question": "Which color should the button be?", "header": "Color",
         "options": [{"label": "Blue", "description": "A calm blue"},
                     {"label": "Red", "description": "A loud red"}], "multiSelect": false},
        {"question": "Which sizes do you need?", "header": "Sizes",
         "options": [{"label": "Small", "description": "s"}, {"label": "Medium", "description": "m"},
                     {"label": "Large", "description": "l"}], "multiSelect": true}
    ]);
    let mock = MockApi::start(vec![
        Rule::on_prompt(
            "ask me",
            Reply::tool_use("AskUserQuestion", json!({"questions": questions})),
        ),
        Rule::on_tool_result(Reply::text("thanks")),
    ]);
    let env = ClaudeEnv::new(&mock);
    // Red; then Large, Small and Done.
    let script = Mutex::new(vec!["answer_1", "answer_2", "answer_0", "done"].into_iter());
    let editor = Arc::new(TestEditor::choosing(move |_| {
        script.lock().unwrap().next().unwrap().to_owned()
    }));
    let mut session = Session::start(&env, editor.clone(), &[]);

    let result = session.turn("ask me things").await;
    assert_eq!(result["result"], "thanks", "{result}");
    assert_eq!(session.ask_count(), 4);
    let tool_result = mock.last_tool_result_text().unwrap();
    assert!(
        tool_result.contains("\"Which color should the button be?\"=\"Red\""),
        "{tool_result}"
    );
    assert!(
        tool_result.contains("\"Which sizes do you need?\"=\"Small, Large\""),
        "{tool_result}"
    );
    session.claude.finish(STEP).await;
}

/// The plan file claude asks for in plan mode, read from the system prompt it sent.
fn plan_file(mock: &MockApi) -> String {
    let body = mock.requests()[0].body.to_string();
    let start = body
        .find("create your plan at ")
        .expect("plan mode names the plan file")
        + "create your plan at ".len();
    let len = body[start..].find(" using").unwrap();
    body[start..start + len].to_owned()
}

#[tokio::test]
async fn exit_plan_mode_shows_the_plan_and_approving_it_accepts_edits() {
    let mock = MockApi::start(vec![Rule::on_prompt("hello", Reply::text("hi")).once()]);
    let env = ClaudeEnv::new(&mock);
    let editor = Arc::new(TestEditor::choosing(|ask| {
        match ask.tool_call.title.as_deref() {
            Some("Ready to code") => ACCEPT_EDITS.to_owned(),
            _ => permissions::ALLOW_ONCE.to_owned(),
        }
    }));
    let mut session = Session::start(&env, editor.clone(), &["--permission-mode", "plan"]);
    session.turn("hello").await;
    let plan = "1. Write done.txt\n2. Stop";
    let done = env.work_dir().join("done.txt");
    mock.push_rule(Rule::on_prompt(
        "plan it",
        Reply::tool_use(
            "Write",
            json!({"file_path": plan_file(&mock), "content": plan}),
        ),
    ));
    mock.push_rule(Rule::on_tool_result_containing(
        "File created",
        Reply::tool_use("ExitPlanMode", json!({})),
    ));
    mock.push_rule(Rule::on_tool_result_containing(
        "approved",
        Reply::text("plan approved"),
    ));
    mock.push_rule(Rule::on_prompt(
        "now write",
        Reply::blocks(vec![Block::ToolUse {
            name: "Write".into(),
            input: json!({"file_path": done, "content": "done\n"}),
        }]),
    ));
    mock.push_rule(Rule::on_tool_result(Reply::text("written")));

    let result = session.turn("plan it").await;
    assert_eq!(result["result"], "plan approved", "{result}");
    let plan_ask = editor
        .asks()
        .into_iter()
        .find(|a| a.tool_call.title.as_deref() == Some("Ready to code"))
        .expect("ExitPlanMode was asked");
    assert!(
        format!("{:?}", plan_ask.tool_call.content).contains("1. Write done.txt"),
        "{:?}",
        plan_ask.tool_call.content
    );
    let decision = session.decisions.last().unwrap();
    assert_eq!(decision.mode_change.as_deref(), Some("acceptEdits"));
    assert!(
        session
            .claude
            .transcript()
            .iter()
            .any(|m| m["type"] == "system"
                && m["subtype"] == "status"
                && m["permissionMode"] == "acceptEdits"),
        "claude reports the new mode"
    );

    let asked_before = session.ask_count();
    session.turn("now write the file").await;
    assert_eq!(
        session.ask_count(),
        asked_before,
        "acceptEdits: the write is not asked"
    );
    assert_eq!(std::fs::read_to_string(&done).unwrap(), "done\n");
    session.claude.finish(STEP).await;
}
