//! The read-only list against what the pinned claude runs unasked and asks about.
use super::*;
use std::path::{Component, Path};

/// The path check as text, for a workspace at `/run/work` whose `.env` a Read rule denies
/// (the editor's check resolves paths and reads the rules in force).
fn check(arg: &str) -> PathCheck {
    let cwd = Path::new("/run/work");
    let path = Path::new(arg);
    if path.file_name().is_some_and(|n| n == ".env") {
        return PathCheck::Deny;
    }
    let inside = !arg.starts_with('~')
        && (!path.is_absolute() || path.starts_with(cwd))
        && !path.components().any(|c| c == Component::ParentDir);
    if inside {
        PathCheck::Inside
    } else {
        PathCheck::Ask
    }
}

fn is_read_only(command: &str) -> bool {
    judge(command, &check) == Verdict::ReadOnly
}

/// What the pinned claude did not ask about and did, in a git repository with `a.txt` and `sub/`.
#[test]
fn allows_what_claude_allows_and_asks_what_it_asks() {
    let not_asked = [
        "ls",
        "ls -la sub",
        "pwd",
        "cat a.txt",
        "head -n 3 a.txt",
        "wc -l a.txt",
        "grep hi a.txt",
        "echo hello",
        "git status",
        "git log --oneline",
        "git diff",
        "find . -name '*.txt'",
        "rg hi",
        "which ls",
        "date",
        "cat a.txt | grep hi",
        "ls && pwd",
        "git branch",
        "git show HEAD",
        "tree",
        "stat a.txt",
        "du -sh .",
        "sort a.txt",
        "cut -c1 a.txt",
        "diff a.txt a.txt",
        "file a.txt",
        "node --version",
        "python3 --version",
    ];
    for command in not_asked {
        assert!(is_read_only(command), "{command}");
    }
    let asked = [
        "cat /etc/hostname",
        "ls /",
        "touch b.txt",
        "mkdir c",
        "rm a.txt",
        "echo hi > x.txt",
        "npm test",
        "uniq a.txt",
        "env",
        "printenv HOME",
        "ls ..",
        "cat ../x",
        "git diff --output=/tmp/x",
    ];
    for command in asked {
        assert!(!is_read_only(command), "{command}");
    }
}

#[test]
fn anything_unusual_is_asked() {
    for command in [
        "cat $(which x)",
        "echo `id`",
        "cat ~/.ssh/id_rsa",
        "find . -delete",
        "git branch new-name",
        "ls & rm -rf /",
        "cat 'unclosed",
        "ls ||",
        "cat /run/work/../etc/passwd",
        "echo $SECRET",
    ] {
        assert!(!is_read_only(command), "{command}");
    }
    assert!(is_read_only("cat /run/work/a.txt"));
}

/// Each command's options as claude's lists have them: an option that runs a program, writes,
/// sets something or reads a file it names is asked (or its file checked), anything unknown
/// is asked.
#[test]
fn options_are_known_and_their_files_checked() {
    let not_asked = [
        "sort -n -k2 -t, a.txt",
        "sort -rn --buffer-size=16K a.txt",
        "head -5 a.txt",
        "head -n5 a.txt",
        "tail -n 3 a.txt",
        "grep -rn --include='*.rs' TODO sub",
        "grep -e ../x a.txt",
        "grep -f sub/patterns a.txt",
        "grep --file=sub/patterns a.txt",
        "rg -i -g '*.md' hi",
        "date +%s",
        "date -u",
        "date -d yesterday",
        "ls -la --color=auto sub",
        "git log -5 --oneline",
        "git log --format=%H -- sub",
        "git diff --stat HEAD~1",
        "git status --short",
        "git branch -a",
        "wc -l a.txt sub/b.txt",
        "cut -d: -f1 a.txt",
        "diff -u a.txt sub/a.txt",
        "file -b a.txt",
    ];
    for command in not_asked {
        assert_eq!(judge(command, &check), Verdict::ReadOnly, "{command}");
    }
    let asked = [
        "sort --compress-program=sh --buffer-size=16K a.txt",
        "sort --compress-program sh a.txt",
        "sort -o/tmp/out a.txt",
        "sort -o out.txt a.txt",
        "sort --output=/tmp/out a.txt",
        "sort --files0-from=/tmp/list",
        "sort -T /tmp a.txt",
        "sort --random-source=/tmp/x -R a.txt",
        "date -s 2001-01-01",
        "date --set=2001-01-01",
        "date --file=/tmp/dates",
        "date -f /tmp/dates",
        "date -r /tmp/x",
        "date 0101",
        "grep -f/tmp/patterns a.txt",
        "grep --file=/tmp/patterns a.txt",
        "grep --exclude-from=/tmp/x hi a.txt",
        "grep -R hi .",
        "rg --pre=sh hi",
        "rg --pre sh hi",
        "rg -z hi",
        "rg --follow hi",
        "tree -o out.txt",
        "file -C -m magic a.txt",
        "file --files-from=/tmp/list",
        "git diff --no-index /tmp/secret a.txt",
        "git diff --no-index ../outside/secret.txt a.txt",
        "git log --ext-diff -p",
        "git diff --ext-diff",
        "git diff --textconv",
        "git diff -- ../outside",
        "git diff --output=x",
        "git -c core.pager=sh log",
        "git -C /tmp status",
        "pwd -P",
        "ls -l /tmp",
        "du -L .",
        "find -L .",
        "find . -follow",
        "npm --version",
        "cargo --version",
        "rustc --version",
        "head -n",
        "cat --unknown a.txt",
    ];
    for command in asked {
        assert_eq!(judge(command, &check), Verdict::Ask, "{command}");
    }
    for command in [
        "cat .env",
        "head -1 .env",
        "grep SECRET .env",
        "ls && cat sub/.env",
    ] {
        assert_eq!(judge(command, &check), Verdict::Deny, "{command}");
    }
    assert_eq!(
        judge("grep .env a.txt", &check),
        Verdict::ReadOnly,
        "a pattern"
    );
    assert_eq!(
        path_words("nl --file=../x -v a.txt && touch b").unwrap(),
        ["../x", "a.txt", "b"]
    );
}
