//! The read-only commands claude runs without asking, for the Bash in the editor's terminal: claude
//! does not ask about `ls`, `cat a.txt | grep x` or `git status` inside the workspace, and asks
//! about anything that writes, reads outside it or runs a program of the project. What the pinned
//! claude asked and did not ask about was observed with the real CLI
//! (`fixtures/editor_terminal/README.md`); this list is a subset of what it allows, so a command
//! it leaves out is asked (fails closed).

/// Programs that only read, with any arguments (paths checked apart).
const READERS: &[&str] = &[
    "ls", "pwd", "cat", "head", "tail", "wc", "grep", "rg", "echo", "which", "date", "tree",
    "stat", "du", "sort", "cut", "diff", "file",
];

/// git subcommands that only read (with `--output` refused).
const GIT_READERS: &[&str] = &["status", "log", "diff", "show"];

/// `find` actions that write or run something.
const FIND_ACTIONS: &[&str] = &[
    "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
];

/// Whether claude would run `command` without asking, as far as this list knows; `may_read` says
/// whether a path argument may be read unasked.
pub fn is_read_only(command: &str, may_read: &dyn Fn(&str) -> bool) -> bool {
    // Redirection, substitution, variables, background jobs and line breaks: asked.
    if ["<", ">", "`", "$", "\n", "\\"]
        .iter()
        .any(|s| command.contains(s))
    {
        return false;
    }
    let Some(parts) = split_simple(command) else {
        return false;
    };
    !parts.is_empty() && parts.iter().all(|words| reads_only(words, may_read))
}

/// The simple commands of `a && b || c ; d | e`, each as its words; `None` when the quoting is
/// more than this reads (or a lone `&`).
fn split_simple(command: &str) -> Option<Vec<Vec<String>>> {
    let mut parts = vec![Vec::new()];
    let mut word: Option<String> = None;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                let text = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some(other) => text.push(other),
                        None => return None,
                    }
                }
            }
            ' ' | '\t' => {
                if let Some(w) = word.take() {
                    parts.last_mut()?.push(w);
                }
            }
            ';' | '|' | '&' => {
                if let Some(w) = word.take() {
                    parts.last_mut()?.push(w);
                }
                let doubled = (c == '|' || c == '&') && chars.next_if_eq(&c).is_some();
                if c == '&' && !doubled {
                    return None;
                }
                parts.push(Vec::new());
            }
            other => word.get_or_insert_with(String::new).push(other),
        }
    }
    if let Some(w) = word {
        parts.last_mut()?.push(w);
    }
    if parts.iter().any(Vec::is_empty) {
        return None;
    }
    Some(parts)
}

fn reads_only(words: &[String], may_read: &dyn Fn(&str) -> bool) -> bool {
    let (program, args) = match words.split_first() {
        Some((program, args)) => (program.as_str(), args),
        None => return false,
    };
    let paths_inside = || {
        args.iter()
            .filter(|a| !a.starts_with('-'))
            .all(|a| may_read(a))
    };
    match program {
        "git" => match args.split_first() {
            Some((sub, rest)) if GIT_READERS.contains(&sub.as_str()) => {
                !rest.iter().any(|a| a.starts_with("--output"))
            }
            // Listing branches only: any name or a changing flag is asked.
            Some((sub, rest)) if sub == "branch" => rest
                .iter()
                .all(|a| ["-a", "-r", "-v", "-vv", "--list", "--all"].contains(&a.as_str())),
            _ => false,
        },
        "find" => !args.iter().any(|a| FIND_ACTIONS.contains(&a.as_str())) && paths_inside(),
        "node" | "python3" | "python" | "npm" | "cargo" | "rustc" => {
            args.len() == 1 && args[0] == "--version"
        }
        // Some of echo's words may look like paths; it reads none of them.
        "echo" => true,
        program if READERS.contains(&program) => paths_inside(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Component, Path};

    /// The path check as text, for a workspace at `/run/work` (the editor's check resolves them).
    fn inside(arg: &str) -> bool {
        let cwd = Path::new("/run/work");
        let path = Path::new(arg);
        !arg.starts_with('~')
            && (!path.is_absolute() || path.starts_with(cwd))
            && !path.components().any(|c| c == Component::ParentDir)
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
            assert!(is_read_only(command, &inside), "{command}");
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
            assert!(!is_read_only(command, &inside), "{command}");
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
            assert!(!is_read_only(command, &inside), "{command}");
        }
        assert!(is_read_only("cat /run/work/a.txt", &inside));
    }
}
