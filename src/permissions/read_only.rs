//! The read-only commands claude runs without asking, for the Bash in the editor's terminal: claude
//! does not ask about `ls`, `cat a.txt | grep x` or `git status` inside the workspace, and asks
//! about anything that writes, reads outside it or runs a program of the project. What the pinned
//! claude asked and did not ask about was observed with the real CLI
//! (`fixtures/editor_terminal/README.md`); this list is a subset of what it allows, so a command
//! it leaves out is asked (fails closed).
//!
//! Each command knows its options, as claude's own read-only validation keeps a list of safe
//! options per command: an option outside the list is asked (`sort --compress-program=sh`,
//! `sort -o FILE`, `date -s`, `git diff --ext-diff`), and an option's value that names a file
//! (`grep -f FILE`, `--file=FILE`, `-fFILE`) is checked as a path, like every path argument
//! ([`PathCheck`]: inside the workspace once resolved, and kept by no Read rule).

/// What a path argument is to the rules: readable unasked, to be asked about, or refused by a
/// Read deny rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathCheck {
    Inside,
    Ask,
    Deny,
}

/// What claude does with a command, as far as this list knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Runs it unasked.
    ReadOnly,
    Ask,
    /// Refuses it: it reads a file a Read deny rule keeps.
    Deny,
}

/// What an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    Nothing,
    /// A value that names no file (a pattern, a format, a number).
    Text,
    /// A file or directory, checked as a path.
    Path,
}

use Takes::{Nothing as N, Path as P, Text as T};

/// What a command's other arguments are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Args {
    /// Files or directories.
    Paths,
    /// A pattern first (unless an option gave one), then files.
    PatternThenPaths,
    /// Words it prints (echo).
    Words,
    /// None at all.
    Nothing,
    /// `+FORMAT` only (date).
    Format,
}

struct Command {
    name: &'static str,
    options: &'static [(&'static str, Takes)],
    args: Args,
    /// `-5` for `-n 5` (head, tail, git log).
    numeric: bool,
}

