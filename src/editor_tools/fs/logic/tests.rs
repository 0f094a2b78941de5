//! Each expected text is the pinned claude's own answer to the same call, from
//! `fixtures/editor_fs/tool_results.jsonl` (paths there are under `/run/work`).

use std::path::Path;

use super::*;

const CWD: &str = "/run/work";

fn range(offset: Option<usize>, limit: Option<usize>) -> Range {
    Range {
        offset,
        limit,
        allow_large: false,
    }
}

#[test]
fn read_numbers_lines_as_claude_does() {
    let cases: &[(&str, Range, &str)] = &[
        (
            "uno\ntwo\ntwo\nthree\n",
            range(None, None),
            "1\tuno\n2\ttwo\n3\ttwo\n4\tthree\n5\t",
        ),
        (
            "uno\ntwo\ntwo\nthree\n",
            range(Some(2), Some(2)),
            "2\ttwo\n3\ttwo",
        ),
        ("overwritten\n", range(Some(0), Some(1)), "0\toverwritten"),
        (
            "alpha\r\nbeta\r\n",
            range(None, None),
            "1\talpha\n2\tbeta\n3\t",
        ),
        (
            "\tindented\n  spaces\nnoeol",
            range(None, None),
            "1\t\tindented\n2\t  spaces\n3\tnoeol",
        ),
        (
            "uno\ntwo\ntwo\nthree\n",
            range(Some(10), None),
            "<system-reminder>Warning: the file exists but is shorter than the provided offset (10). The file has 5 lines.</system-reminder>",
        ),
        (
            "",
            range(None, None),
            "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>",
        ),
    ];
    for (content, range, want) in cases {
        assert_eq!(
            numbered(content, *range),
            Answer::ok((*want).into()),
            "{content:?} {range:?}"
        );
    }
}

#[test]
fn read_refuses_a_whole_file_over_256_kb_unless_asked() {
    let huge = "y".repeat(1_188_000);
    let answer = numbered(&huge, range(None, None));
    assert!(answer.is_error);
    assert!(answer.text.starts_with(
        "File content (1.1MB) exceeds maximum allowed size (256KB). Use offset and limit parameters"
    ));
    assert!(!numbered(&huge, range(Some(1), Some(2))).is_error);
    let large = Range {
        allow_large: true,
        ..range(None, None)
    };
    assert!(!numbered(&huge, large).is_error);
}

