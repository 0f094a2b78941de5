//! The differential test's corpus: the scenarios (a session each, with its settings and `_meta`),
//! their turns and calls, and the files they run on. Paths are written with placeholders, filled
//! per side: `{W}` the session's cwd, `{O}` a folder outside it, `{O2}` another one (for the
//! session's "always" answers), `{X1}` `_meta.additionalRoots`, `{X2}`
//! `_meta.claudeCode.options.additionalDirectories`, `{X3}` the request's `additionalDirectories`,
//! `{H}` the home folder (`~`).

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// How the editor answers the asks of one turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Answer {
    RejectAll,
    AllowAll,
    /// "Always allow" where the call names `always_allow`, "always reject" where it names
    /// `always_reject`, otherwise reject once.
    ByMarker,
}

pub(super) struct Call {
    pub tool: &'static str,
    pub input: Value,
}

impl Call {
    /// The call as the report names it, the same on both sides.
    pub(super) fn label(&self) -> String {
        match self.tool {
            "Bash" => format!("Bash `{}`", self.input["command"].as_str().unwrap_or("")),
            "Edit" | "Write" | "Read" => {
                format!(
                    "{} {}",
                    self.tool,
                    self.input["file_path"].as_str().unwrap_or("")
                )
            }
            _ => format!("{} {}", self.tool, self.input),
        }
    }
}

pub(super) struct Turn {
    /// The permission mode the session is switched to first (`session/set_mode`), if any.
    pub mode: Option<&'static str>,
    pub calls: Vec<Call>,
    pub answer: Answer,
    /// Whether its outcomes are compared (a turn that only prepares the next one is not).
    pub compared: bool,
}

pub(super) struct Scenario {
    pub name: &'static str,
    /// `session/new`'s `_meta`, with placeholders.
    pub meta: Value,
    pub project_settings: Option<Value>,
    pub local_settings: Option<Value>,
    pub turns: Vec<Turn>,
}

/// One scenario's folders on one side.
pub(super) struct Layout {
    pub root: PathBuf,
    pub home: PathBuf,
}

impl Layout {
    pub(super) fn work(&self) -> PathBuf {
        self.root.join("work")
    }

    pub(super) fn fill(&self, text: &str) -> String {
        let at = |sub: &str| self.root.join(sub).display().to_string();
        text.replace("{W}", &at("work"))
            .replace("{O2}", &at("outside2"))
            .replace("{O}", &at("outside"))
            .replace("{X1}", &at("extra1"))
            .replace("{X2}", &at("extra2"))
            .replace("{X3}", &at("extra3"))
            .replace("{H}", &self.home.display().to_string())
    }

    pub(super) fn fill_value(&self, value: &Value) -> Value {
        match value {
            Value::String(text) => Value::String(self.fill(text)),
            Value::Array(items) => items.iter().map(|v| self.fill_value(v)).collect(),
            Value::Object(map) => map
                .iter()
                .map(|(k, v)| (k.clone(), self.fill_value(v)))
                .collect(),
            other => other.clone(),
        }
    }
}

fn read(path: &str) -> Call {
    Call {
        tool: "Read",
        input: json!({"file_path": path}),
    }
}

fn write(path: &str) -> Call {
    Call {
        tool: "Write",
        input: json!({"file_path": path, "content": "written by the model\n"}),
    }
}

fn edit(path: &str) -> Call {
    Call {
        tool: "Edit",
        input: json!({"file_path": path, "old_string": "EDIT-ME", "new_string": "EDITED"}),
    }
}

fn bash(command: &str) -> Call {
    Call {
        tool: "Bash",
        input: json!({"command": command, "description": "differential", "timeout": 2000}),
    }
}

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

/// Every scenario, in the order they run.
pub(super) fn scenarios() -> Vec<Scenario> {
    vec![rules_and_paths(), disallowed(), no_bash(), dont_ask()]
}

fn compared(calls: Vec<Call>) -> Turn {
    Turn {
        mode: None,
        calls,
        answer: Answer::RejectAll,
        compared: true,
    }
}

