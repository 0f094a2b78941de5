//! Emacs (`emacs -nw`, 29.1 or later) with agent-shell, acp.el and shell-maker as pinned, and
//! `editors/emacs/claude-acp.el` loaded from the init file before agent-shell, as its README says.
//! The user picks "Claude Code (claude-acp)" in `M-x agent-shell` (the entry the config
//! registers) and answers each permission with the keys its buttons show.

use std::time::Duration;

use super::{Workspace, elisp_version, plugin, program, shows_after, version};
use crate::clients::editor_configs::{repo, sh_quote};

const INSTALL: &str =
    "Emacs 29.1 or later (Debian 12: apt-get install -t bookworm-backports emacs-nox)";

/// What Emacs shows when loading or running the config fails.
const ERRORS: &[&str] = &[
    "Wrong type argument",
    "Symbol’s function definition is void",
    "Symbol’s value as variable is void",
    "Cannot open load file",
    "Debugger entered",
];

/// The shell's prompt (`:shell-prompt` of the config's agent).
const PROMPT: &str = "Claude> ";

/// The init file loading `agent_shell` (a checkout's name in `tests/editors/plugins.tsv`).
fn init_file(scratch: &std::path::Path, agent_shell: &str) -> std::path::PathBuf {
    let dirs: Vec<String> = [
        plugin(agent_shell, |d| elisp_version(&d.join("agent-shell.el"))),
        plugin("acp.el", |d| elisp_version(&d.join("acp.el"))),
        plugin("shell-maker", |d| elisp_version(&d.join("shell-maker.el"))),
    ]
    .iter()
    .map(|dir| format!("{:?}", dir.display().to_string()))
    .collect();
    let config = repo("editors/emacs/claude-acp.el");
    let init = scratch.join("init.el");
    std::fs::write(
        &init,
        format!(
            "(setq inhibit-startup-screen t)\n\
             (dolist (dir (list {})) (add-to-list 'load-path dir))\n\
             (load {:?} nil t)\n\
             (require 'agent-shell)\n",
            dirs.join(" "),
            config.display().to_string()
        ),
    )
    .unwrap();
    init
}

impl Workspace {
    /// Types `prompt` at the shell's prompt and sends it.
    fn send(&self, prompt: &str) {
        self.tmux().type_text(prompt);
        self.tmux().keys(&["Enter"]);
    }

    /// Waits for `answer` to stream in and the prompt to come back after it.
    async fn answered(&self, answer: &str) -> String {
        self.wait(&format!("the answer {answer:?}"), ERRORS, |s| {
            shows_after(s, answer, PROMPT.trim_end())
        })
        .await
    }

    /// Waits for the permission dialog to offer a button on `key` (agent-shell's notation: `y`
    /// allow once, `!` always allow, and rejecting is on its interrupt key, `C-c C-c`) and
    /// presses it.
    async fn answer_permission(&self, key: &str) -> String {
        let button = format!("({key}) ]");
        let screen = self
            .wait(&format!("a permission button on {key}"), ERRORS, |s| {
                s.contains("Tool Permission") && s.contains(&button)
            })
            .await;
        let keys: Vec<&str> = key.split(' ').collect();
        self.tmux().keys(&keys);
        screen
    }
}

#[tokio::test]
#[ignore = "needs emacs 29.1+, tmux and the editor plugins (.ci/test installs and runs it)"]
async fn agent_shell_runs_claude_acp_and_its_permissions_in_emacs() {
    in_emacs("agent-shell").await;
}

/// The release before agent-shell's list of agents held functions (0.60.2), and the last the
/// README named before.
#[tokio::test]
#[ignore = "needs emacs 29.1+, tmux and the editor plugins (.ci/test installs and runs it)"]
async fn agent_shell_0_50_runs_claude_acp_and_its_permissions_in_emacs() {
    in_emacs("agent-shell-0.50.1").await;
}

