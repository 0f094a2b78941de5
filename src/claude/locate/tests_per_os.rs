//! The macOS and Windows rules, on a fake file system (so they run on any machine).

use std::collections::HashMap;

use super::*;

/// A fake file system: path text -> (kind, contents), and helper commands' answers.
#[derive(Default)]
struct Fake {
    files: HashMap<String, (FileKind, String)>,
    answers: HashMap<String, String>,
}

impl Fake {
    fn program(mut self, path: &str) -> Self {
        self.files
            .insert(path.to_owned(), (FileKind::Program, String::new()));
        self
    }
    fn text(mut self, path: &str, contents: &str) -> Self {
        self.files
            .insert(path.to_owned(), (FileKind::NotProgram, contents.to_owned()));
        self
    }
    fn answer(mut self, program: &str, output: &str) -> Self {
        self.answers.insert(program.to_owned(), output.to_owned());
        self
    }
}

impl Probe for Fake {
    fn kind(&self, path: &Path) -> FileKind {
        self.files
            .get(path.to_string_lossy().as_ref())
            .map_or(FileKind::Missing, |(kind, _)| *kind)
    }
    fn read_text(&self, path: &Path) -> Option<String> {
        self.files
            .get(path.to_string_lossy().as_ref())
            .map(|(_, text)| text.clone())
    }
    fn output(&self, program: &Path, _args: &[&str]) -> Option<String> {
        self.answers
            .get(program.to_string_lossy().as_ref())
            .cloned()
    }
}

fn mac() -> LocateEnv {
    LocateEnv {
        os: Os::MacOs,
        path: Some("/usr/bin:/bin".into()),
        home: Some("/Users/me".into()),
        shell: Some("/bin/zsh".into()),
        ..LocateEnv::default()
    }
}

fn windows() -> LocateEnv {
    LocateEnv {
        os: Os::Windows,
        path: Some(r"C:\Windows\system32;C:\Program Files\nodejs".into()),
        home: Some(r"C:\Users\me".into()),
        app_data: Some(r"C:\Users\me\AppData\Roaming".into()),
        ..LocateEnv::default()
    }
}

fn found(env: &LocateEnv, fake: &Fake) -> ClaudeCommand {
    locate_with(None, env, fake).unwrap_or_else(|e| panic!("{e}"))
}

/// What npm 10's cmd-shim writes for a package whose `bin` is a `.exe` (claude 2.x).
const EXE_SHIM: &str = "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\n\
SETLOCAL\r\nCALL :find_dp0\r\n\"%dp0%\\node_modules\\@anthropic-ai\\claude-code\\bin\\claude.exe\"   %*\r\n";

/// And for a JavaScript `bin` (claude 1.x's cli.js).
const JS_SHIM: &str = "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\n\
SETLOCAL\r\nCALL :find_dp0\r\n\r\nIF EXIST \"%dp0%\\node.exe\" (\r\n  SET \"_prog=%dp0%\\node.exe\"\r\n) \
ELSE (\r\n  SET \"_prog=node\"\r\n  SET PATHEXT=%PATHEXT:;.JS;=;%\r\n)\r\n\r\nendLocal & goto \
#_undefined_# 2>NUL || title %COMSPEC% & \"%_prog%\"  \"%dp0%\\node_modules\\@anthropic-ai\\claude-code\\cli.js\" %*\r\n";

#[test]
fn macos_homebrew_before_intel_homebrew_after_the_home_installs() {
    let fake = Fake::default()
        .program("/usr/local/bin/claude")
        .program("/opt/homebrew/bin/claude");
    assert_eq!(
        found(&mac(), &fake).program,
        Path::new("/opt/homebrew/bin/claude")
    );
    let fake = fake.program("/Users/me/.claude/local/claude");
    assert_eq!(
        found(&mac(), &fake).program,
        Path::new("/Users/me/.claude/local/claude")
    );
    let linux = LocateEnv {
        os: Os::Linux,
        ..mac()
    };
    let fake = Fake::default().program("/opt/homebrew/bin/claude");
    assert!(
        locate_with(None, &linux, &fake).is_err(),
        "Homebrew's folders are macOS's"
    );
}

#[test]
fn npm_global_prefix_from_the_environment_or_npmrc() {
    let fake = Fake::default()
        .text("/Users/me/.npmrc", "fund=false\nprefix=~/.npm-global\n")
        .program("/Users/me/.npm-global/bin/claude");
    assert_eq!(
        found(&mac(), &fake).program,
        Path::new("/Users/me/.npm-global/bin/claude")
    );
    let env = LocateEnv {
        npm_prefix: Some("/opt/npm".into()),
        ..mac()
    };
    let fake = Fake::default().program("/opt/npm/bin/claude");
    assert_eq!(found(&env, &fake).program, Path::new("/opt/npm/bin/claude"));
}

#[test]
fn a_login_shell_finds_what_a_minimal_path_misses() {
    let fake = Fake::default()
        .answer("/bin/zsh", "Welcome!\n/Users/me/bin/claude\n")
        .program("/Users/me/bin/claude");
    assert_eq!(
        found(&mac(), &fake).program,
        Path::new("/Users/me/bin/claude")
    );
}

