//! The differential test's corpus: the scenarios (a session each, with its settings and `_meta`),
//! their turns and calls, and the files they run on. Paths are written with placeholders, filled
//! per side: `{W}` the session's cwd, `{O}` a folder outside it, `{O2}` another one (for the
//! session's "always" answers), `{X1}` `_meta.additionalRoots`, `{X2}`
//! `_meta.claudeCode.options.additionalDirectories`, `{X3}` the request's `additionalDirectories`,
//! `{H}` the home folder (`~`).

use std::path::PathBuf;

use serde_json::{Value, json};

use super::commands::read_only_commands;

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

/// acceptEdits: Write and Edit inside, outside, through links, in the additional directories, and
/// the file commands claude lets this mode run.
///
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