#[rustfmt::skip]
const LS: &[(&str, Takes)] = &[
    ("-a", N), ("-A", N), ("-l", N), ("-h", N), ("-R", N), ("-t", N), ("-r", N), ("-S", N),
    ("-1", N), ("-d", N), ("-F", N), ("-i", N), ("-s", N), ("-n", N), ("-o", N), ("-g", N),
    ("-p", N), ("-x", N), ("-C", N), ("-m", N), ("-U", N), ("-X", N), ("-v", N), ("-c", N),
    ("-u", N), ("-k", N), ("-G", N), ("--all", N), ("--almost-all", N), ("--human-readable", N),
    ("--recursive", N), ("--reverse", N), ("--color", T), ("--group-directories-first", N),
    ("--full-time", N), ("--time-style", T), ("--sort", T), ("--classify", N), ("--inode", N),
    ("--size", N), ("--directory", N),
];
#[rustfmt::skip]
const CAT: &[(&str, Takes)] = &[
    ("-n", N), ("-b", N), ("-s", N), ("-A", N), ("-E", N), ("-T", N), ("-v", N), ("-e", N),
    ("-t", N), ("-u", N), ("--number", N), ("--number-nonblank", N), ("--squeeze-blank", N),
    ("--show-all", N), ("--show-ends", N), ("--show-tabs", N), ("--show-nonprinting", N),
];
#[rustfmt::skip]
const HEAD_TAIL: &[(&str, Takes)] = &[
    ("-n", T), ("-c", T), ("-q", N), ("-v", N), ("-z", N), ("--lines", T), ("--bytes", T),
    ("--quiet", N), ("--silent", N), ("--verbose", N), ("--zero-terminated", N),
];
#[rustfmt::skip]
const WC: &[(&str, Takes)] = &[
    ("-l", N), ("-w", N), ("-c", N), ("-m", N), ("-L", N), ("--lines", N), ("--words", N),
    ("--bytes", N), ("--chars", N), ("--max-line-length", N),
];
/// grep: `-R` (following every symlink) and `--exclude-from` of a file are left out.
#[rustfmt::skip]
const GREP: &[(&str, Takes)] = &[
    ("-i", N), ("-v", N), ("-n", N), ("-c", N), ("-l", N), ("-L", N), ("-w", N), ("-x", N),
    ("-o", N), ("-q", N), ("-s", N), ("-r", N), ("-h", N), ("-H", N), ("-E", N), ("-F", N),
    ("-G", N), ("-P", N), ("-a", N), ("-I", N), ("-z", N), ("-Z", N), ("-b", N), ("-T", N),
    ("-e", T), ("-f", P), ("-m", T), ("-A", T), ("-B", T), ("-C", T), ("--regexp", T),
    ("--file", P), ("--ignore-case", N), ("--invert-match", N), ("--line-number", N),
    ("--count", N), ("--files-with-matches", N), ("--files-without-match", N),
    ("--word-regexp", N), ("--line-regexp", N), ("--only-matching", N), ("--quiet", N),
    ("--silent", N), ("--no-messages", N), ("--recursive", N), ("--no-filename", N),
    ("--with-filename", N), ("--extended-regexp", N), ("--fixed-strings", N),
    ("--basic-regexp", N), ("--perl-regexp", N), ("--text", N), ("--max-count", T),
    ("--after-context", T), ("--before-context", T), ("--context", T), ("--include", T),
    ("--exclude", T), ("--exclude-dir", T), ("--color", T), ("--colour", T), ("--binary-files", T),
    ("--null", N), ("--byte-offset", N),
];
/// rg, as claude's list has it, without `--follow` (symlinks out of the workspace).
#[rustfmt::skip]
const RG: &[(&str, Takes)] = &[
    ("-e", T), ("--regexp", T), ("-f", P), ("-i", N), ("--ignore-case", N), ("-S", N),
    ("--smart-case", N), ("-F", N), ("--fixed-strings", N), ("-w", N), ("--word-regexp", N),
    ("-v", N), ("--invert-match", N), ("-c", N), ("--count", N), ("-l", N),
    ("--files-with-matches", N), ("--files-without-match", N), ("-n", N), ("--line-number", N),
    ("-o", N), ("--only-matching", N), ("-A", T), ("--after-context", T), ("-B", T),
    ("--before-context", T), ("-C", T), ("--context", T), ("-H", N), ("-h", N), ("--heading", N),
    ("--no-heading", N), ("-q", N), ("--quiet", N), ("--column", N), ("-g", T), ("--glob", T),
    ("-t", T), ("--type", T), ("-T", T), ("--type-not", T), ("--type-list", N), ("--hidden", N),
    ("--no-ignore", N), ("-u", N), ("-m", T), ("--max-count", T), ("-d", T), ("--max-depth", T),
    ("-a", N), ("--text", N), ("--color", T), ("--json", N), ("--stats", N), ("--files", N),
];
const WHICH: &[(&str, Takes)] = &[("-a", N), ("--all", N), ("-s", N)];
/// date: reading the time only (`-s`, `--set` and `--file` are not here).
#[rustfmt::skip]
const DATE: &[(&str, Takes)] = &[
    ("-d", T), ("--date", T), ("-r", P), ("--reference", P), ("-u", N), ("--utc", N),
    ("--universal", N), ("-I", T), ("--iso-8601", T), ("-R", N), ("--rfc-email", N),
    ("--rfc-3339", T),
];
/// tree, without `-o` (writes a file), `-l` and `--fromfile`.
#[rustfmt::skip]
const TREE: &[(&str, Takes)] = &[
    ("-a", N), ("-d", N), ("-f", N), ("-x", N), ("-L", T), ("-P", T), ("-I", T),
    ("--gitignore", N), ("--ignore-case", N), ("--noreport", N), ("-q", N), ("-N", N), ("-Q", N),
    ("-p", N), ("-u", N), ("-g", N), ("-s", N), ("-h", N), ("--du", N), ("-D", N), ("-F", N),
    ("-v", N), ("-t", N), ("-c", N), ("-U", N), ("-r", N), ("--dirsfirst", N), ("-i", N),
    ("-A", N), ("-S", N), ("-n", N), ("-C", N), ("-J", N), ("--sort", T), ("--charset", T),
];
#[rustfmt::skip]
const STAT: &[(&str, Takes)] = &[
    ("-L", N), ("--dereference", N), ("-c", T), ("--format", T), ("--printf", T), ("-t", N),
    ("--terse", N), ("-f", N), ("--file-system", N),
];
/// du, without `-L` (following symlinks) and `-X` of a file.
#[rustfmt::skip]
const DU: &[(&str, Takes)] = &[
    ("-s", N), ("-h", N), ("-a", N), ("-c", N), ("-k", N), ("-m", N), ("-b", N), ("-d", T),
    ("-x", N), ("--max-depth", T), ("--summarize", N), ("--human-readable", N), ("--all", N),
    ("--total", N), ("--apparent-size", N), ("--bytes", N), ("--one-file-system", N),
];
/// sort, as claude's list has it: no `-o`/`--output`, `-T`, `--compress-program`,
/// `--files0-from` or `--random-source`.
#[rustfmt::skip]
const SORT: &[(&str, Takes)] = &[
    ("--ignore-leading-blanks", N), ("-b", N), ("--dictionary-order", N), ("-d", N),
    ("--ignore-case", N), ("-f", N), ("--general-numeric-sort", N), ("-g", N),
    ("--human-numeric-sort", N), ("-h", N), ("--ignore-nonprinting", N), ("-i", N),
    ("--month-sort", N), ("-M", N), ("--numeric-sort", N), ("-n", N), ("--random-sort", N),
    ("-R", N), ("--reverse", N), ("-r", N), ("--sort", T), ("--stable", N), ("-s", N),
    ("--unique", N), ("-u", N), ("--version-sort", N), ("-V", N), ("--zero-terminated", N),
    ("-z", N), ("--key", T), ("-k", T), ("--field-separator", T), ("-t", T), ("--check", N),
    ("-c", N), ("-C", N), ("--merge", N), ("-m", N), ("--buffer-size", T), ("-S", T),
    ("--parallel", T), ("--batch-size", T),
];
#[rustfmt::skip]
const CUT: &[(&str, Takes)] = &[
    ("-b", T), ("-c", T), ("-f", T), ("-d", T), ("-s", N), ("-z", N), ("--bytes", T),
    ("--characters", T), ("--fields", T), ("--delimiter", T), ("--complement", N),
    ("--only-delimited", N), ("--output-delimiter", T), ("--zero-terminated", N),
];
/// diff of two files, without `-r` (following links in folders) or files named by options.
#[rustfmt::skip]
const DIFF: &[(&str, Takes)] = &[
    ("-u", N), ("-U", T), ("-c", N), ("-C", T), ("-q", N), ("-i", N), ("-w", N), ("-b", N),
    ("-B", N), ("-y", N), ("-a", N), ("-s", N), ("-t", N), ("--brief", N), ("--unified", T),
    ("--ignore-case", N), ("--ignore-all-space", N), ("--ignore-space-change", N),
    ("--ignore-blank-lines", N), ("--side-by-side", N), ("--normal", N), ("--text", N),
    ("--report-identical-files", N), ("--color", T), ("--width", T), ("-W", T),
];
/// file, as claude's list has it: no `-C`, `-m` (a magic file) or `-f` (a list of files).
#[rustfmt::skip]
const FILE: &[(&str, Takes)] = &[
    ("--brief", N), ("-b", N), ("--mime", N), ("-i", N), ("--mime-type", N),
    ("--mime-encoding", N), ("-c", N), ("--print0", N), ("-0", N), ("-F", T), ("--separator", T),
    ("--no-dereference", N), ("-h", N), ("--dereference", N), ("-L", N), ("--keep-going", N),
    ("-k", N), ("-n", N), ("-p", N), ("-r", N), ("-s", N), ("-z", N),
];
const VERSION: &[(&str, Takes)] = &[("--version", N)];

