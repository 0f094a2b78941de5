//! The files the differential test's calls run on: the user's settings and the stand-in programs
//! every scenario shares, and each scenario's folders, files, links, git repository and settings
//! (the same on both sides).

use std::os::unix::fs::symlink;
use std::path::Path;

use serde_json::json;

use super::corpus::{Layout, Scenario};

/// The settings every scenario shares: the user's `~/.claude/settings.json`, and the programs
/// that must not run for real on claude's side (`date` setting the clock: the tests may run as
/// root), which only record that they ran.
pub(super) fn lay_out_shared(home: &Path, shims: &Path) {
    let user = home.join(".claude");
    std::fs::create_dir_all(&user).unwrap();
    let settings = json!({"permissions": {
        "deny": ["Read(**/.env)", "Read(**/user_denied.txt)", "Bash(rm:*)", "Edit(**/no_edit.txt)"],
        "allow": ["Bash(tac:*)", "Edit(**/yes_edit.txt)"],
    }});
    std::fs::write(user.join("settings.json"), settings.to_string()).unwrap();
    std::fs::write(home.join("secret_home.txt"), "SECRET-HOME\n").unwrap();
    std::fs::create_dir_all(shims).unwrap();
    let date = format!(
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in --s*|-[!-]*s*) echo \"date $*\" >> {}/ran.log; exit 0;; esac; done\nexec /usr/bin/date \"$@\"\n",
        shims.display()
    );
    std::fs::write(shims.join("date"), date).unwrap();
    make_executable(&shims.join("date"));
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The folders and files of one scenario: the same on both sides.
pub(super) fn lay_out(layout: &Layout, scenario: &Scenario) {
    let at = |rel: &str| layout.root.join(rel);
    for dir in [
        "work/sub",
        "work/del_zone",
        "work/.claude",
        "outside",
        "outside2/allow",
        "outside2/reject",
        "extra1",
        "extra2",
        "extra3",
    ] {
        std::fs::create_dir_all(at(dir)).unwrap();
    }
    let files = [
        ("work/notes.txt", "NOTE-MARK alpha\nbeta\n"),
        ("work/sub/inner.txt", "INNER-MARK\n"),
        ("work/.env", "SECRET-ENV\n"),
        ("work/sub/.env", "SECRET-SUBENV\n"),
        ("work/user_denied.txt", "SECRET-USER-DENIED\n"),
        ("work/proj_denied.txt", "SECRET-PROJ-DENIED\n"),
        ("work/local_denied.txt", "SECRET-LOCAL-DENIED\n"),
        ("work/meta_denied.txt", "SECRET-META-DENIED\n"),
        ("work/disallowed.txt", "SECRET-DISALLOWED\n"),
        ("work/policy_denied.txt", "SECRET-POLICY-DENIED\n"),
        ("work/always_allow_cmd.txt", "a\na\n"),
        ("work/always_reject_cmd.txt", "b\nb\n"),
        ("work/e_in.txt", "EDIT-ME inside\n"),
        ("work/e_plan.txt", "EDIT-ME in plan mode\n"),
        ("work/e_dontAsk.txt", "EDIT-ME in dontAsk mode\n"),
        ("work/del_zone/a", "a\n"),
        ("work/del_zone/b", "b\n"),
        ("outside/secret.txt", "SECRET-OUT\n"),
        ("outside/patterns.txt", "SECRET\n"),
        ("outside/dates.txt", "2001-01-01\n"),
        ("outside/proj_allowed.txt", "SECRET-PROJ-ALLOWED\n"),
        ("outside/allowed_tool.txt", "SECRET-ALLOWED-TOOL\n"),
        ("outside/e_out.txt", "EDIT-ME outside\n"),
        ("outside/e_link.txt", "EDIT-ME through a link\n"),
        ("outside/e_link2.txt", "EDIT-ME through a linked folder\n"),
        ("outside/e_out2.txt", "EDIT-ME outside, absolute\n"),
        ("work/e_in2.txt", "EDIT-ME inside, absolute\n"),
        ("outside/magic", "0 string SECRET secret\n"),
        ("outside2/allow/always_allow.txt", "SECRET-O2-ALLOW\n"),
        ("outside2/allow/other.txt", "SECRET-O2-ALLOW-OTHER\n"),
        ("outside2/reject/always_reject.txt", "SECRET-O2-REJECT\n"),
        ("outside2/reject/other.txt", "SECRET-O2-REJECT-OTHER\n"),
        ("work/no_edit.txt", "EDIT-ME no\n"),
        ("work/yes_edit.txt", "EDIT-ME yes\n"),
        ("work/meta_no_edit.txt", "EDIT-ME meta no\n"),
        ("work/proj_no_write.txt", "EDIT-ME project no\n"),
        ("extra1/e1.txt", "EXTRA1\n"),
        ("extra1/e_x1.txt", "EDIT-ME extra1\n"),
        ("extra2/e2.txt", "EXTRA2\n"),
        ("extra2/e_x2.txt", "EDIT-ME extra2\n"),
        ("extra3/e3.txt", "EXTRA3\n"),
        ("extra3/e_x3.txt", "EDIT-ME extra3\n"),
    ];
    for (rel, text) in files {
        std::fs::write(at(rel), text).unwrap();
    }
    let outside = at("outside");
    let secret = outside.join("secret.txt");
    std::fs::write(
        outside.join("list0"),
        format!("{}\0", secret.display()).as_bytes(),
    )
    .unwrap();
    std::fs::write(outside.join("list"), format!("{}\n", secret.display())).unwrap();
    symlink(&secret, at("work/link_file.txt")).unwrap();
    symlink(&outside, at("work/link_dir")).unwrap();
    symlink("notes.txt", at("work/link_inside.txt")).unwrap();
    symlink("sub", at("work/link_sub")).unwrap();
    symlink(".env", at("work/link_env")).unwrap();
    symlink(outside.join("e_link.txt"), at("work/link_edit.txt")).unwrap();
    symlink(&secret, at("extra1/link_out.txt")).unwrap();
    symlink(&outside, at("extra1/link_dir")).unwrap();
    git(&at("work"), &["init", "-q", "-b", "main"]);
    git(&at("work"), &["add", "notes.txt", "sub/inner.txt"]);
    git(
        &at("work"),
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "-m",
            "init",
        ],
    );
    if let Some(settings) = &scenario.project_settings {
        let text = layout.fill_value(settings).to_string();
        std::fs::write(at("work/.claude/settings.json"), text).unwrap();
    }
    if let Some(settings) = &scenario.local_settings {
        let text = layout.fill_value(settings).to_string();
        std::fs::write(at("work/.claude/settings.local.json"), text).unwrap();
    }
}

fn git(dir: &Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}
