//! The proof that claude-acp's own permission decisions are never looser than claude's (issue 39):
//! one corpus of tool calls, each made by the mock model in a claude session both ways, with the
//! real claude:
//!
//! - **editor**: an editor that declares `fs` and `terminal`, so claude-acp serves Read, Write,
//!   Edit and Bash (`mcp__acp__*`) and decides their permissions itself;
//! - **claude**: an editor that declares neither, so claude runs its own tools and decides, asking
//!   the editor through claude-acp only where claude asks.
//!
//! The editor rejects every ask (but where a turn says otherwise), so what ran shows in the tool
//! result the model gets next: a call is *asked* (a `session/request_permission` names its tool use),
//! *refused* (no ask, a permission error) or *ran*. A call claude-acp ranks higher than claude
//! (runs where claude asks or refuses, asks where claude refuses) is LOOSER and fails the test; lower
//! is stricter, allowed and reported.
//!
//! A turn runs many calls at once; every call that writes or runs something has a target of its own,
//! so no call's effect changes another's outcome. `CLAUDE_ACP_TEST_DIFF_REPORT=<file>` also writes
//! every decision there, one a line: the looser, the stricter, then the same.

mod commands;
mod corpus;
mod files;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;
use crate::support::mock_api::{Block, MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;

use corpus::{Answer, Layout, Scenario};

/// What happened to one call, from least to most permissive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Refused,
    Asked,
    Ran,
}

impl Outcome {
    fn word(self) -> &'static str {
        match self {
            Outcome::Refused => "refused",
            Outcome::Asked => "asked",
            Outcome::Ran => "ran",
        }
    }
}

/// Who serves the tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    /// claude-acp, through the editor's buffers and terminal.
    Editor,
    /// claude's own tools.
    Claude,
}

impl Side {
    fn tag(self) -> &'static str {
        match self {
            Side::Editor => "editor",
            Side::Claude => "claude",
        }
    }

    fn tool_name(self, tool: &str) -> String {
        match self {
            Side::Editor => format!("mcp__acp__{tool}"),
            Side::Claude => tool.to_owned(),
        }
    }

    fn capabilities(self) -> Value {
        let declared = self == Side::Editor;
        json!({"fs": {"readTextFile": declared, "writeTextFile": declared}, "terminal": declared})
    }
}

/// One call's outcome on one side, with what shows it.
#[derive(Clone, Debug)]
struct Decided {
    key: String,
    outcome: Outcome,
    shown: String,
}

#[tokio::test]
async fn editor_tools_are_never_looser_than_claudes_own() {
    let started = Instant::now();
    let mock = MockApi::start(vec![Rule::on_tool_result(Reply::text("done"))]);
    let scenarios = corpus::scenarios();
    let (editor, claude) = tokio::join!(
        run_side(Side::Editor, &mock, &scenarios),
        run_side(Side::Claude, &mock, &scenarios)
    );
    let elapsed = started.elapsed();
    let claude: BTreeMap<&str, &Decided> = claude.iter().map(|d| (d.key.as_str(), d)).collect();
    // A `date -s` claude ran would set the clock (the tests may run as root): it must have met
    // the stand-in that only records it.
    let date = claude["[rules#0] Bash `which date`"];
    assert!(
        date.shown.contains("/shims/date"),
        "claude's Bash does not find the stand-in date first: {}",
        date.shown
    );
    let mut looser = Vec::new();
    let mut stricter = Vec::new();
    let mut same: BTreeMap<String, usize> = BTreeMap::new();
    let mut alike = Vec::new();
    for ours in &editor {
        let theirs = claude
            .get(ours.key.as_str())
            .unwrap_or_else(|| panic!("no claude outcome for {}", ours.key));
        let line = format!(
            "{}: claude {}, claude-acp {} | claude: {} | claude-acp: {}",
            ours.key,
            theirs.outcome.word(),
            ours.outcome.word(),
            theirs.shown,
            ours.shown
        );
        if ours.outcome > theirs.outcome {
            looser.push(line);
        } else if ours.outcome < theirs.outcome {
            stricter.push(line);
        } else {
            *same.entry(ours.outcome.word().to_owned()).or_default() += 1;
            alike.push(line);
        }
    }
    let mut report = vec![format!(
        "differential permissions: {} calls compared in {:.1} s (claude {}), same: {same:?}; \
         {} LOOSER, {} stricter",
        editor.len(),
        elapsed.as_secs_f64(),
        crate::support::real_cli::pinned_version(),
        looser.len(),
        stricter.len()
    )];
    report.extend(looser.iter().map(|l| format!("LOOSER {l}")));
    report.extend(stricter.iter().map(|l| format!("stricter {l}")));
    let report = report.join("\n");
    println!("{report}");
    if let Ok(file) = std::env::var("CLAUDE_ACP_TEST_DIFF_REPORT") {
        let alike: Vec<String> = alike.iter().map(|l| format!("same {l}")).collect();
        let text = format!("{report}\n{}\n", alike.join("\n"));
        std::fs::write(&file, text).expect("write the report");
    }
    assert!(
        editor.len() >= 300,
        "the corpus holds {} calls",
        editor.len()
    );
    assert!(
        looser.is_empty(),
        "{} calls claude-acp decides more loosely than claude:\n{}",
        looser.len(),
        looser.join("\n")
    );
}