#[rustfmt::skip]
const COMMANDS: &[Command] = &[
    Command { name: "ls", options: LS, args: Args::Paths, numeric: false },
    Command { name: "pwd", options: &[], args: Args::Nothing, numeric: false },
    Command { name: "cat", options: CAT, args: Args::Paths, numeric: false },
    Command { name: "head", options: HEAD_TAIL, args: Args::Paths, numeric: true },
    Command { name: "tail", options: HEAD_TAIL, args: Args::Paths, numeric: true },
    Command { name: "wc", options: WC, args: Args::Paths, numeric: false },
    Command { name: "grep", options: GREP, args: Args::PatternThenPaths, numeric: false },
    Command { name: "rg", options: RG, args: Args::PatternThenPaths, numeric: false },
    Command { name: "echo", options: &[("-n", N), ("-e", N), ("-E", N)], args: Args::Words, numeric: false },
    Command { name: "which", options: WHICH, args: Args::Words, numeric: false },
    Command { name: "date", options: DATE, args: Args::Format, numeric: false },
    Command { name: "tree", options: TREE, args: Args::Paths, numeric: false },
    Command { name: "stat", options: STAT, args: Args::Paths, numeric: false },
    Command { name: "du", options: DU, args: Args::Paths, numeric: false },
    Command { name: "sort", options: SORT, args: Args::Paths, numeric: false },
    Command { name: "cut", options: CUT, args: Args::Paths, numeric: false },
    Command { name: "diff", options: DIFF, args: Args::Paths, numeric: false },
    Command { name: "file", options: FILE, args: Args::Paths, numeric: false },
    Command { name: "node", options: VERSION, args: Args::Nothing, numeric: false },
    Command { name: "python3", options: VERSION, args: Args::Nothing, numeric: false },
    Command { name: "python", options: VERSION, args: Args::Nothing, numeric: false },
];

