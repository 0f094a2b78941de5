//! Which of claude's command tools runs in the editor's terminal and how each is started there:
//! `Bash` (`bash -c`) where claude offers Bash, `PowerShell` (`pwsh` or `powershell`
//! `-NoProfile -NonInteractive -ExecutionPolicy Bypass -Command`) where claude for Windows offers
//! it instead. Everything else about a command (the terminal, its output, timeouts, the
//! background, `cd` carrying over, the permission rules) is the same for both.

use std::ffi::OsStr;
use std::path::Path;

use crate::claude::sdk_mcp::McpTool;
use crate::platform::os::Os;

/// Picks the shell instead of the platform's default: `bash`, `powershell` or `pwsh`.
pub(crate) const ENV: &str = "CLAUDE_ACP_TERMINAL_SHELL";

/// claude's PowerShell tool as the pinned claude.exe sends it to the model (Windows PowerShell
/// 5.1 found, no Git Bash), captured under Wine.
const POWERSHELL_CAPTURE: &str =
    include_str!("../../../fixtures/windows/claude_2.1.332_tools.json");

/// The edition paragraph of that description, and claude.exe's own paragraph for PowerShell 7+
/// (`pwsh`), which it puts there when it runs pwsh (the same binary's text).
const DESKTOP_EDITION: &str = "PowerShell edition: Windows PowerShell 5.1 (powershell.exe)\n   - Pipeline chain operators `&&` and `||` are NOT available \u{2014} they cause a parser error. To run B only if A succeeds: `A; if ($?) { B }`. To chain unconditionally: `A; B`.\n   - Ternary (`?:`), null-coalescing (`??`), and null-conditional (`?.`) operators are NOT available. Use `if/else` and explicit `$null -eq` checks instead.\n   - Avoid `2>&1` on native executables. In 5.1, redirecting a native command's stderr inside PowerShell wraps each line in an ErrorRecord (NativeCommandError) and sets `$?` to `$false` even when the exe returned exit code 0. stderr is already captured for you \u{2014} don't redirect it.\n   - `>`, `>>`, and `Out-File` usually default to UTF-8 (with BOM) in this environment, but `Set-Content`/`Add-Content` still default to the system ANSI codepage \u{2014} when writing a file other tools will read, pass `-Encoding utf8` explicitly to `Out-File`/`Set-Content`.\n   - `ConvertFrom-Json` returns a PSCustomObject, not a hashtable. `-AsHashtable` is not available.";
const CORE_EDITION: &str = "PowerShell edition: PowerShell 7+ (pwsh)\n   - Pipeline chain operators `&&` and `||` ARE available and work like bash. Prefer `cmd1 && cmd2` over `cmd1; cmd2` when cmd2 should only run if cmd1 succeeds.\n   - Ternary (`$cond ? $a : $b`), null-coalescing (`??`), and null-conditional (`?.`) operators are available.\n   - Default file encoding is UTF-8 without BOM.";

/// What claude.exe appends to a PowerShell command: the exit code is the last native program's
/// (`$LASTEXITCODE`), else 0 or 1 as the last command succeeded, and the directory it ended in is
/// written where `cd` tracking reads it (here the file `CLAUDE_ACP_CWD_FILE` names, when set).
const POWERSHELL_SUFFIX: &str = "\n; $_ec = if ($null -ne $LASTEXITCODE) { $LASTEXITCODE } elseif ($?) { 0 } else { 1 }\n; if ($env:CLAUDE_ACP_CWD_FILE) { (Get-Location).Path | Out-File -FilePath $env:CLAUDE_ACP_CWD_FILE -Encoding utf8 -NoNewline }\n; exit $_ec";

/// claude's command tool served in the editor's terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CommandShell {
    Bash,
    /// claude for Windows' tool, run with `program` (`pwsh` or `powershell`).
    PowerShell {
        program: &'static str,
    },
}

impl CommandShell {
    /// The shell claude offers on this machine, unless [`ENV`] names one.
    pub(crate) fn for_this_machine() -> Self {
        let chosen = std::env::var(ENV).ok();
        let path = std::env::var_os("PATH");
        Self::choose(chosen.as_deref(), Os::CURRENT, path.as_deref(), |p| {
            p.is_file()
        })
    }

    /// [`ENV`]'s value if valid, else claude's choice: Bash off Windows; on Windows PowerShell,
    /// `pwsh` when on `PATH` (claude.exe's first choice), else Windows PowerShell.
    pub(crate) fn choose(
        chosen: Option<&str>,
        os: Os,
        path: Option<&OsStr>,
        exists: impl Fn(&Path) -> bool,
    ) -> Self {
        match chosen.map(str::trim) {
            Some("bash") => return Self::Bash,
            Some("powershell") => {
                return Self::PowerShell {
                    program: "powershell",
                };
            }
            Some("pwsh") => return Self::PowerShell { program: "pwsh" },
            Some(other) if !other.is_empty() => {
                tracing::warn!("{ENV}={other} is not bash, powershell or pwsh: ignored");
            }
            _ => {}
        }
        if os != Os::Windows {
            return Self::Bash;
        }
        let path = path.map(OsStr::to_string_lossy).unwrap_or_default();
        let has_pwsh = path
            .split(os.path_list_separator())
            .filter(|dir| !dir.is_empty())
            .any(|dir| exists(&Path::new(dir.trim_matches('"')).join("pwsh.exe")));
        Self::PowerShell {
            program: if has_pwsh { "pwsh" } else { "powershell" },
        }
    }

