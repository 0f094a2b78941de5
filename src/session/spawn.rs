//! The command line a session starts claude with.

use std::path::Path;

use crate::claude::locate::ClaudeCommand;
use crate::claude::process::SpawnOptions;
use crate::claude::wire::FILE_CHECKPOINTING_ENV;
use crate::claude::wire::McpConfigFile;

/// How this start relates to claude's stored conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Start {
    /// A new conversation whose id is the ACP session id.
    New,
    /// Continue the stored conversation with this id.
    Resume,
    /// Continue it only up to the chain entry `at`: what `/undo` and `/rewind` left of it.
    ResumeAt { at: String },
    /// A new conversation branched from `from`, holding its thread up to the chain entry `at`
    /// (a session cursor's point), or all of it.
    Fork { from: String, at: Option<String> },
}

/// Extra flags that depend on the session (editor MCP servers, client `_meta` options).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SessionFlags {
    pub(crate) extra_args: Vec<String>,
    pub(crate) extra_env: Vec<(String, String)>,
    /// `(flag, JSON)` for values that can hold secrets (MCP headers and env, settings, agents):
    /// claude gets them as a path to a file only its owner can read, never on its command line,
    /// which every local user can read in /proc.
    pub(crate) secret_files: Vec<(String, String)>,
    /// The system prompt's replacement and addition, given to claude in its `initialize` request
    /// (never on its command line, which every local user can read).
    pub(crate) system_prompt: SystemPromptParts,
    /// Subagents' text goes to the editor (`_meta.claudeCode.options.forwardSubagentText`); no
    /// flag of claude's, the session's translation.
    pub(crate) forward_subagent_text: bool,
}

/// What the session asks of claude's system prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SystemPromptParts {
    /// Replaces claude's own system prompt.
    pub(crate) replace: Option<String>,
    /// Added to the end of it (of the replacement, if any).
    pub(crate) append: Option<String>,
}

impl SystemPromptParts {
    /// ACP's `systemPrompt`: `override` replaces claude's own, `append` adds to it.
    pub(crate) fn from_request(prompt: &crate::domain::SystemPrompt) -> Self {
        let text = Some(prompt.text.clone());
        if prompt.replace {
            Self {
                replace: text,
                append: None,
            }
        } else {
            Self {
                replace: None,
                append: text,
            }
        }
    }
}

impl SessionFlags {
    /// The value given to `flag`, if it is set.
    pub(crate) fn value_of(&self, flag: &str) -> Option<&str> {
        let at = self.extra_args.iter().position(|a| a == flag)?;
        self.extra_args.get(at + 1).map(String::as_str)
    }

    /// Sets `flag` to `value`, replacing an earlier value (flag and value both).
    pub(crate) fn set(&mut self, flag: &str, value: &str) {
        self.remove(flag);
        self.extra_args.extend([flag.to_owned(), value.to_owned()]);
    }

    /// Removes `flag` and its value.
    pub(crate) fn remove(&mut self, flag: &str) {
        while let Some(at) = self.extra_args.iter().position(|a| a == flag) {
            let end = (at + 2).min(self.extra_args.len());
            self.extra_args.drain(at..end);
        }
    }
}

impl SessionFlags {
    /// These flags with each secret value written to its own mode-0600 file and passed by path;
    /// the files are removed when the returned guards are dropped.
    pub(crate) fn with_secret_files(&self) -> Result<(SessionFlags, Vec<McpConfigFile>), String> {
        let mut flags = self.clone();
        let mut files = Vec::new();
        for (flag, content) in std::mem::take(&mut flags.secret_files) {
            let file = McpConfigFile::write_text(&content)
                .map_err(|e| format!("could not pass {flag} to claude: {e}"))?;
            flags
                .extra_args
                .extend([flag, file.path().display().to_string()]);
            files.push(file);
        }
        Ok((flags, files))
    }
}

pub(crate) fn options(
    command: &ClaudeCommand,
    cwd: &Path,
    session_id: &str,
    start: &Start,
    flags: &SessionFlags,
    permission_args: &[String],
) -> SpawnOptions {
    let mut args: Vec<String> = crate::claude::STREAM_JSON_ARGS
        .iter()
        .chain(&["--include-partial-messages"])
        .map(|s| (*s).to_owned())
        .collect();
    // `--permission-prompt-tool` and `--mcp-config`: right after the fixed flags, so a variadic
    // flag from `_meta` (which swallows what follows it) never takes them.
    args.extend(permission_args.iter().cloned());
    match start {
        Start::New => args.extend(["--session-id".into(), session_id.into()]),
        Start::Resume => args.extend(["--resume".into(), session_id.into()]),
        Start::ResumeAt { at } => args.extend([
            "--resume".into(),
            session_id.into(),
            "--resume-session-at".into(),
            at.clone(),
        ]),
        Start::Fork { from, at } => {
            args.extend(["--resume".into(), from.clone()]);
            if let Some(at) = at {
                args.extend(["--resume-session-at".into(), at.clone()]);
            }
            args.extend([
                "--fork-session".into(),
                "--session-id".into(),
                session_id.into(),
            ]);
        }
    }
    args.extend(flags.extra_args.iter().cloned());
    // claude's file checkpoints, which `/undo` and `/rewind` restore files from; first, so a
    // client's own `env` can still turn them off.
    let (key, value) = FILE_CHECKPOINTING_ENV;
    let mut extra_env = vec![(key.to_owned(), value.to_owned())];
    extra_env.extend(flags.extra_env.iter().cloned());
    SpawnOptions {
        command: command.clone(),
        cwd: cwd.to_path_buf(),
        args,
        extra_env,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd() -> ClaudeCommand {
        ClaudeCommand {
            program: "claude".into(),
            prefix_args: vec![],
        }
    }

    #[test]
    fn a_new_session_passes_its_id_and_the_stdio_permission_tool() {
        let o = options(
            &cmd(),
            Path::new("/w"),
            "abc",
            &Start::New,
            &SessionFlags::default(),
            &["--permission-prompt-tool".into(), "stdio".into()],
        );
        let line = o.args.join(" ");
        assert!(line.contains("--permission-prompt-tool stdio"), "{line}");
        assert!(line.contains("--include-partial-messages"));
        assert!(line.ends_with("--session-id abc"));
    }

    #[test]
    fn setting_a_flag_twice_keeps_one_flag_and_one_value() {
        let mut flags = SessionFlags::default();
        flags.set("--permission-mode", "plan");
        flags.set("--permission-mode", "acceptEdits");
        assert_eq!(flags.extra_args, ["--permission-mode", "acceptEdits"]);
        assert_eq!(flags.value_of("--permission-mode"), Some("acceptEdits"));
    }

    #[test]
    fn a_respawn_resumes_the_same_conversation() {
        let o = options(
            &cmd(),
            Path::new("/w"),
            "abc",
            &Start::Resume,
            &SessionFlags::default(),
            &[],
        );
        assert!(o.args.join(" ").ends_with("--resume abc"));
    }

    #[test]
    fn a_rewound_session_resumes_up_to_the_kept_entry_with_checkpoints_on() {
        let o = options(
            &cmd(),
            Path::new("/w"),
            "abc",
            &Start::ResumeAt { at: "kept".into() },
            &SessionFlags::default(),
            &[],
        );
        assert!(
            o.args
                .join(" ")
                .ends_with("--resume abc --resume-session-at kept")
        );
        let (key, value) = FILE_CHECKPOINTING_ENV;
        assert!(o.extra_env.contains(&(key.into(), value.into())));
    }
}