/// git's log, diff and show options that only shape what is shown (claude's lists, without
/// `--output`, `--ext-diff`, `--textconv` and `--no-index`, which run or read something else).
#[rustfmt::skip]
const GIT_SHOW: &[(&str, Takes)] = &[
    ("--oneline", N), ("--stat", N), ("--shortstat", N), ("--numstat", N), ("--name-only", N),
    ("--name-status", N), ("--graph", N), ("--decorate", N), ("--no-decorate", N), ("-n", T),
    ("--max-count", T), ("-p", N), ("-u", N), ("--patch", N), ("--no-patch", N), ("-s", N),
    ("--format", T), ("--pretty", T), ("--author", T), ("--committer", T), ("--since", T),
    ("--after", T), ("--until", T), ("--before", T), ("--grep", T), ("--all", N),
    ("--branches", N), ("--tags", N), ("--cached", N), ("--staged", N), ("--no-color", N),
    ("--color", T), ("--abbrev-commit", N), ("--abbrev", T), ("-U", T), ("--unified", T),
    ("--word-diff", T), ("--color-words", N), ("--reverse", N), ("--first-parent", N),
    ("--no-merges", N), ("--merges", N), ("--follow", N), ("-M", N), ("-C", N), ("-B", N),
    ("--summary", N), ("--raw", N), ("--quiet", N), ("--exit-code", N), ("--check", N),
    ("--diff-filter", T), ("-S", T), ("-G", T), ("--pickaxe-regex", N), ("--no-ext-diff", N),
    ("--no-textconv", N), ("--ignore-all-space", N), ("-w", N), ("--ignore-space-change", N),
    ("-b", N), ("--histogram", N), ("--patience", N), ("--minimal", N), ("--full-index", N),
    ("--date", T), ("--relative-date", N), ("--skip", T), ("--no-renames", N), ("-R", N),
    ("--dirstat", N), ("--left-right", N), ("--cherry-pick", N), ("--topo-order", N),
    ("--date-order", N), ("-m", N), ("--source", N), ("--full-history", N), ("--no-walk", N),
];
#[rustfmt::skip]
const GIT_STATUS: &[(&str, Takes)] = &[
    ("--short", N), ("-s", N), ("--branch", N), ("-b", N), ("--porcelain", T), ("--long", N),
    ("--verbose", N), ("-v", N), ("--untracked-files", T), ("-u", T), ("--ignored", N),
    ("--column", N), ("--no-column", N), ("--ahead-behind", N), ("--no-ahead-behind", N),
    ("--renames", N), ("--no-renames", N),
];
/// Listing branches only: any name or a changing option is asked.
#[rustfmt::skip]
const GIT_BRANCH: &[(&str, Takes)] = &[
    ("-l", N), ("--list", N), ("-a", N), ("--all", N), ("-r", N), ("--remotes", N), ("-v", N),
    ("-vv", N), ("--verbose", N), ("--no-color", N), ("--show-current", N),
];