#[test]
fn edits_give_claudes_results_and_errors() {
    let path = Path::new("/run/work/a.txt");
    let cwd = Path::new(CWD);
    let file = "uno\ntwo\ntwo\nthree\n";
    let whole = Seen::Whole(file.into());
    let part = Seen::Part(file.into());
    let stale = Seen::Whole("before\n".into());
    let change = |old, new, replace_all| Change {
        old,
        new,
        replace_all,
    };
    type Case<'a> = (
        Option<&'a str>,
        Option<&'a Seen>,
        Change<'a>,
        Result<&'a str, &'a str>,
    );
    let cases: Vec<Case> = vec![
        (
            Some(file),
            None,
            change("uno", "one", false),
            Ok("The file /run/work/a.txt has been updated successfully."),
        ),
        (
            Some(file),
            Some(&whole),
            change("uno", "one", false),
            Ok(
                "The file /run/work/a.txt has been updated successfully. (file state is current in your context \u{2014} no need to Read it back)",
            ),
        ),
        (
            Some(file),
            Some(&part),
            change("two", "deux", true),
            Ok(
                "The file /run/work/a.txt has been updated. All occurrences were successfully replaced.",
            ),
        ),
        (
            Some(file),
            Some(&stale),
            change("uno", "eins", false),
            Ok(
                "The file /run/work/a.txt has been updated successfully. (note: the file had been modified on disk since you last read it \u{2014} the edit applied cleanly, but the file contains other changes not in your context. Read it before edits that depend on surrounding content.)",
            ),
        ),
        (
            Some(file),
            Some(&whole),
            change("nope", "x", false),
            Err(
                "<tool_use_error>String to replace not found in file.\nString: nope</tool_use_error>",
            ),
        ),
        (
            Some(file),
            Some(&whole),
            change("two", "deux", false),
            Err(
                "<tool_use_error>Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: two</tool_use_error>",
            ),
        ),
        (
            Some(file),
            Some(&whole),
            change("uno", "uno", false),
            Err(
                "<tool_use_error>No changes to make: old_string and new_string are exactly the same.</tool_use_error>",
            ),
        ),
        (
            Some(file),
            Some(&whole),
            change("", "x", false),
            Err("<tool_use_error>Cannot create new file - file already exists.</tool_use_error>"),
        ),
        (
            None,
            None,
            change("a", "b", false),
            Err(
                "<tool_use_error>File does not exist. Note: your current working directory is /run/work.</tool_use_error>",
            ),
        ),
        (
            None,
            None,
            change("", "made\n", false),
            Ok(
                "The file /run/work/a.txt has been updated successfully. (file state is current in your context \u{2014} no need to Read it back)",
            ),
        ),
    ];
    for (current, seen, change, want) in cases {
        let got = edit(path, cwd, current, seen, &change);
        match (got, want) {
            (Ok((_, answer)), Ok(want)) => {
                assert_eq!(answer, Answer::ok(want.into()), "{change:?}")
            }
            (Err(answer), Err(want)) => {
                assert_eq!(answer, Answer::error(want.into()), "{change:?}")
            }
            (got, want) => panic!("{change:?}: got {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn edits_make_the_new_text() {
    let path = Path::new("/run/work/a.txt");
    let cwd = Path::new(CWD);
    let file = "uno\ntwo\ntwo\nthree\n";
    let new = |old, new, replace_all| {
        edit(
            path,
            cwd,
            Some(file),
            None,
            &Change {
                old,
                new,
                replace_all,
            },
        )
        .unwrap()
        .0
    };
    assert_eq!(new("uno", "one", false), "one\ntwo\ntwo\nthree\n");
    assert_eq!(new("two", "deux", true), "uno\ndeux\ndeux\nthree\n");
    assert_eq!(new("two\ntwo", "2", false), "uno\n2\nthree\n");
    let filled = edit(
        path,
        cwd,
        Some(""),
        None,
        &Change {
            old: "",
            new: "filled\n",
            replace_all: false,
        },
    );
    assert_eq!(filled.unwrap().0, "filled\n");
}

#[test]
fn writes_refuse_a_file_changed_since_it_was_read() {
    let path = Path::new("/run/work/g.txt");
    let seen = Seen::Whole("g.txt line one\nline two\n".into());
    assert_eq!(
        write(path, Some("g.txt line one\nline two\nextra\n"), Some(&seen)),
        Err(Answer::error("<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>".into()))
    );
    let cases: &[(Option<&str>, Option<&Seen>, &str)] = &[
        (
            Some("w.txt line one\nline two\n"),
            None,
            "The file /run/work/g.txt has been updated successfully. (file state is current in your context \u{2014} no need to Read it back)",
        ),
        (
            Some("g.txt line one\nline two\n"),
            Some(&seen),
            "The file /run/work/g.txt has been updated successfully. (file state is current in your context \u{2014} no need to Read it back)",
        ),
        (
            None,
            None,
            "File created successfully at: /run/work/g.txt (file state is current in your context \u{2014} no need to Read it back)",
        ),
    ];
    for (current, seen, want) in cases {
        assert_eq!(write(path, *current, *seen), Ok(Answer::ok((*want).into())));
    }
}

#[test]
fn claudes_other_texts() {
    let cases: &[(String, &str)] = &[
        (
            texts::read_directory(Path::new("/run/work/sub")),
            "EISDIR: illegal operation on a directory, read '/run/work/sub'",
        ),
        (
            texts::write_directory(Path::new("/run/work/sub")),
            "<tool_use_error>/run/work/sub is a directory, not a file. To create a file inside it, include the file name in file_path.</tool_use_error>",
        ),
        (
            texts::missing(Path::new(CWD)),
            "File does not exist. Note: your current working directory is /run/work.",
        ),
        (
            texts::binary_file("dat"),
            "<tool_use_error>This tool cannot read binary files. The file appears to be a binary .dat file. Use a skill for this file type if one is available, or a shell command or script that can read the format.</tool_use_error>",
        ),
        (texts::file_size(262_144), "256KB"),
        (texts::file_size(300_000), "293KB"),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
    assert!(texts::nul_bytes().starts_with("<tool_use_error>File has NUL bytes in its first 8 KB"));
    assert_eq!(image_type(Path::new("/a/b.PNG")), Some("image/png"));
    assert_eq!(image_type(Path::new("/a/b.txt")), None);
    assert!(looks_binary(&[0x89, 0x50, 0, 1]));
    assert!(!looks_binary(b"text"));
}