/// The default mode with rules from every source (managed policy included), the paths, the
/// read-only commands and their options, then the session's own "always" answers, then the same
/// session in acceptEdits, plan and dontAsk.
fn rules_and_paths() -> Scenario {
    let mut calls: Vec<Call> = read_paths().into_iter().map(|p| read(&p)).collect();
    calls.extend(rule_calls());
    calls.extend(read_only_commands().iter().map(|c| bash(c)));
    let always = vec![
        read("{O2}/allow/always_allow.txt"),
        read("{O2}/reject/always_reject.txt"),
        bash("uniq always_allow_cmd.txt"),
        bash("cp always_reject_cmd.txt always_reject_out.txt"),
    ];
    let after_always = vec![
        read("{O2}/allow/always_allow.txt"),
        read("{O2}/allow/other.txt"),
        write("{O2}/allow/new_after_always.txt"),
        bash("cat {O2}/allow/other.txt"),
        read("{O2}/reject/always_reject.txt"),
        read("{O2}/reject/other.txt"),
        write("{O2}/reject/new_after_always.txt"),
        bash("cat {O2}/reject/other.txt"),
        bash("cp always_reject_cmd.txt always_reject_out.txt"),
        bash("cp always_reject_cmd.txt always_reject_out2.txt"),
        bash("uniq always_allow_cmd.txt"),
        bash("uniq always_allow_cmd.txt {O}/uniq_out.txt"),
        bash("uniq always_allow_cmd.txt && cat ../outside/secret.txt"),
        bash("uniq always_reject_cmd.txt"),
    ];
    calls.extend(policy_calls());
    // Managed policy is given as claude's `--managed-settings`: the policy file
    // (`/etc/claude-code/managed-settings.json`) is the machine's, shared by every claude on it,
    // and claude 2.1.332 reads no variable that would move it.
    let policy = json!({"permissions": {
        "deny": ["Read(**/policy_denied.txt)", "Bash(cat policy_denied.txt)"],
        "allow": ["Bash(paste:*)"],
    }});
    Scenario {
        name: "rules",
        meta: json!({
            "additionalRoots": ["{X1}"],
            "claudeCode": {"options": {
                "extraArgs": {"managed-settings": policy.to_string()},
                "additionalDirectories": ["{X2}"],
                "settings": {"permissions": {
                    "deny": ["Read(**/meta_denied.txt)", "Bash(od:*)", "Edit(**/meta_no_edit.txt)"],
                    "allow": ["Bash(rev:*)", "Edit(//{O}/allowed_edit_out.txt)"],
                }},
                "allowedTools": ["Bash(base64:*)", "Read(//{O}/allowed_tool.txt)"],
                "disallowedTools": ["Bash(xxd:*)", "Read(**/disallowed.txt)"],
            }},
        }),
        project_settings: Some(json!({"permissions": {
            "deny": ["Read(**/proj_denied.txt)", "Bash(shred:*)", "Write(**/proj_no_write.txt)"],
            "allow": ["Bash(touch:*)", "Read(//{O}/proj_allowed.txt)"],
        }})),
        local_settings: Some(json!({"permissions": {
            "deny": ["Read(**/local_denied.txt)"],
            "allow": ["Bash(nl:*)"],
        }})),
        turns: vec![
            compared(calls),
            Turn {
                mode: None,
                calls: always,
                answer: Answer::ByMarker,
                compared: true,
            },
            compared(after_always),
            accept_edits_prepare(),
            accept_edits(),
            mode_prepare("e_plan.txt"),
            mode_calls("plan"),
        ],
    }
}

/// Calls the managed policy decides.
fn policy_calls() -> Vec<Call> {
    vec![
        read("policy_denied.txt"),
        read("{W}/policy_denied.txt"),
        write("policy_denied.txt"),
        bash("cat policy_denied.txt"),
        bash("head policy_denied.txt"),
        bash("paste notes.txt"),
        bash("paste ../outside/secret.txt"),
    ]
}

/// Paths for Read: inside, `..`, absolute, symlinks to files and folders, `~`, the additional
/// directories of every source.
fn read_paths() -> Vec<String> {
    [
        "notes.txt",
        "{W}/notes.txt",
        "./notes.txt",
        "sub/inner.txt",
        "sub/../notes.txt",
        "{W}/sub/../notes.txt",
        "{W}/sub/inner.txt",
        "link_inside.txt",
        "link_sub/inner.txt",
        "{W}/link_sub/inner.txt",
        "../outside/secret.txt",
        "{W}/../outside/secret.txt",
        "sub/../../outside/secret.txt",
        "{W}/sub/../../outside/secret.txt",
        "{O}/secret.txt",
        "/etc/hostname",
        "link_file.txt",
        "{W}/link_file.txt",
        "link_dir/secret.txt",
        "{W}/link_dir/secret.txt",
        "link_dir/../work/notes.txt",
        "~/secret_home.txt",
        "{H}/secret_home.txt",
        "~/../outside/secret.txt",
        "{X1}/e1.txt",
        "{X2}/e2.txt",
        "{X3}/e3.txt",
        "{X1}/../outside/secret.txt",
        "{X1}/link_out.txt",
        "{X1}/link_dir/secret.txt",
        "{W}/.git/config",
    ]
    .iter()
    .map(|p| p.to_string())
    .collect()
}