#[test]
fn macos_not_found_says_where_it_looked() {
    let text = locate_with(None, &mac(), &Fake::default())
        .unwrap_err()
        .to_string();
    for place in [
        "/usr/bin:/bin",
        "/Users/me/.local/bin/claude",
        "/Users/me/.claude/local/claude",
        "/opt/homebrew/bin/claude",
        "/usr/local/bin/claude",
        "`/bin/zsh -lc 'command -v claude'`: no answer within 3 s",
    ] {
        assert!(text.contains(place), "{place} missing from: {text}");
    }
}

#[test]
fn windows_native_install_in_the_profile() {
    let fake = Fake::default().program(r"C:\Users\me\.local\bin\claude.exe");
    assert_eq!(
        found(&windows(), &fake).program,
        Path::new(r"C:\Users\me\.local\bin\claude.exe")
    );
}

#[test]
fn windows_npm_cmd_is_resolved_to_the_packages_exe_never_started_itself() {
    let npm = r"C:\Users\me\AppData\Roaming\npm";
    let exe = format!(r"{npm}\node_modules\@anthropic-ai\claude-code\bin\claude.exe");
    let fake = Fake::default()
        .text(&format!(r"{npm}\claude.cmd"), EXE_SHIM)
        .program(&exe);
    assert_eq!(found(&windows(), &fake), ClaudeCommand::new(&exe));
    // The same shim found on PATH.
    let env = LocateEnv {
        path: Some(format!(r"C:\Windows;{npm}").into()),
        ..windows()
    };
    assert_eq!(found(&env, &fake), ClaudeCommand::new(&exe));
    // A shim whose program is missing is not an answer, and the error says why.
    let fake = Fake::default().text(&format!(r"{npm}\claude.cmd"), EXE_SHIM);
    let text = locate_with(None, &windows(), &fake)
        .unwrap_err()
        .to_string();
    assert!(text.contains(r"claude.cmd: a .cmd script"), "{text}");
    assert!(text.contains(r"bin\claude.exe) was not found"), "{text}");
}

#[test]
fn windows_javascript_shim_runs_node_with_the_script() {
    let npm = r"C:\Users\me\AppData\Roaming\npm";
    let script = format!(r"{npm}\node_modules\@anthropic-ai\claude-code\cli.js");
    let fake = Fake::default()
        .text(&format!(r"{npm}\claude.cmd"), JS_SHIM)
        .text(&script, "#!/usr/bin/env node")
        .program(r"C:\Program Files\nodejs\node.exe");
    assert_eq!(
        found(&windows(), &fake),
        ClaudeCommand {
            program: r"C:\Program Files\nodejs\node.exe".into(),
            prefix_args: vec![script],
        }
    );
}

#[test]
fn windows_where_is_asked_last_and_everything_is_named_when_missing() {
    let fake = Fake::default()
        .answer("where", "D:\\tools\\claude.exe\r\n")
        .program(r"D:\tools\claude.exe");
    assert_eq!(
        found(&windows(), &fake).program,
        Path::new(r"D:\tools\claude.exe")
    );
    let text = locate_with(None, &windows(), &Fake::default())
        .unwrap_err()
        .to_string();
    for place in [
        r"C:\Windows\system32;C:\Program Files\nodejs",
        r"C:\Users\me\.local\bin\claude.exe: not found",
        r"C:\Users\me\AppData\Roaming\npm\claude.cmd: not found",
        "`where claude`",
        "install.ps1",
    ] {
        assert!(text.contains(place), "{place} missing from: {text}");
    }
}

#[test]
fn windows_explicit_paths_with_drive_letters_and_unc() {
    let fake = Fake::default()
        .program(r"\\server\share\claude.exe")
        .program(r"C:\x\claude.exe");
    for path in [r"\\server\share\claude.exe", r"C:\x\claude.exe"] {
        assert_eq!(
            locate_with(Some(Path::new(path)), &windows(), &fake)
                .unwrap()
                .program,
            Path::new(path)
        );
    }
}

#[test]
fn the_shim_target_is_the_last_dp0_path() {
    assert_eq!(
        shim_target(EXE_SHIM).as_deref(),
        Some(r"node_modules\@anthropic-ai\claude-code\bin\claude.exe")
    );
    assert_eq!(
        shim_target(JS_SHIM).as_deref(),
        Some(r"node_modules\@anthropic-ai\claude-code\cli.js")
    );
    assert_eq!(shim_target("@echo off\r\nclaude %*\r\n"), None);
}

#[test]
fn claude_acp_named_as_claude_is_started_as_the_stand_in() {
    let own = r"C:\tools\claude-acp.exe";
    let fake = Fake::default()
        .program(own)
        .program(r"C:\Users\me\.local\bin\claude.exe");
    let env = LocateEnv {
        own_exe: Some(own.into()),
        ..windows()
    };
    let explicit = locate_with(Some(Path::new(own)), &env, &fake).unwrap();
    assert_eq!(
        (explicit.program.as_path(), explicit.prefix_args.as_slice()),
        (Path::new(own), ["standin".to_owned()].as_slice())
    );
    let by_env = LocateEnv {
        claude_code_executable: Some(own.into()),
        ..env.clone()
    };
    assert_eq!(found(&by_env, &fake).prefix_args, ["standin"]);
    // Any other program, and claude found by the search, start as they are.
    let other = r"C:\Users\me\.local\bin\claude.exe";
    let named = locate_with(Some(Path::new(other)), &env, &fake).unwrap();
    assert_eq!(named.prefix_args, Vec::<String>::new());
    assert_eq!(found(&env, &fake).prefix_args, Vec::<String>::new());
}