/// The shared record of what the scripted editor was asked to do.
#[derive(Default)]
struct EditorLog {
    reads: Vec<String>,
    writes: Vec<String>,
    commands: Vec<String>,
}

/// How the editor answers each session's asks now, by session id.
type Answers = Arc<Mutex<BTreeMap<String, Answer>>>;

/// Every scenario on one side: one claude-acp, one session per scenario, all at once.
async fn run_side(side: Side, mock: &MockApi, scenarios: &[Scenario]) -> Vec<Decided> {
    let env = ClaudeEnv::new(mock);
    let root = env.work_dir().parent().unwrap().to_path_buf();
    let shims = root.join("shims");
    files::lay_out_shared(&env.home_dir(), &shims);
    let path = env
        .vars()
        .into_iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v)
        .unwrap_or_default();
    let env = env.with_env("PATH", format!("{}:{path}", shims.display()));
    let mut command = env.command(crate::support::adapter());
    command.args(["--permission-transport", "stdio"]);
    let c = AcpClient::from_command(command);
    c.set_timeout(Duration::from_secs(120));
    let answers = Answers::default();
    let log = Arc::new(Mutex::new(EditorLog::default()));
    serve_editor(&c, side, &answers, &log);
    c.initialize_with_capabilities(side.capabilities()).await;
    let runs = scenarios.iter().map(|scenario| {
        let layout = Layout {
            root: root.join(scenario.name),
            home: env.home_dir(),
        };
        run_scenario(&c, side, mock, layout, scenario, &answers)
    });
    let decided = futures::future::join_all(runs).await.concat();
    let log = log.lock().unwrap();
    eprintln!(
        "{} side: the editor read {} files, wrote {}, ran {} commands",
        side.tag(),
        log.reads.len(),
        log.writes.len(),
        log.commands.len()
    );
    decided
}

/// One scenario's session on one side, its turns in order.
async fn run_scenario(
    c: &AcpClient,
    side: Side,
    mock: &MockApi,
    layout: Layout,
    scenario: &Scenario,
    answers: &Answers,
) -> Vec<Decided> {
    let started = Instant::now();
    files::lay_out(&layout, scenario);
    let params = json!({
        "cwd": layout.work(),
        "mcpServers": [],
        "additionalDirectories": [layout.fill("{X3}")],
        "_meta": layout.fill_value(&scenario.meta),
    });
    let opened = c
        .request("session/new", params)
        .await
        .unwrap_or_else(|e| panic!("{}: session/new: {e}\n{}", scenario.name, c.diagnostics()));
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    let mut decided = Vec::new();
    for (n, turn) in scenario.turns.iter().enumerate() {
        answers.lock().unwrap().insert(id.clone(), turn.answer);
        if let Some(mode) = turn.mode {
            let params = json!({"sessionId": id, "modeId": mode});
            c.request("session/set_mode", params)
                .await
                .unwrap_or_else(|e| panic!("{}: set_mode {mode}: {e}", scenario.name));
        }
        let prompt = format!("differential {} {} turn {n}", side.tag(), scenario.name);
        let blocks = turn
            .calls
            .iter()
            .map(|call| Block::ToolUse {
                name: side.tool_name(call.tool),
                input: layout.fill_value(&call.input),
            })
            .collect();
        mock.push_rule(Rule::on_prompt(prompt.clone(), Reply::blocks(blocks)).once());
        // How the turn ends is not this test's business (claude 2.1.337 ends a plan-mode turn
        // whose checks could not run as an error): what each call did is, read from the mock.
        match c.prompt(&id, &prompt).await {
            Ok(stop) if stop["stopReason"] == "end_turn" => {}
            other => eprintln!("{prompt} ended with {other:?}"),
        }
        if !turn.compared {
            continue;
        }
        let outcomes = outcomes_of_turn(c, mock, &prompt, turn.calls.len());
        for (call, (outcome, shown)) in turn.calls.iter().zip(outcomes) {
            decided.push(Decided {
                key: format!("[{}#{n}] {}", scenario.name, call.label()),
                outcome,
                shown,
            });
        }
    }
    eprintln!(
        "{} side, {}: {} calls in {:.1} s",
        side.tag(),
        scenario.name,
        decided.len(),
        started.elapsed().as_secs_f64()
    );
    decided
}