/// Calls that rules of each source decide: the user's settings, the project's, the local ones,
/// `_meta` settings, `allowedTools` and `disallowedTools`.
fn rule_calls() -> Vec<Call> {
    let mut calls = vec![
        read(".env"),
        read("{W}/.env"),
        read("sub/.env"),
        read("link_env"),
        read("user_denied.txt"),
        read("proj_denied.txt"),
        read("local_denied.txt"),
        read("meta_denied.txt"),
        read("disallowed.txt"),
        read("{W}/disallowed.txt"),
        read("{O}/proj_allowed.txt"),
        read("{O}/allowed_tool.txt"),
        read("../outside/allowed_tool.txt"),
        write("no_edit.txt"),
        write("{W}/no_edit.txt"),
        write("yes_edit.txt"),
        write("meta_no_edit.txt"),
        write("proj_no_write.txt"),
        write("{O}/allowed_edit_out.txt"),
        write("../outside/allowed_edit_out.txt"),
        write("w_default.txt"),
        write("../outside/w_default.txt"),
        write(".env"),
    ];
    calls.extend(
        [
            "cat .env",
            "head -1 .env",
            "grep SECRET .env",
            "cat sub/.env",
            "cat link_env",
            "cat user_denied.txt",
            "cat proj_denied.txt",
            "cat meta_denied.txt",
            "cat disallowed.txt",
            "rm del_zone/a",
            "rm -rf del_zone",
            "shred del_zone/b",
            "touch touched.txt",
            "touch ../outside/touched.txt",
            "touch {O}/touched_abs.txt",
            "nl notes.txt",
            "nl ../outside/secret.txt",
            "nl notes.txt && touch nl_touched.txt",
            "od -c notes.txt",
            "rev notes.txt",
            "rev ../outside/secret.txt",
            "base64 notes.txt",
            "base64 ../outside/secret.txt",
            "base64 -d notes.txt",
            "xxd notes.txt",
            "tac notes.txt",
            "tac ../outside/secret.txt",
            "tac notes.txt; touch tac_touched.txt",
            "cat notes.txt | xxd",
            "ls && od -c notes.txt",
        ]
        .iter()
        .map(|c| bash(c)),
    );
    calls
}

