//! acpx at a terminal, as its user meets it: acpx run in a tmux pane with its default permission
//! policy, which asks on the terminal before a tool runs and again before it writes a file for the
//! agent (`fs/write_text_file`). claude-acp's Write is asked once: acpx's own second question never
//! comes, because a client named acpx starts on "Write to disk". The test answers each `(y/N)`
//! question acpx prints, as a user would, and counts them.
//!
//! Needs tmux (Debian `tmux`), Node.js and npm; `.ci/test` installs them and runs it.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::tmux::Tmux;

use super::editor_configs::{ADAPTER, acpx_scratch, ensure_acpx, repo, sh_quote, write_executable};

#[tokio::test]
#[ignore = "needs tmux (installed by .ci/test, which runs it)"]
async fn acpx_at_a_terminal_asks_its_user_once_per_edit() {
    let client_dir = repo("tests/acpx-client");
    ensure_acpx(&client_dir).await;
    let (scratch, bin, home, project) = acpx_scratch();
    // claude: the stand-in, which writes hello.txt itself once its Write is allowed.
    let claude = bin.join("claude");
    write_executable(
        &claude,
        &format!(
            "#!/bin/sh\necho \"$@\" >> {}\nexec {} standin --script {} \"$@\"\n",
            sh_quote(&scratch.path().join("argv").display().to_string()),
            sh_quote(ADAPTER),
            sh_quote(
                &repo("fixtures/standin/write_either_mode.jsonl")
                    .display()
                    .to_string()
            )
        ),
    );
    let q = |p: &Path| sh_quote(&p.display().to_string());
    let line = format!(
        "cd {project} && env PATH={bin}:\"$PATH\" HOME={home} CLAUDE_CODE_EXECUTABLE={claude} \
         CLAUDE_CONFIG_DIR={config} node {cli} claude-acp exec 'Please create hello.txt'; \
         echo ACPX-EXIT=$?; sleep 60",
        project = q(&project),
        bin = q(&bin),
        home = q(&home),
        claude = q(&claude),
        config = q(&home.join(".claude")),
        cli = q(&client_dir.join("node_modules/acpx/dist/cli.js")),
    );
    let tmux = Tmux::start(
        tokio::process::Command::new("tmux"),
        &scratch.path().join("tmux.sock"),
        "acpx",
        (200, 50),
        &line,
    )
    .await;

    let deadline = Instant::now() + Duration::from_secs(90);
    let mut answered = 0;
    let screen = loop {
        let screen = tmux.screen();
        if screen.contains("ACPX-EXIT=") {
            break screen;
        }
        assert!(Instant::now() < deadline, "acpx never finished:\n{screen}");
        // Each question ends in "(y/N)"; one not yet answered gets the user's "y".
        if screen.matches("(y/N)").count() > answered {
            answered += 1;
            tmux.keys(&["y", "Enter"]);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let argv = std::fs::read_to_string(scratch.path().join("argv")).unwrap_or_default();
    assert!(
        screen.contains("ACPX-EXIT=0"),
        "acpx failed:\n{screen}\nclaude's argv: {argv}"
    );
    assert_eq!(
        screen.matches("(y/N)").count(),
        1,
        "the user was asked more than once for one edit:\n{screen}"
    );
    assert!(
        screen.contains("[permission] Allow") && !screen.contains("Allow write to"),
        "{screen}"
    );
    assert!(
        project.join("hello.txt").exists(),
        "the allowed Write did not land:\n{screen}"
    );
}