async fn in_emacs(agent_shell: &str) {
    let emacs = program("emacs", INSTALL);
    let emacs_version = version(&emacs, "GNU Emacs ");
    assert!(emacs_version >= vec![29, 1], "{INSTALL}: {emacs_version:?}");
    let mut ws = Workspace::new();
    let init = init_file(&ws.env.home_dir(), agent_shell);
    ws.open(&format!(
        "{} -nw -Q -l {}",
        sh_quote(&emacs.display().to_string()),
        sh_quote(&init.display().to_string())
    ))
    .await;
    ws.wait("Emacs' *scratch* buffer", ERRORS, |s| {
        s.contains("*scratch*")
    })
    .await;

    // M-x agent-shell offers the agent the config registered; SPC completes in the minibuffer,
    // so the spaces of its name are typed with C-q.
    ws.tmux().keys(&["M-x"]);
    ws.tmux().type_text("agent-shell");
    ws.tmux().keys(&["Enter"]);
    ws.wait("agent-shell's agent picker", ERRORS, |s| {
        s.contains("Start new agent:")
    })
    .await;
    ws.tmux().keys(&[
        "Claude",
        "C-q",
        "Space",
        "Code",
        "C-q",
        "Space",
        "(claude-acp)",
        "Enter",
    ]);
    let screen = ws
        .wait("the shell or the shell picker", ERRORS, |s| {
            s.contains("Start shell") || s.contains(PROMPT.trim_end())
        })
        .await;
    if screen.contains("Start shell") {
        ws.tmux().keys(&["Enter"]);
    }
    ws.wait("the session started", ERRORS, |s| {
        s.contains("Available modes") && s.contains(PROMPT.trim_end())
    })
    .await;

    // Allow once: the file is written and the answer streams in.
    let (path, content) = ws.script_write("allow-once.txt", "Wrote allow-once.txt as asked.");
    ws.send("Please create allow-once.txt");
    ws.answer_permission("y").await;
    ws.answered("Wrote allow-once.txt as asked.").await;
    ws.wait_for_file(&path, &content).await;
    assert!(
        ws.edits_through_the_editor(),
        "the editor's fs capabilities did not reach claude-acp: claude wrote the file itself"
    );

    // Reject: agent-shell answers and interrupts the turn; the file is not written.
    let (path, _) = ws.script_write("rejected.txt", "Left rejected.txt alone.");
    ws.send("Please create rejected.txt");
    ws.answer_permission("C-c C-c").await;
    let after_reject = ws
        .wait("the turn ended after the reject", ERRORS, |s| {
            shows_after(s, "rejected.txt", PROMPT.trim_end())
        })
        .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(!path.exists(), "a rejected Write landed:\n{after_reject}");

    // Cancel mid-stream (C-c C-c, and y to agent-shell's question), then the session goes on.
    ws.script_story("story");
    ws.send("Tell me a story");
    ws.wait("the story streaming", ERRORS, |s| {
        s.contains("a small crab")
    })
    .await;
    ws.tmux().keys(&["C-c", "C-c"]);
    ws.wait("agent-shell's question", ERRORS, |s| {
        s.contains("Interrupt? (y or n)")
    })
    .await;
    ws.tmux().keys(&["y"]);
    let cancelled = ws
        .wait("the turn ended after C-c C-c", ERRORS, |s| {
            shows_after(s, "a small crab", PROMPT.trim_end())
        })
        .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let screen = ws.tmux().screen();
    assert!(
        !screen.contains("THE END"),
        "the cancelled answer went on streaming:\n{screen}"
    );
    ws.script_text("still there", "Still here after the cancel.");
    ws.send("Are you still there?");
    let screen = ws.answered("Still here after the cancel.").await;

    // Always allow: this Write and the next one, which is not asked (the session is now
    // in acceptEdits), so it comes last.
    let (path, content) = ws.script_write("always.txt", "Wrote always.txt for good.");
    ws.send("Please create always.txt");
    ws.answer_permission("!").await;
    ws.answered("Wrote always.txt for good.").await;
    ws.wait_for_file(&path, &content).await;
    let (path, content) = ws.script_write("always-again.txt", "Wrote always-again.txt unasked.");
    ws.send("Please create always-again.txt");
    ws.answered("Wrote always-again.txt unasked.").await;
    ws.wait_for_file(&path, &content).await;

    let end = ws.tmux().screen();
    assert!(
        end.contains("Accept Edits"),
        "the mode line does not show the mode always-allow switched to:\n{end}"
    );
    // claude-acp-start's claude-acp logs to its file: nothing reaches the shell's Notices.
    assert!(
        !end.contains("Notices"),
        "claude-acp wrote to stderr:\n{end}"
    );

    // agent-shell's own Claude Code agent, pointed at claude-acp: its stderr, which agent-shell
    // shows under Notices, holds warnings only, and starting it gave none.
    ws.tmux().keys(&["M-x"]);
    ws.tmux()
        .type_text("agent-shell-anthropic-start-claude-code");
    ws.tmux().keys(&["Enter"]);
    ws.wait("the shell picker", ERRORS, |s| s.contains("Start shell"))
        .await;
    ws.tmux().keys(&["Enter"]);
    let stock = ws
        .wait("the stock agent's session started", ERRORS, |s| {
            s.contains("Welcome to agent shell") && s.contains("Available modes")
        })
        .await;
    assert!(
        !stock.contains("Notices"),
        "the stock agent's claude-acp wrote to stderr:\n{stock}"
    );
    // Quitting Emacs ends claude-acp and claude.
    ws.tmux().keys(&["C-x", "C-c"]);
    ws.editor_exited().await;
    eprintln!(
        "--- after the reject ---\n{after_reject}\n--- after the cancel ---\n{cancelled}\n--- the next answer ---\n{screen}\n--- the end ---\n{end}\n--- the stock agent ---\n{stock}"
    );
}