/// Every command of the read-only list with the options that run a program, write, or read a
/// path, and its arguments inside and out.
fn read_only_commands() -> Vec<&'static str> {
    vec![
        // ls
        "ls",
        "ls -la sub",
        "ls ..",
        "ls {O}",
        "ls ~",
        "ls link_dir",
        "ls link_dir/",
        "ls -R link_dir",
        "ls -L link_dir",
        "ls {X1}",
        "ls {X3}",
        "ls /",
        "ls -la ../outside",
        "ls --hide=x ..",
        // pwd
        "pwd",
        "pwd -P",
        // cat
        "cat notes.txt",
        "cat -n notes.txt",
        "cat link_inside.txt",
        "cat link_file.txt",
        "cat link_dir/secret.txt",
        "cat ../outside/secret.txt",
        "cat {O}/secret.txt",
        "cat ~/secret_home.txt",
        "cat {X1}/e1.txt",
        "cat {X1}/link_out.txt",
        "cat {X2}/e2.txt",
        "cat {X3}/e3.txt",
        "cat sub/../notes.txt",
        "cat {W}/sub/../../outside/secret.txt",
        "cat notes.txt link_file.txt",
        "cat -- ../outside/secret.txt",
        "cat link_sub/inner.txt",
        // head
        "head -n 3 notes.txt",
        "head link_file.txt",
        "head -c 5 ../outside/secret.txt",
        "head --lines=2 {O}/secret.txt",
        "head -n1 link_dir/secret.txt",
        // tail
        "tail notes.txt",
        "tail -f notes.txt",
        "tail --follow notes.txt",
        "tail -F notes.txt",
        "tail --follow=name notes.txt",
        "tail --pid=1 -f notes.txt",
        "tail link_file.txt",
        "tail -n1 ../outside/secret.txt",
        // wc
        "wc -l notes.txt",
        "wc link_file.txt",
        "wc --files0-from=../outside/list0",
        "wc --files0-from={O}/list0",
        "wc -c ~/secret_home.txt",
        "wc -l link_dir/secret.txt",
        // grep
        "grep NOTE notes.txt",
        "grep -r SECRET ..",
        "grep -f ../outside/patterns.txt notes.txt",
        "grep -f{O}/patterns.txt notes.txt",
        "grep --file={O}/patterns.txt notes.txt",
        "grep -r SECRET link_dir",
        "grep -R SECRET .",
        "grep --dereference-recursive SECRET .",
        "grep SECRET link_file.txt",
        "grep --exclude-from={O}/patterns.txt x notes.txt",
        "grep -e x {O}/secret.txt",
        "grep -r NOTE .",
        "grep -d recurse SECRET .",
        "grep --directories=recurse SECRET ..",
        "grep -r --include=*.txt SECRET link_dir",
        // rg
        "rg NOTE",
        "rg -L SECRET",
        "rg --follow SECRET",
        "rg SECRET ..",
        "rg --pre=sh NOTE",
        "rg --pre sh NOTE",
        "rg -f {O}/patterns.txt",
        "rg --ignore-file={O}/patterns.txt NOTE",
        "rg SECRET {O}",
        "rg -z NOTE",
        "rg --search-zip NOTE",
        "rg --hostname-bin=sh NOTE",
        "rg --pre-glob=* --pre=sh NOTE",
        // echo
        "echo hi",
        "echo ../outside/secret.txt",
        // which
        "which ls",
        "which date",
        // date
        "date",
        "date +%s",
        "date -u",
        "date -d yesterday",
        "date -s 2001-01-01",
        "date --set=2001-01-01",
        "date --set 2001-01-01",
        "date -f {O}/dates.txt",
        "date --file={O}/dates.txt",
        "date -f ../outside/dates.txt",
        "date -r {O}/secret.txt",
        "date --reference=../outside/secret.txt",
        // tree
        "tree",
        "tree ..",
        "tree -l",
        "tree -o tree_out.txt",
        "tree -o {O}/tree_out.txt",
        "tree --fromfile {O}/list",
        "tree link_dir",
        "tree {O}",
        // stat
        "stat notes.txt",
        "stat ../outside/secret.txt",
        "stat -L link_file.txt",
        "stat link_dir/secret.txt",
        "stat {O}",
        // du
        "du -sh .",
        "du ..",
        "du -L .",
        "du --files0-from={O}/list0",
        "du -X {O}/patterns.txt .",
        "du --exclude-from={O}/patterns.txt .",
        "du link_dir/",
        // sort
        "sort notes.txt",
        "sort --compress-program=sh --buffer-size=16K notes.txt",
        "sort --compress-program sh notes.txt",
        "sort -o {O}/sorted.txt notes.txt",
        "sort -o{O}/sorted2.txt notes.txt",
        "sort --output={O}/sorted3.txt notes.txt",
        "sort -o sorted_in.txt notes.txt",
        "sort --files0-from={O}/list0",
        "sort -T {O} notes.txt",
        "sort --temporary-directory={O} notes.txt",
        "sort --random-source={O}/secret.txt -R notes.txt",
        "sort link_file.txt",
        "sort ../outside/secret.txt",
        // cut
        "cut -c1 notes.txt",
        "cut -c1 link_file.txt",
        "cut -d: -f1 ../outside/secret.txt",
        // diff
        "diff notes.txt notes.txt",
        "diff notes.txt ../outside/secret.txt",
        "diff -r . ..",
        "diff notes.txt link_file.txt",
        "diff --from-file={O}/secret.txt notes.txt",
        "diff --to-file={O}/secret.txt notes.txt",
        "diff -X {O}/patterns.txt . sub",
        "diff --exclude-from={O}/patterns.txt . sub",
        "diff -r sub link_dir",
        // file
        "file notes.txt",
        "file -L link_file.txt",
        "file -f {O}/list",
        "file --files-from={O}/list",
        "file -m {O}/magic notes.txt",
        "file --magic-file={O}/magic notes.txt",
        "file -C -m magic_out notes.txt",
        "file ../outside/secret.txt",
        "file link_dir/secret.txt",
        // git
        "git status",
        "git status --porcelain",
        "git log --oneline",
        "git log --format=%H",
        "git diff",
        "git show HEAD",
        "git show HEAD:notes.txt",
        "git diff --no-index {O}/secret.txt notes.txt",
        "git diff --no-index ../outside/secret.txt notes.txt",
        "git diff --no-index link_file.txt notes.txt",
        "git diff --output={O}/d.txt",
        "git diff --output {O}/d2.txt",
        "git log --output={O}/l.txt",
        "git show --output={O}/s.txt",
        "git log -p --output=git_out.txt",
        "git -C .. status",
        "git -C {O} log",
        "git --git-dir={O}/.git log",
        "git --work-tree=.. status",
        "git -c core.pager=sh log",
        "git -c core.fsmonitor=true status",
        "git -c diff.external=sh diff",
        "git --config-env=core.pager=PATH log",
        "git show --ext-diff HEAD",
        "git log -p --textconv",
        "git --exec-path={O} status",
        "git log --ext-diff -p",
        "git diff --ext-diff",
        "git diff --textconv",
        "git diff -- ../outside",
        "git branch",
        "git branch -a",
        "git branch --list",
        "git branch new-name",
        "git branch -D main",
        "git branch -m renamed",
        // find
        "find . -name '*.txt'",
        "find ..",
        "find {O}",
        "find -L . -name secret.txt",
        "find . -follow -name secret.txt",
        "find link_dir",
        "find link_dir/",
        "find ~",
        "find . -newer ../outside/secret.txt",
        "find del_zone -exec touch find_exec.txt \\;",
        "find del_zone -execdir touch find_execdir.txt \\;",
        "find del_zone -ok touch find_ok.txt \\;",
        "find del_zone -okdir touch find_okdir.txt \\;",
        "find del_zone -delete",
        "find . -fprint {O}/f.txt",
        "find . -fprint0 f0.txt",
        "find . -fls {O}/fls.txt",
        "find . -fprintf {O}/fp.txt %p",
        "find -files0-from {O}/list0",
        // programs' versions
        "node --version",
        "python3 --version",
        "npm --version",
        "cargo --version",
        "rustc --version",
        "node -e 1",
        "python3 -c 1",
        "node --version ../outside/secret.txt",
        // compound commands
        "cat notes.txt | grep NOTE",
        "ls && cat ../outside/secret.txt",
        "cat notes.txt; cat link_file.txt",
        "cat notes.txt || cat {O}/secret.txt",
        "ls | sort -o {O}/piped.txt",
        "git status && git branch x",
        "echo hi | tee tee_out.txt",
        "echo hi > redirected.txt",
        "cat < ../outside/secret.txt",
        "cat notes.txt > {O}/copied.txt",
    ]
}

