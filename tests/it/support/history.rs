//! claude's stored transcripts for tests: a temporary claude config dir (`CLAUDE_CONFIG_DIR`) holding
//! copies of the real-CLI fixture in `fixtures/history/`, or small made-up sessions, placed under the
//! project folder of the test's cwd.

use std::path::{Path, PathBuf};

use serde_json::json;

/// The session stored in `fixtures/history/` with text, thinking, tool calls and tool results.
pub const FIXTURE_SESSION_ID: &str = "5b0c7f4e-2a55-4c1e-9d4b-6f1e0a9c3d21";

/// The cwd the fixture was recorded in (it is rewritten to the test's cwd when copied).
const FIXTURE_CWD: &str = "/tmp/claude-acp-test-LjGcc3/work";

/// The project folder claude uses for `cwd` under `config_dir`, created.
pub fn project_dir(config_dir: &Path, cwd: &Path) -> PathBuf {
    let dir = config_dir
        .join("projects")
        .join(claude_acp::history::project_slug(cwd));
    std::fs::create_dir_all(&dir).expect("create project dir");
    dir
}

/// Copies the fixture transcript `session_id` into `config_dir` as if it had been recorded in `cwd`.
pub fn install_fixture(config_dir: &Path, cwd: &Path, session_id: &str) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/history/projects")
        .join(claude_acp::history::project_slug(Path::new(FIXTURE_CWD)))
        .join(format!("{session_id}.jsonl"));
    let text = std::fs::read_to_string(&source)
        .unwrap_or_else(|e| panic!("read {}: {e}", source.display()));
    let cwd_text = cwd.to_str().expect("utf-8 cwd");
    let target = project_dir(config_dir, cwd).join(format!("{session_id}.jsonl"));
    std::fs::write(&target, text.replace(FIXTURE_CWD, cwd_text)).expect("write transcript");
    target
}

/// A transcript of `turns` exchanges, each prompt answered with `answer_bytes` of text: a long
/// thread whose replay outlasts what an editor's pipe holds.
pub fn write_long_session(
    config_dir: &Path,
    cwd: &Path,
    session_id: &str,
    turns: usize,
    answer_bytes: usize,
) {
    let answer = "x".repeat(answer_bytes);
    let mut parent: Option<String> = None;
    let mut text = String::new();
    for turn in 0..turns {
        for (kind, message) in [
            (
                "user",
                json!({"role": "user", "content": format!("prompt {turn}")}),
            ),
            (
                "assistant",
                json!({"id": format!("msg_{turn}"), "type": "message",
                "role": "assistant", "model": "claude-opus-5-5",
                "content": [{"type": "text", "text": answer}]}),
            ),
        ] {
            let uuid = uuid::Uuid::new_v4().to_string();
            let line = json!({"parentUuid": parent, "isSidechain": false, "type": kind,
                "message": message, "uuid": uuid, "timestamp": "2026-12-02T12:00:00.000Z",
                "cwd": cwd, "sessionId": session_id, "version": "2.1.332"});
            text.push_str(&format!("{line}\n"));
            parent = Some(uuid);
        }
    }
    let file = project_dir(config_dir, cwd).join(format!("{session_id}.jsonl"));
    std::fs::write(file, text).expect("write transcript");
}

/// A minimal transcript of one exchange: `prompt` typed in `cwd`, answered with `answer`.
pub fn write_session(config_dir: &Path, cwd: &Path, session_id: &str, prompt: &str, answer: &str) {
    let user_uuid = uuid::Uuid::new_v4().to_string();
    let lines = [
        json!({"parentUuid": null, "isSidechain": false, "type": "user",
               "message": {"role": "user", "content": prompt},
               "uuid": user_uuid, "timestamp": "2026-12-02T12:00:00.000Z",
               "cwd": cwd, "sessionId": session_id, "version": "2.1.332"}),
        json!({"parentUuid": user_uuid, "isSidechain": false, "type": "assistant",
               "message": {"id": "msg_1", "type": "message", "role": "assistant",
                           "model": "claude-opus-5-5",
                           "content": [{"type": "text", "text": answer}]},
               "uuid": uuid::Uuid::new_v4().to_string(),
               "timestamp": "2026-12-02T12:00:01.000Z",
               "cwd": cwd, "sessionId": session_id, "version": "2.1.332"}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let file = project_dir(config_dir, cwd).join(format!("{session_id}.jsonl"));
    std::fs::write(file, text).expect("write transcript");
}