/// The scripted editor: permission asks answered as the turn says, and (on the editor side) its
/// files read from disk and its writes and commands recorded, never carried out.
fn serve_editor(c: &AcpClient, side: Side, answers: &Answers, log: &Arc<Mutex<EditorLog>>) {
    let answers = answers.clone();
    c.on_request("session/request_permission", move |params| {
        let input = params["toolCall"]["rawInput"].to_string();
        let session = params["sessionId"].as_str().unwrap_or_default();
        let answer = answers.lock().unwrap().get(session).copied();
        let kind = match answer.unwrap_or(Answer::RejectAll) {
            Answer::RejectAll => "reject_once",
            Answer::AllowAll => "allow_once",
            Answer::ByMarker if input.contains("always_allow") => "allow_always",
            Answer::ByMarker if input.contains("always_reject") => "reject_always",
            Answer::ByMarker => "reject_once",
        };
        let options = params["options"].as_array().cloned().unwrap_or_default();
        let chosen = options
            .iter()
            .find(|o| o["kind"] == kind)
            .or_else(|| options.iter().find(|o| o["kind"] == "reject_once"))
            .ok_or((-32603, format!("no option to choose in {params}")))?;
        Ok(json!({"outcome": {"outcome": "selected", "optionId": chosen["optionId"]}}))
    });
    if side == Side::Claude {
        return;
    }
    let reads = log.clone();
    c.on_request("fs/read_text_file", move |params| {
        let path = params["path"].as_str().unwrap_or_default().to_owned();
        reads.lock().unwrap().reads.push(path.clone());
        std::fs::read_to_string(&path)
            .map(|content| json!({"content": content}))
            .map_err(|e| (-32002, format!("{path}: {e}")))
    });
    let writes = log.clone();
    c.on_request("fs/write_text_file", move |params| {
        let path = params["path"].as_str().unwrap_or_default().to_owned();
        writes.lock().unwrap().writes.push(path);
        Ok(json!({}))
    });
    let commands = log.clone();
    c.on_request("terminal/create", move |params| {
        let mut log = commands.lock().unwrap();
        log.commands.push(params["args"].to_string());
        Ok(json!({"terminalId": format!("term-{}", log.commands.len())}))
    });
    let exited = json!({"exitCode": 0, "signal": null});
    let status = exited.clone();
    c.on_request("terminal/output", move |_| {
        Ok(json!({"output": "", "truncated": false, "exitStatus": status}))
    });
    c.on_request("terminal/wait_for_exit", move |_| Ok(exited.clone()));
    c.on_request("terminal/kill", |_| Ok(json!({})));
    c.on_request("terminal/release", |_| Ok(json!({})));
}

/// The outcome of each of the `count` calls of the turn `prompt` opened, in the order they were
/// made.
fn outcomes_of_turn(
    c: &AcpClient,
    mock: &MockApi,
    prompt: &str,
    count: usize,
) -> Vec<(Outcome, String)> {
    let requests = mock.requests();
    let next = requests
        .iter()
        .find(|r| !r.tool_results().is_empty() && r.latest_prompt_text().as_deref() == Some(prompt))
        .unwrap_or_else(|| panic!("{prompt}: no request carried the tool results"));
    // The tool uses of the turn, in order: every one after the prompt.
    let messages = next.messages();
    let start = messages
        .iter()
        .rposition(|m| {
            m["role"] == "user"
                && m["content"]
                    .as_array()
                    .is_some_and(|b| b.iter().any(|b| b["text"] == prompt))
                || m["content"] == prompt
        })
        .unwrap_or(0);
    let ids: Vec<String> = messages[start..]
        .iter()
        .filter(|m| m["role"] == "assistant")
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| b["id"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(ids.len(), count, "{prompt}: tool uses sent back");
    let results: BTreeMap<String, (String, bool)> = messages[start..]
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            let text = match &b["content"] {
                Value::String(text) => text.clone(),
                Value::Array(blocks) => blocks
                    .iter()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            };
            let id = b["tool_use_id"].as_str().unwrap_or_default().to_owned();
            (id, (text, b["is_error"].as_bool().unwrap_or(false)))
        })
        .collect();
    let asked: BTreeSet<String> = c
        .requests()
        .iter()
        .filter(|r| r.method == "session/request_permission")
        .filter_map(|r| {
            r.params["toolCall"]["toolCallId"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    ids.iter()
        .map(|id| {
            let (text, is_error) = results
                .get(id)
                .cloned()
                .unwrap_or_else(|| panic!("{prompt}: no result for {id}"));
            let shown = one_line(&text);
            if asked.contains(id) {
                (Outcome::Asked, shown)
            } else if text.starts_with(UNDECIDED) {
                // claude would decide with its own check, which cannot run offline: the call is
                // the user's to decide, at least.
                (Outcome::Asked, format!("(undecided here) {shown}"))
            } else if is_error && is_refusal(&text) {
                (Outcome::Refused, shown)
            } else {
                (Outcome::Ran, shown)
            }
        })
        .collect()
}

/// What claude answers where its permission check needs the model (its classifier, in plan mode),
/// which the mock API does not serve.
const UNDECIDED: &str = "Auto mode is unavailable";

/// Whether a tool result is a permission refusal, claude's or claude-acp's.
fn is_refusal(text: &str) -> bool {
    [
        "Permission to use",
        "has been denied",
        "is denied",
        "denied by",
        "deny rule",
        "was not run",
        "Refusing to",
        "No such tool available",
        "rejected",
        "not allowed",
        "haven't granted",
    ]
    .iter()
    .any(|s| text.contains(s))
}

/// The first 160 characters of `text` on one line.
fn one_line(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .take(160)
        .collect();
    flat
}