/// acceptEdits: Write and Edit inside, outside, through links, in the additional directories, and
/// the file commands claude lets this mode run.
/// A file of its own for each edit: one edit's change must not fail another's.
const ACCEPT_EDITS_TARGETS: [&str; 9] = [
    "e_in.txt",
    "{W}/e_in2.txt",
    "../outside/e_out.txt",
    "{O}/e_out2.txt",
    "link_edit.txt",
    "link_dir/e_link2.txt",
    "{X1}/e_x1.txt",
    "{X2}/e_x2.txt",
    "{X3}/e_x3.txt",
];

/// The edits' targets read (and allowed), as claude edits only a file it has read.
fn accept_edits_prepare() -> Turn {
    Turn {
        mode: Some("acceptEdits"),
        calls: ACCEPT_EDITS_TARGETS.iter().map(|p| read(p)).collect(),
        answer: Answer::AllowAll,
        compared: false,
    }
}

fn accept_edits() -> Turn {
    let mut calls: Vec<Call> = ACCEPT_EDITS_TARGETS.iter().map(|p| edit(p)).collect();
    calls.extend(
        [
            "w1.txt",
            "sub/w2.txt",
            "{W}/w3.txt",
            "../outside/w4.txt",
            "{O}/w5.txt",
            "{W}/../outside/w6.txt",
            "sub/../../outside/w7.txt",
            "link_dir/w8.txt",
            "{W}/link_dir/w9.txt",
            "link_sub/w10.txt",
            "{X1}/w11.txt",
            "{X2}/w12.txt",
            "{X3}/w13.txt",
            "{X1}/link_dir/w14.txt",
            "~/w15.txt",
            "{H}/w16.txt",
            "~/.bashrc",
            ".claude/settings.json",
            ".claude/settings.local.json",
            ".git/hooks/pre-commit",
            ".env",
            "new_dir/w17.txt",
            "link_dir/new_dir/w18.txt",
            "/etc/claude-acp-differential.txt",
        ]
        .iter()
        .map(|p| write(p)),
    );
    calls.extend(
        [
            "touch t1.txt",
            "mkdir m1",
            "touch ../outside/t2.txt",
            "touch link_dir/t3.txt",
            "mkdir link_dir/m2",
            "mkdir {O}/m3",
            "rm del_zone/a",
            "mv del_zone/b del_zone/c",
            "cp notes.txt c1.txt",
            "cp ../outside/secret.txt c2.txt",
            "cp notes.txt ../outside/c3.txt",
            "sed -i s/alpha/beta/ sub/inner.txt",
            "cat ../outside/secret.txt",
            "ls ..",
            "touch {X1}/t4.txt",
            "mkdir -p ~/m4",
        ]
        .iter()
        .map(|c| bash(c)),
    );
    compared(calls)
}

