//! `_meta` -> claude flags, as a table: what clients send, and the command line claude gets.

use serde_json::{Value, json};

use super::*;
use crate::session::spawn::SystemPromptParts;

fn args(meta: Value) -> Vec<String> {
    flags_from_meta(Some(&meta))
        .unwrap_or_else(|e| panic!("{meta} was refused: {e}"))
        .extra_args
}

fn options(options: Value) -> Value {
    json!({"claudeCode": {"options": options}})
}

fn error(meta: Value) -> String {
    match flags_from_meta(Some(&meta)) {
        Ok(flags) => panic!("{meta} was accepted as {flags:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn each_option_becomes_its_claude_flag() {
    let table: Vec<(Value, &[&str])> = vec![
        (
            options(json!({"model": "claude-sonnet-4-5"})),
            &["--model", "claude-sonnet-4-5"],
        ),
        (
            options(json!({"fallbackModel": "haiku"})),
            &["--fallback-model", "haiku"],
        ),
        (
            options(json!({"allowedTools": ["Read", "Bash(git *)"]})),
            &["--allowedTools", "Read,Bash(git *)"],
        ),
        (
            options(json!({"disallowedTools": ["WebFetch"]})),
            &["--disallowedTools", "WebFetch"],
        ),
        (options(json!({"maxTurns": 3})), &["--max-turns", "3"]),
        (
            options(json!({"maxThinkingTokens": 0})),
            &["--max-thinking-tokens", "0"],
        ),
        (
            options(json!({"maxBudgetUsd": 1.5})),
            &["--max-budget-usd", "1.5"],
        ),
        (
            options(json!({"settingSources": ["user", "project"]})),
            &["--setting-sources", "user,project"],
        ),
        // No sources at all: claude reads no settings files.
        (
            options(json!({"settingSources": []})),
            &["--setting-sources", ""],
        ),
        (
            options(json!({"permissionMode": "acceptEdits"})),
            &["--permission-mode", "acceptEdits"],
        ),
        (
            options(json!({"additionalDirectories": ["/a", "/b"]})),
            &["--add-dir", "/a", "--add-dir", "/b"],
        ),
        (
            options(json!({"strictMcpConfig": true})),
            &["--strict-mcp-config"],
        ),
        (options(json!({"strictMcpConfig": false})), &[]),
        (
            options(json!({"tools": ["Read", "Grep"]})),
            &["--tools", "Read,Grep"],
        ),
        (options(json!({"tools": []})), &["--tools", ""]),
        (
            options(json!({"tools": {"type": "preset", "preset": "claude_code"}})),
            &[],
        ),
        (
            options(json!({"settings": "/etc/claude.json"})),
            &["--settings", "/etc/claude.json"],
        ),
        (
            options(json!({"plugins": [{"type": "local", "path": "/plugins/x"}]})),
            &["--plugin-dir", "/plugins/x"],
        ),
        (
            options(json!({"extraArgs": {"effort": "high"}})),
            &["--effort", "high"],
        ),
        (options(json!({"effort": "xhigh"})), &["--effort", "xhigh"]),
        (options(json!({"extraArgs": {"bare": null}})), &["--bare"]),
    ];
    for (meta, expected) in table {
        assert_eq!(args(meta.clone()), expected, "for {meta}");
    }
}

fn system_prompt(meta: Value) -> SystemPromptParts {
    let flags = flags_from_meta(Some(&meta)).unwrap_or_else(|e| panic!("{meta} was refused: {e}"));
    // Never on claude's command line, which every local user can read.
    assert!(
        flags.extra_args.is_empty(),
        "{meta}: {:?}",
        flags.extra_args
    );
    flags.system_prompt
}

fn parts(replace: Option<&str>, append: Option<&str>) -> SystemPromptParts {
    SystemPromptParts {
        replace: replace.map(str::to_owned),
        append: append.map(str::to_owned),
    }
}

#[test]
fn the_system_prompt_replaces_or_appends_and_never_reaches_the_command_line() {
    let table = [
        (
            json!({"systemPrompt": "You review code."}),
            parts(Some("You review code."), None),
        ),
        (
            json!({"systemPrompt": {"append": "Answer in French."}}),
            parts(None, Some("Answer in French.")),
        ),
        // The SDK's own shape inside options wins over the top-level one, as in the TypeScript
        // adapter.
        (
            json!({"systemPrompt": "ignored", "claudeCode": {"options": {
                "systemPrompt": {"type": "preset", "preset": "claude_code", "append": "Be terse."}}}}),
            parts(None, Some("Be terse.")),
        ),
        (
            options(json!({"customSystemPrompt": "Be brief.", "appendSystemPrompt": "Be kind."})),
            parts(Some("Be brief."), Some("Be kind.")),
        ),
    ];
    for (meta, expected) in table {
        assert_eq!(system_prompt(meta.clone()), expected, "for {meta}");
    }
}

#[test]
fn extra_directories_come_from_options_and_additional_roots_once_each() {
    let meta = json!({"additionalRoots": ["/shared", 7, "/lib"],
                      "claudeCode": {"options": {"additionalDirectories": ["/lib", "/docs"]}}});
    assert_eq!(
        args(meta),
        [
            "--add-dir",
            "/shared",
            "--add-dir",
            "/lib",
            "--add-dir",
            "/docs"
        ]
    );
}

#[test]
fn built_in_tools_can_be_switched_off_unless_tools_are_listed() {
    assert_eq!(args(json!({"disableBuiltInTools": true})), ["--tools", ""]);
    assert_eq!(
        args(json!({"disableBuiltInTools": true, "claudeCode": {"options": {"tools": ["Read"]}}})),
        ["--tools", "Read"]
    );
}

#[test]
fn settings_and_agents_as_json_go_to_files_and_paths_stay_arguments() {
    let meta = options(json!({
        "settings": {"apiKeyHelper": "echo sk-ant-x"},
        "agents": "{\"reviewer\": {\"prompt\": \"p\"}}",
    }));
    let flags = flags_from_meta(Some(&meta)).unwrap();
    assert!(flags.extra_args.is_empty(), "{:?}", flags.extra_args);
    let flags_given: Vec<&str> = flags.secret_files.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(flags_given, ["--settings", "--agents"]);
    let (with_paths, files) = flags.with_secret_files().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(with_paths.extra_args[0], "--settings");
    let path = std::path::PathBuf::from(&with_paths.extra_args[1]);
    let metadata = std::fs::metadata(&path).unwrap();
    assert!(crate::platform::files::is_owner_only(&metadata));
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("apiKeyHelper")
    );
    drop(files);
    assert!(!path.exists(), "removed with its guard");
}

#[test]
fn mcp_servers_and_env_from_options_reach_claude() {
    let meta = options(json!({
        "mcpServers": {"notes": {"type": "stdio", "command": "notes-mcp", "args": ["--ro"]}},
        "env": {"NOTES_DIR": "/notes"}
    }));
    let flags = flags_from_meta(Some(&meta)).unwrap();
    assert!(flags.extra_args.is_empty(), "{:?}", flags.extra_args);
    assert_eq!(flags.secret_files[0].0, "--mcp-config");
    let config: Value = serde_json::from_str(&flags.secret_files[0].1).unwrap();
    assert_eq!(config["mcpServers"]["notes"]["command"], "notes-mcp");
    assert_eq!(
        flags.extra_env,
        [("NOTES_DIR".to_owned(), "/notes".to_owned())]
    );
}

#[test]
fn what_acpx_sends_becomes_one_command_line() {
    let meta = json!({"claudeCode": {"options": {
        "model": "sonnet", "allowedTools": ["Read", "Edit"], "maxTurns": 8,
        "settingSources": ["user", "project", "local"]}},
        "systemPrompt": {"append": "Commit nothing."}});
    assert_eq!(
        args(meta),
        [
            "--model",
            "sonnet",
            "--allowedTools",
            "Read,Edit",
            "--max-turns",
            "8",
            "--setting-sources",
            "user,project,local",
        ]
    );
}

#[test]
fn absent_empty_and_unknown_meta_add_nothing() {
    assert_eq!(flags_from_meta(None).unwrap(), SessionFlags::default());
    assert_eq!(
        flags_from_meta(Some(&Value::Null)).unwrap(),
        SessionFlags::default()
    );
    assert!(args(json!({})).is_empty());
    assert!(args(json!({"otherClient": {"x": 1}, "claudeCode": {}})).is_empty());
    assert!(
        args(options(
            json!({"someFutureOption": 1, "cwd": "/x", "resume": "abc",
                                 "hooks": {}, "model": null})
        ))
        .is_empty()
    );
}

#[test]
fn wrong_types_are_refused_with_the_key_named() {
    let table: Vec<(Value, &str)> = vec![
        (
            options(json!({"maxTurns": "3"})),
            "_meta.claudeCode.options.maxTurns: expected an integer ≥ 1, got \"3\"",
        ),
        (
            options(json!({"maxTurns": 0})),
            "_meta.claudeCode.options.maxTurns: expected an integer ≥ 1, got 0",
        ),
        (
            options(json!({"maxTurns": 2.5})),
            "maxTurns: expected an integer",
        ),
        (
            options(json!({"model": 4})),
            "_meta.claudeCode.options.model: expected a string, got 4",
        ),
        (
            options(json!({"allowedTools": "Read"})),
            "allowedTools: expected a list of strings",
        ),
        (
            options(json!({"allowedTools": ["Read", 1]})),
            "allowedTools: expected a list of strings",
        ),
        (
            options(json!({"permissionMode": "yolo"})),
            "permissionMode: expected one of",
        ),
        (
            options(json!({"settingSources": ["user", "cloud"]})),
            "settingSources: expected sources among",
        ),
        (
            options(json!({"strictMcpConfig": "yes"})),
            "strictMcpConfig: expected true or false",
        ),
        (
            options(json!({"maxBudgetUsd": -1})),
            "maxBudgetUsd: expected a non-negative number",
        ),
        (
            options(json!({"env": {"A": 1}})),
            "_meta.claudeCode.options.env.A: expected a string",
        ),
        (
            options(json!({"mcpServers": []})),
            "mcpServers: expected an object",
        ),
        (
            options(json!({"plugins": [{"type": "remote"}]})),
            "plugins: expected {type: \"local\"",
        ),
        (
            json!({"systemPrompt": 5}),
            "_meta.systemPrompt: expected a string or {append: string}",
        ),
        (
            json!({"systemPrompt": {"append": true}}),
            "_meta.systemPrompt.append: expected a string",
        ),
        (
            json!({"claudeCode": {"options": "model=x"}}),
            "_meta.claudeCode.options: expected an object",
        ),
        (json!("claude"), "_meta.(root): expected an object"),
    ];
    for (meta, expected) in table {
        let message = error(meta.clone());
        assert!(
            message.contains(expected),
            "for {meta}: {message:?} lacks {expected:?}"
        );
    }
}

#[test]
fn extra_args_cannot_override_the_protocol_flags() {
    for flag in [
        "output-format",
        "--input-format",
        "resume",
        "session-id",
        "permission-prompt-tool",
        "p",
        "bad flag",
    ] {
        let message = error(options(json!({"extraArgs": {flag: "x"}})));
        assert!(
            message.contains("cannot be overridden"),
            "{flag}: {message}"
        );
    }
    let message = error(options(json!({"extraArgs": {"effort": 3}})));
    assert!(
        message.contains("extraArgs.effort: expected a string or null"),
        "{message}"
    );
}

#[test]
fn forwarding_subagent_text_is_a_switch_of_the_session_not_a_flag_of_claudes() {
    let flags = |meta: Value| flags_from_meta(Some(&meta)).unwrap();
    let on = flags(options(json!({"forwardSubagentText": true})));
    assert!(on.forward_subagent_text);
    assert!(on.extra_args.is_empty(), "{:?}", on.extra_args);
    assert!(!flags(options(json!({"forwardSubagentText": false}))).forward_subagent_text);
    assert!(!flags(json!({})).forward_subagent_text);
    assert_eq!(
        error(options(json!({"forwardSubagentText": "yes"}))),
        "_meta.claudeCode.options.forwardSubagentText: expected true or false, got \"yes\""
    );
}