    /// The tool's name, claude's own.
    pub(crate) fn tool_name(self) -> &'static str {
        match self {
            Self::Bash => "Bash",
            Self::PowerShell { .. } => "PowerShell",
        }
    }

    /// claude's built-ins the editor's tools replace (`--disallowedTools`): its command tools
    /// (claude for Windows with Git Bash offers Bash too) and TaskStop.
    pub(crate) fn replaced_builtins(self) -> &'static str {
        match self {
            Self::Bash => "Bash,TaskStop",
            Self::PowerShell { .. } => "Bash,PowerShell,TaskStop",
        }
    }

    /// The program and arguments `terminal/create` runs `command` with.
    pub(crate) fn command_line(self, command: &str) -> (String, Vec<String>) {
        match self {
            Self::Bash => ("bash".into(), vec!["-c".into(), command.into()]),
            Self::PowerShell { program } => (
                program.into(),
                [
                    "-NoProfile",
                    "-NonInteractive",
                    "-ExecutionPolicy",
                    "Bypass",
                    "-Command",
                ]
                .iter()
                .map(|a| (*a).to_owned())
                .chain([format!("{command}{POWERSHELL_SUFFIX}")])
                .collect(),
            ),
        }
    }

    /// The command tool's definition, claude's own (name, description, input schema).
    pub(crate) fn tool_definition(self, bash: McpTool) -> McpTool {
        let Self::PowerShell { program } = self else {
            return bash;
        };
        let mut tool = McpTool::one_from_capture(POWERSHELL_CAPTURE, "powershell_tool");
        if program == "pwsh" {
            tool.description = tool.description.replace(DESKTOP_EDITION, CORE_EDITION);
        }
        tool
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash() -> McpTool {
        McpTool::from_capture(
            r#"{"tools": [{"name": "Bash", "description": "d", "input_schema": {}}]}"#,
        )
        .pop()
        .unwrap()
    }

    #[test]
    fn claude_for_windows_gets_powershell_preferring_pwsh_on_path() {
        let path = OsStr::new(r"C:\Windows\System32;C:\Program Files\PowerShell\7");
        let pwsh = |p: &Path| p.to_string_lossy().contains(r"PowerShell\7");
        let shell = CommandShell::choose(None, Os::Windows, Some(path), pwsh);
        assert_eq!(shell, CommandShell::PowerShell { program: "pwsh" });
        let shell = CommandShell::choose(None, Os::Windows, Some(path), |_| false);
        assert_eq!(
            shell,
            CommandShell::PowerShell {
                program: "powershell"
            }
        );
        assert_eq!(
            CommandShell::choose(None, Os::Linux, None, |_| true),
            CommandShell::Bash
        );
        assert_eq!(
            CommandShell::choose(None, Os::MacOs, None, |_| true),
            CommandShell::Bash
        );
        // The setting wins, and a value it does not know is ignored.
        let chosen = CommandShell::choose(Some("powershell"), Os::Linux, None, |_| false);
        assert_eq!(
            chosen,
            CommandShell::PowerShell {
                program: "powershell"
            }
        );
        assert_eq!(
            CommandShell::choose(Some("bash"), Os::Windows, None, |_| true),
            CommandShell::Bash
        );
        assert_eq!(
            CommandShell::choose(Some("zsh"), Os::Linux, None, |_| true),
            CommandShell::Bash
        );
    }

    #[test]
    fn powershell_runs_without_profile_and_reports_the_native_exit_code() {
        let (program, args) =
            CommandShell::PowerShell { program: "pwsh" }.command_line("git status; ls");
        assert_eq!(program, "pwsh");
        assert_eq!(
            args[..5],
            [
                "-NoProfile",
                "-NonInteractive",
                "-ExecutionPolicy",
                "Bypass",
                "-Command"
            ]
        );
        assert!(args[5].starts_with("git status; ls\n; $_ec = if ($null -ne $LASTEXITCODE)"));
        assert!(args[5].ends_with("; exit $_ec"), "{}", args[5]);
        assert_eq!(
            CommandShell::Bash.command_line("ls"),
            ("bash".to_owned(), vec!["-c".to_owned(), "ls".to_owned()])
        );
        assert_eq!(
            CommandShell::PowerShell {
                program: "powershell"
            }
            .replaced_builtins(),
            "Bash,PowerShell,TaskStop"
        );
    }

    #[test]
    fn the_powershell_tool_is_claudes_own_for_its_edition() {
        let desktop = CommandShell::PowerShell {
            program: "powershell",
        }
        .tool_definition(bash());
        assert_eq!(desktop.name, "PowerShell");
        assert!(
            desktop.description.contains(DESKTOP_EDITION),
            "{}",
            desktop.description
        );
        assert_eq!(
            desktop.input_schema["required"],
            serde_json::json!(["command"])
        );
        assert!(desktop.input_schema["properties"]["run_in_background"].is_object());
        let core = CommandShell::PowerShell { program: "pwsh" }.tool_definition(bash());
        assert!(
            core.description.contains(CORE_EDITION),
            "{}",
            core.description
        );
        assert!(!core.description.contains("5.1"), "{}", core.description);
        assert_eq!(CommandShell::Bash.tool_definition(bash()).name, "Bash");
    }
}