/// `disallowedTools` naming a whole tool and a command, under a project that allows every
/// command and every write.
fn disallowed() -> Scenario {
    let mut calls = vec![
        read("notes.txt"),
        read("{W}/sub/inner.txt"),
        read("../outside/secret.txt"),
        write("w_project.txt"),
    ];
    calls.extend(
        [
            "cat .env",
            "cat notes.txt",
            "cat notes.txt | wc -l",
            "ls && cat notes.txt",
            "touch project_allowed.txt",
            "echo hi > project_redirect.txt",
            "rm -rf del_zone",
            "ls",
            "git status",
        ]
        .iter()
        .map(|c| bash(c)),
    );
    Scenario {
        name: "disallowed",
        meta: json!({"claudeCode": {"options": {
            "disallowedTools": ["Read", "Bash(cat:*)"],
        }}}),
        project_settings: Some(json!({"permissions": {"allow": ["Bash", "Write", "Read"]}})),
        local_settings: None,
        turns: vec![compared(calls)],
    }
}

/// `disallowedTools` naming Bash and the file-writing tools: none of them is served.
fn no_bash() -> Scenario {
    let mut calls = vec![read("notes.txt"), write("w_nobash.txt"), edit("e_in.txt")];
    calls.extend(
        ["ls", "pwd", "echo hi", "git status"]
            .iter()
            .map(|c| bash(c)),
    );
    Scenario {
        name: "no_bash",
        meta: json!({"claudeCode": {"options": {
            "disallowedTools": ["Bash", "Write", "Edit"],
        }}}),
        project_settings: None,
        local_settings: None,
        turns: vec![compared(calls)],
    }
}

/// The file the next mode's Edit changes, read first (and allowed).
fn mode_prepare(target: &str) -> Turn {
    Turn {
        mode: None,
        calls: vec![read(target)],
        answer: Answer::AllowAll,
        compared: false,
    }
}

/// A permission mode claude-acp must know: `dontAsk` refuses whatever would be asked, `plan` runs
/// nothing that writes. Every call that writes has a target named after the mode.
fn mode_calls(mode: &'static str) -> Turn {
    Turn {
        mode: Some(mode),
        ..calls_in_mode(mode)
    }
}

/// The calls of [`mode_calls`], in the mode the session is in.
fn calls_in_mode(mode: &'static str) -> Turn {
    let named = |text: &str| text.replace("MODE", mode);
    let mut calls = vec![
        read("notes.txt"),
        read("../outside/secret.txt"),
        read("link_file.txt"),
        write(&named("w_MODE.txt")),
        write(&named("../outside/w_MODE.txt")),
        edit(&named("e_MODE.txt")),
    ];
    calls.extend(
        [
            "ls",
            "cat notes.txt",
            "cat ../outside/secret.txt",
            "touch MODE_touched.txt",
            "git status",
            "sort -o MODE_sorted.txt notes.txt",
        ]
        .iter()
        .map(|c| bash(&named(c))),
    );
    compared(calls)
}

/// dontAsk, which a session takes only as it opens (`_meta`), not from `session/set_mode`.
fn dont_ask() -> Scenario {
    Scenario {
        name: "dont_ask",
        meta: json!({"claudeCode": {"options": {"permissionMode": "dontAsk"}}}),
        project_settings: None,
        local_settings: None,
        turns: vec![mode_prepare("e_dontAsk.txt"), calls_in_mode("dontAsk")],
    }
}