/// `find` actions that write or run something, and options that follow symlinks out.
const FIND_ACTIONS: &[&str] = &[
    "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
    "-L", "-H", "-follow",
];

/// What claude does with `command`, as far as this list knows; `check` says what a path argument
/// is to the rules.
pub fn judge(command: &str, check: &dyn Fn(&str) -> PathCheck) -> Verdict {
    // Redirection, substitution, variables, background jobs and line breaks: asked.
    if ["<", ">", "`", "$", "\n", "\\"]
        .iter()
        .any(|s| command.contains(s))
    {
        return Verdict::Ask;
    }
    let Some(parts) = split_simple(command) else {
        return Verdict::Ask;
    };
    let mut verdict = Verdict::ReadOnly;
    for words in &parts {
        match reads_only(words, check) {
            Verdict::Deny => return Verdict::Deny,
            Verdict::Ask => verdict = Verdict::Ask,
            Verdict::ReadOnly => {}
        }
    }
    if parts.is_empty() {
        return Verdict::Ask;
    }
    verdict
}

/// The words of `command` that may name files (every argument but the program, and the values of
/// `--opt=VALUE`), for the path check of a command an allow rule approves; `None` when the
/// command is more than this reads.
pub fn path_words(command: &str) -> Option<Vec<String>> {
    let parts = split_simple(command)?;
    let mut words = Vec::new();
    for part in parts {
        for word in part.into_iter().skip(1) {
            match word.split_once('=') {
                Some((name, value)) if name.starts_with('-') => words.push(value.to_owned()),
                _ if word.starts_with('-') => {}
                _ => words.push(word),
            }
        }
    }
    Some(words)
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

fn reads_only(words: &[String], check: &dyn Fn(&str) -> PathCheck) -> Verdict {
    let Some((program, args)) = words.split_first() else {
        return Verdict::Ask;
    };
    if program == "git" {
        return git(args, check);
    }
    if program == "find" {
        if args.iter().any(|a| FIND_ACTIONS.contains(&a.as_str())) {
            return Verdict::Ask;
        }
        // Its starting points: the words before the first expression.
        let starts = args
            .iter()
            .take_while(|a| !a.starts_with('-') && *a != "(" && *a != "!");
        return paths(starts.map(String::as_str), check);
    }
    match COMMANDS.iter().find(|c| c.name == program) {
        Some(command) => with_options(command.options, command.args, command.numeric, args, check),
        None => Verdict::Ask,
    }
}

fn git(args: &[String], check: &dyn Fn(&str) -> PathCheck) -> Verdict {
    // A global option before the subcommand (`-c`, `-C`, `--git-dir`, ...) is asked.
    let Some((sub, rest)) = args.split_first() else {
        return Verdict::Ask;
    };
    match sub.as_str() {
        "log" | "show" => with_options(GIT_SHOW, Args::Paths, true, rest, check),
        "diff" => with_options(GIT_SHOW, Args::Paths, false, rest, check),
        "status" => with_options(GIT_STATUS, Args::Paths, false, rest, check),
        "branch" => with_options(GIT_BRANCH, Args::Nothing, false, rest, check),
        _ => Verdict::Ask,
    }
}

/// One command's arguments against its options: an unknown option is asked, an option's value
/// that names a file and every path argument are checked.
fn with_options(
    options: &[(&str, Takes)],
    kind: Args,
    numeric: bool,
    args: &[String],
    check: &dyn Fn(&str) -> PathCheck,
) -> Verdict {
    let takes = |name: &str| options.iter().find(|(o, _)| *o == name).map(|(_, t)| *t);
    let mut files: Vec<&str> = Vec::new();
    let mut positional: Vec<&str> = Vec::new();
    let mut pattern_given = false;
    let mut only_args = false;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if only_args || arg == "-" || !arg.starts_with('-') {
            positional.push(arg);
            continue;
        }
        if arg == "--" {
            only_args = true;
            continue;
        }
        if numeric && arg[1..].chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (format!("--{name}"), Some(value)),
                None => (arg.to_owned(), None),
            };
            match (takes(&name), value) {
                (None, _) => return Verdict::Ask,
                (Some(Takes::Nothing), Some(_)) => return Verdict::Ask,
                (Some(Takes::Nothing), None) => {}
                (Some(t), value) => {
                    let value = match value {
                        Some(v) => v,
                        None if i < args.len() => {
                            i += 1;
                            args[i - 1].as_str()
                        }
                        None => return Verdict::Ask,
                    };
                    pattern_given |= matches!(name.as_str(), "--regexp" | "--file");
                    if t == Takes::Path {
                        files.push(value);
                    }
                }
            }
            continue;
        }
        // Short options, maybe clustered (`-la`), the last maybe with its value (`-n3`, `-fFILE`).
        if let Some(t) = takes(arg) {
            // A whole word that is an option itself (`-vv`, `-n`).
            match t {
                Takes::Nothing => {}
                t => {
                    if i >= args.len() {
                        return Verdict::Ask;
                    }
                    i += 1;
                    pattern_given |= arg == "-e" || arg == "-f";
                    if t == Takes::Path {
                        files.push(args[i - 1].as_str());
                    }
                }
            }
            continue;
        }
        let letters: Vec<(usize, char)> = arg.char_indices().skip(1).collect();
        for (at, letter) in letters {
            match takes(&format!("-{letter}")) {
                None => return Verdict::Ask,
                Some(Takes::Nothing) => continue,
                Some(t) => {
                    let rest = &arg[at + letter.len_utf8()..];
                    let value = if !rest.is_empty() {
                        rest
                    } else if i < args.len() {
                        i += 1;
                        args[i - 1].as_str()
                    } else {
                        return Verdict::Ask;
                    };
                    pattern_given |= letter == 'e' || letter == 'f';
                    if t == Takes::Path {
                        files.push(value);
                    }
                    break;
                }
            }
        }
    }
    match kind {
        Args::Words => return paths(files.into_iter(), check),
        Args::Nothing if !positional.is_empty() => return Verdict::Ask,
        Args::Format if positional.iter().any(|a| !a.starts_with('+')) => return Verdict::Ask,
        Args::Nothing | Args::Format => {}
        Args::PatternThenPaths if !pattern_given && !positional.is_empty() => {
            files.extend(positional.into_iter().skip(1))
        }
        Args::Paths | Args::PatternThenPaths => files.extend(positional),
    }
    paths(files.into_iter(), check)
}

/// The strictest of the paths' checks.
fn paths<'a>(paths: impl Iterator<Item = &'a str>, check: &dyn Fn(&str) -> PathCheck) -> Verdict {
    let mut verdict = Verdict::ReadOnly;
    for path in paths {
        match check(path) {
            PathCheck::Deny => return Verdict::Deny,
            PathCheck::Ask => verdict = Verdict::Ask,
            PathCheck::Inside => {}
        }
    }
    verdict
}

#[cfg(test)]
mod tests;
