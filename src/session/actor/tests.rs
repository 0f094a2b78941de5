//! The actor's behaviour in-process, fast: claude is the stand-in running as a task (through the
//! launcher seam), the editor the test editor, and the session driven through its commands.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

use super::{Command, SessionActor, SessionSpec, TurnRequest};
use crate::claude::ClaudeCommand;
use crate::domain::{
    AgentError, ContentChunk, PromptBlock, SessionUpdate, StopReason, TurnOutcome,
};
use crate::permissions::PermissionTransport;
use crate::session::config::AdapterConfig;
use crate::session::spawn::{SessionFlags, Start};
use crate::standin::{Script, StandinLauncher};
use crate::testing::TestEditor;

const ID: &str = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
/// Far above what any of these turns takes; only a broken session gets near it.
const TURN_LIMIT: Duration = Duration::from_secs(20);

struct Session {
    commands: mpsc::UnboundedSender<Command>,
    updates: mpsc::UnboundedReceiver<SessionUpdate>,
    launcher: StandinLauncher,
}

/// A session on `fixture` (a stand-in script), started as `session/new` starts one.
fn open(fixture: &str) -> Session {
    let path = format!(
        "{}/fixtures/standin/{fixture}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let launcher = StandinLauncher::new(Script::load(path).expect("fixture loads"));
    let config = AdapterConfig {
        route: Default::default(),
        claude: Ok(ClaudeCommand {
            program: "claude".into(),
            prefix_args: vec![],
        }),
        permission_transport: PermissionTransport::Auto,
        // No transcripts to look in: a restarted claude always resumes.
        claude_config_dir: None,
        allow_bypass_permissions: false,
        launcher: Arc::new(launcher.clone()),
        idle_timeout: None,
        options_cache: Arc::new(crate::session::options_cache::OptionsCache::new(None)),
        options_wait: crate::session::options_cache::OPTIONS_WAIT,
    };
    // It answers no permission ask.
    let editor = Arc::new(TestEditor::default());
    let updates = editor.updates_from_now();
    let spec = SessionSpec {
        id: ID.into(),
        cwd: std::env::temp_dir(),
        flags: SessionFlags::default(),
        editor_servers: vec![],
        start: Start::New,
        mode: "default".into(),
        models: vec![],
        rewind: None,
        file_edits: None,
        terminal: None,
        switches: Default::default(),
        untrusted: None,
    };
    let mut actor = SessionActor::new(spec, Arc::new(config), editor);
    actor.start().expect("claude starts");
    let (commands, rx) = mpsc::unbounded_channel();
    tokio::spawn(actor.run(rx));
    Session {
        commands,
        updates,
        launcher,
    }
}

impl Session {
    /// Sends a prompt; the receiver gets how the turn ended.
    fn prompt(&self, text: &str) -> oneshot::Receiver<Result<TurnOutcome, AgentError>> {
        let (reply, ended) = oneshot::channel();
        let blocks = vec![PromptBlock::Text(text.into())];
        self.commands
            .send(Command::Turn(TurnRequest::Prompt {
                blocks,
                reply,
                written: None,
                inserted: None,
            }))
            .expect("session runs");
        ended
    }

    /// Waits for the agent's next text in the thread.
    async fn next_agent_text(&mut self) -> String {
        loop {
            match self.updates.recv().await.expect("session runs") {
                SessionUpdate::AgentMessageChunk {
                    content: ContentChunk::Text { text },
                    ..
                } => return text,
                _ => continue,
            }
        }
    }

    /// All the agent's text received so far.
    fn agent_text(&mut self) -> String {
        let mut text = String::new();
        while let Ok(update) = self.updates.try_recv() {
            if let SessionUpdate::AgentMessageChunk {
                content: ContentChunk::Text { text: t },
                ..
            } = update
            {
                text.push_str(&t);
            }
        }
        text
    }

    /// The value after `flag` at claude's `n`-th start.
    fn flag_at_start(&self, n: usize, flag: &str) -> Option<String> {
        let args = &self.launcher.starts()[n];
        let at = args.iter().position(|a| a == flag)?;
        args.get(at + 1).cloned()
    }
}

async fn ended(
    turn: oneshot::Receiver<Result<TurnOutcome, AgentError>>,
) -> Result<StopReason, AgentError> {
    tokio::time::timeout(TURN_LIMIT, turn)
        .await
        .expect("the turn ends")
        .expect("the session answers")
        .map(|outcome| outcome.stop_reason)
}

#[tokio::test]
async fn cancel_interrupts_claude_and_the_same_claude_serves_the_next_prompt() {
    let mut s = open("interrupt");
    let turn = s.prompt("tell me a story");
    s.next_agent_text().await;
    s.commands.send(Command::Turn(TurnRequest::Cancel)).unwrap();
    assert_eq!(ended(turn).await.unwrap(), StopReason::Cancelled);

    let next = ended(s.prompt("again")).await;
    assert_eq!(next.unwrap(), StopReason::EndTurn);
    assert!(s.agent_text().contains("Back after the interrupt."));
    assert_eq!(
        s.launcher.starts().len(),
        1,
        "claude honoured the interrupt"
    );
}

#[tokio::test(start_paused = true)]
async fn a_claude_that_ignores_the_interrupt_is_stopped_and_the_turn_ends_cancelled() {
    let s = open("hang");
    let turn = s.prompt("hello");
    s.commands.send(Command::Turn(TurnRequest::Cancel)).unwrap();
    assert_eq!(ended(turn).await.unwrap(), StopReason::Cancelled);
}

#[tokio::test]
async fn after_a_crash_the_next_prompt_restarts_claude_on_the_same_conversation() {
    let mut s = open("crash_then_resume");
    let crashed = ended(s.prompt("look around")).await.unwrap_err();
    let message = crashed.to_string();
    assert!(
        message.contains("claude exited during the turn (exit code 1)")
            && message.contains("simulated crash in the stand-in"),
        "the editor is told why, with claude's last words: {message}"
    );

    let next = ended(s.prompt("go on")).await;
    assert_eq!(next.unwrap(), StopReason::EndTurn);
    assert!(
        s.agent_text()
            .ends_with("Resumed: the conversation is intact."),
        "the restarted claude answered"
    );
    assert_eq!(s.launcher.starts().len(), 2);
    assert_eq!(s.flag_at_start(1, "--resume").as_deref(), Some(ID));
}

#[tokio::test]
async fn a_broken_stdio_permission_channel_switches_to_mcp_and_keeps_the_turn() {
    let mut s = open("permission_break");
    let stop = ended(s.prompt("create hello.txt")).await;
    assert_eq!(
        stop.unwrap(),
        StopReason::EndTurn,
        "one turn, one stop reason"
    );
    let text = s.agent_text();
    assert!(
        text.contains("[claude-acp] claude denied Write without asking"),
        "the user is told what happened: {text}"
    );
    assert!(
        text.ends_with("Retried: the Write was asked for this time."),
        "{text}"
    );
    assert_eq!(s.launcher.starts().len(), 2, "claude was restarted once");
    assert_eq!(
        s.flag_at_start(0, "--permission-prompt-tool").as_deref(),
        Some("stdio")
    );
    assert_eq!(
        s.flag_at_start(1, "--permission-prompt-tool").as_deref(),
        Some("mcp__claude-acp__permission")
    );
    assert_eq!(
        s.flag_at_start(1, "--resume").as_deref(),
        Some(ID),
        "the conversation is kept"
    );
}

#[tokio::test]
async fn a_panic_in_a_session_fails_its_prompt_stops_its_claude_and_other_sessions_go_on() {
    let broken = open("hang");
    let mut other = open("text");
    let turn = broken.prompt("hello");
    let other_turn = other.prompt("hi");
    assert_eq!(broken.launcher.running(), 1);

    broken.commands.send(Command::PanicForTest).unwrap();
    let err = ended(turn)
        .await
        .expect_err("the prompt is answered with an error");
    assert!(
        err.to_string().contains("internal error") && err.to_string().contains("stopped"),
        "{err}"
    );
    let deadline = tokio::time::Instant::now() + TURN_LIMIT;
    while broken.launcher.running() > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the panicking session's claude still runs"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    assert_eq!(ended(other_turn).await.unwrap(), StopReason::EndTurn);
    assert_eq!(other.agent_text(), "Hello from the mock model!");
    assert_eq!(
        ended(other.prompt("again")).await.unwrap(),
        StopReason::EndTurn
    );
    // The session whose task panicked still answers: a prompt starts a new claude.
    let again = broken.prompt("are you there?");
    broken
        .commands
        .send(Command::Turn(TurnRequest::Cancel))
        .unwrap();
    assert_eq!(ended(again).await.unwrap(), StopReason::Cancelled);
    assert_eq!(broken.launcher.starts().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_model_change_claude_never_answers_fails_naming_it_and_does_not_delay_cancel() {
    let s = open("hang");
    let turn = s.prompt("hello");
    let (reply, changed) = oneshot::channel();
    s.commands
        .send(Command::SetConfigOption {
            id: "model".into(),
            value: "sonnet".into(),
            reply,
        })
        .unwrap();
    let cancelled_at = tokio::time::Instant::now();
    s.commands.send(Command::Turn(TurnRequest::Cancel)).unwrap();
    assert_eq!(ended(turn).await.unwrap(), StopReason::Cancelled);
    // On the paused clock: the cancel's deadline, not the change's time limit behind it.
    assert!(
        cancelled_at.elapsed() < super::ctx::CONTROL_TIMEOUT,
        "the cancel waited for the model change: {:?}",
        cancelled_at.elapsed()
    );
    let err = changed
        .await
        .unwrap()
        .expect_err("claude never made the change");
    assert!(
        err.to_string().contains("model change to `sonnet`"),
        "{err}"
    );
}
