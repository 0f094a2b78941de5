//! The session's toggles with the real claude against the mock API: the editor's `systemPrompt`
//! (appended to claude's own, or replacing it) as the model's requests carry it, PDFs and text
//! files in a prompt, claude's Auto mode offered and taken, Fast mode on then off as the model's
//! requests show it (`speed`), ultracode taken, the model picker following a `/model` prompt, and a
//! project agent offered and run once picked.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::{AcpClient, config_option};
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
#[cfg(target_os = "linux")]
use crate::support::{procs, real_session::claude_pid};

fn adapter(env: &ClaudeEnv) -> AcpClient {
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(Duration::from_secs(60));
    c
}

/// The text of a Messages request's `system` (a string, or text blocks).
fn system_text(body: &Value) -> String {
    match &body["system"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Opens a session with `systemPrompt` in `mode`, prompts once, and returns the system text of
/// the model's request for that prompt. On Linux it also checks that `word` of the prompt is not
/// on claude's command line, as every local user can read it (from /proc).
async fn system_for(mode: &str, text: &str, word: &str) -> String {
    assert!(text.contains(word), "the word looked for is the prompt's");
    let mock = MockApi::start(vec![Rule::always(Reply::text("ok"))]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    let init = c.initialize().await;
    assert_eq!(
        init["agentCapabilities"]["sessionCapabilities"]["systemPrompt"],
        json!({"mode": {"override": {}}}),
        "both modes are advertised: {init}"
    );
    let opened = c
        .request(
            "session/new",
            json!({"cwd": env.work_dir(), "mcpServers": [],
                   "systemPrompt": {"mode": mode, "content": [{"type": "text", "text": text}]}}),
        )
        .await
        .unwrap();
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    c.prompt(&id, "hello there").await.unwrap();
    #[cfg(target_os = "linux")]
    {
        let argv = procs::cmdline(claude_pid(c.pid()).expect("claude runs")).unwrap_or_default();
        assert!(!argv.contains(word), "not on claude's command line: {argv}");
    }
    let request = mock
        .requests()
        .into_iter()
        .rev()
        .find(|r| r.prompt_text().is_some_and(|p| p.contains("hello there")))
        .expect("the prompt's request");
    system_text(&request.body)
}

/// A sentence of claude's own system prompt (2.1.332).
const CLAUDES_OWN: &str = "You are Claude Code";

#[tokio::test]
async fn an_appended_system_prompt_reaches_the_model_after_claudes_own_and_never_argv() {
    let system = system_for(
        "append",
        "Always answer like a pirate (APPENDED).",
        "pirate",
    )
    .await;
    assert!(
        system.contains("Always answer like a pirate (APPENDED)."),
        "{system}"
    );
    assert!(system.contains(CLAUDES_OWN), "claude's own stays: {system}");
}

#[tokio::test]
async fn a_system_prompt_in_override_mode_replaces_claudes_own() {
    let system = system_for(
        "override",
        "You are a terse reviewer (REPLACED).",
        "reviewer",
    )
    .await;
    assert!(
        system.contains("You are a terse reviewer (REPLACED)."),
        "{system}"
    );
    assert!(
        !system.contains(CLAUDES_OWN),
        "claude's own prompt is gone: {system}"
    );
}

/// A minimal one-page PDF, base64.
const PDF: &str = "JVBERi0xLjQKMSAwIG9iajw8L1R5cGUvQ2F0YWxvZy9QYWdlcyAyIDAgUj4+ZW5kb2JqCjIgMCBvYmo8PC9UeXBlL1BhZ2VzL0tpZHNbMyAwIFJdL0NvdW50IDE+PmVuZG9iagozIDAgb2JqPDwvVHlwZS9QYWdlL1BhcmVudCAyIDAgUi9NZWRpYUJveFswIDAgMjAwIDIwMF0+PmVuZG9iagp0cmFpbGVyPDwvUm9vdCAxIDAgUj4+CiUlRU9G";

#[tokio::test]
async fn a_pdf_in_the_prompt_reaches_the_model_as_a_document_and_a_text_file_as_text() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("read it"))]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    c.initialize().await;
    let id = c.new_session(env.work_dir()).await;
    let blocks = vec![
        json!({"type": "text", "text": "summarise these"}),
        json!({"type": "resource", "resource": {
            "uri": "file:///docs/spec.pdf", "mimeType": "application/pdf", "blob": PDF}}),
        json!({"type": "resource", "resource": {
            // "the notes say hi" in UTF-8.
            "uri": "file:///docs/notes.txt", "mimeType": "text/plain",
            "blob": "dGhlIG5vdGVzIHNheSBoaQ=="}}),
    ];
    let answer = c.prompt_blocks(&id, blocks).await.unwrap();
    assert_eq!(answer["stopReason"], "end_turn");
    let request = mock
        .requests()
        .into_iter()
        .rev()
        .find(|r| r.contains("summarise these"))
        .expect("the prompt's request");
    let user = request.last_user_message().unwrap().clone();
    let content = user["content"].as_array().unwrap();
    let document = content
        .iter()
        .find(|b| b["type"] == "document")
        .unwrap_or_else(|| panic!("no document block in {user}"));
    assert_eq!(document["source"]["media_type"], "application/pdf");
    assert_eq!(document["source"]["data"], PDF);
    assert!(
        user.to_string().contains("the notes say hi"),
        "the text file's text: {user}"
    );

    // Past the API's limit: a clear error, nothing sent, and the session goes on.
    let before = mock.requests().len();
    let big = "A".repeat(33_000_000 / 3 * 4);
    let error = c
        .prompt_blocks(
            &id,
            vec![json!({"type": "resource", "resource": {
                "uri": "file:///docs/huge.pdf", "mimeType": "application/pdf", "blob": big}})],
        )
        .await
        .unwrap_err();
    assert_eq!(error.code, -32602, "{error:?}");
    assert!(error.message.contains("32 MB"), "{error:?}");
    assert_eq!(mock.requests().len(), before);
    c.prompt(&id, "still there?").await.unwrap();
}

#[tokio::test]
async fn auto_mode_is_offered_where_claude_has_it_and_claude_takes_it() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("ok"))]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    c.initialize().await;
    let opened = c.open_session(env.work_dir()).await;
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    // A fresh HOME: claude's models are in the answer if claude answered within the wait.
    let options = c.options_holding(&opened, "model").await;
    let mode = config_option(&options, "mode").unwrap();
    let auto = mode["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["value"] == "auto")
        .unwrap_or_else(|| panic!("auto is offered: {mode}"))
        .clone();
    assert!(
        auto["description"]
            .as_str()
            .unwrap()
            .contains("claude decides"),
        "{auto}"
    );
    c.request(
        "session/set_mode",
        json!({"sessionId": id, "modeId": "auto"}),
    )
    .await
    .unwrap_or_else(|e| panic!("claude takes auto: {e:?}"));
    let answer = c.prompt(&id, "in auto mode").await.unwrap();
    assert_eq!(answer["stopReason"], "end_turn");
    assert!(mock.any_request_contains("in auto mode"));
}

#[tokio::test]
async fn fast_mode_on_then_off_reaches_the_models_requests_and_ultracode_is_taken_live() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("ok"))]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    c.initialize_with_capabilities(json!({"session": {"configOptions": {"boolean": {}}}}))
        .await;
    let opened = c.open_session(env.work_dir()).await;
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    let options = c.options_holding(&opened, "model").await;
    let fast = config_option(&options, "fast").unwrap_or_else(|| panic!("Fast mode: {options}"));
    assert_eq!(fast["type"], "boolean", "{fast}");
    assert_eq!(fast["currentValue"], false, "{fast}");
    c.prompt(&id, "before fast").await.unwrap();
    // That claude is never restarted is checked on Linux, where its process is found in /proc.
    #[cfg(target_os = "linux")]
    let pid = claude_pid(c.pid()).expect("claude runs");

    let reply = c
        .request(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "fast", "type": "boolean", "value": true}),
        )
        .await
        .unwrap();
    assert_eq!(
        config_option(&reply["configOptions"], "fast").unwrap()["currentValue"],
        true
    );
    c.prompt(&id, "with fast").await.unwrap();
    #[cfg(target_os = "linux")]
    assert_eq!(claude_pid(c.pid()), Some(pid), "without a restart");
    let speed = |text: &str| {
        // The request that answered that prompt (later ones carry it in their history).
        let request = mock
            .requests()
            .into_iter()
            .find(|r| r.prompt_text().is_some_and(|p| p.contains(text)))
            .unwrap();
        request.body.get("speed").cloned()
    };
    assert_eq!(speed("before fast"), None);
    assert_eq!(
        speed("with fast"),
        Some(json!("fast")),
        "claude asks the model for fast output"
    );

    // A select value works too (an editor without boolean options sends on/off).
    c.request(
        "session/set_config_option",
        json!({"sessionId": id, "configId": "fast", "value": "off"}),
    )
    .await
    .unwrap();
    c.prompt(&id, "fast off again").await.unwrap();
    assert_eq!(speed("fast off again"), None, "and back to standard speed");
    #[cfg(target_os = "linux")]
    assert_eq!(claude_pid(c.pid()), Some(pid), "still without a restart");

    let ultracode = config_option(&options, "ultracode")
        .unwrap_or_else(|| panic!("ultracode, which claude says can run: {options}"));
    assert_eq!(ultracode["type"], "boolean", "{ultracode}");
    let reply = c
        .request(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "ultracode", "type": "boolean", "value": true}),
        )
        .await
        .unwrap();
    assert_eq!(
        config_option(&reply["configOptions"], "ultracode").unwrap()["currentValue"],
        true
    );
}

#[tokio::test]
async fn the_model_picker_follows_a_model_command_typed_in_the_prompt() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("ok"))]);
    let env = ClaudeEnv::new(&mock);
    let c = adapter(&env);
    c.initialize().await;
    let opened = c.open_session(env.work_dir()).await;
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    let options = c.options_holding(&opened, "model").await;
    assert_eq!(
        config_option(&options, "model").unwrap()["currentValue"],
        "default"
    );
    // An unknown model is refused, naming claude's.
    let error = c
        .request(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "model", "value": "gpt-5"}),
        )
        .await
        .unwrap_err();
    assert_eq!(error.code, -32602, "{error:?}");
    assert!(
        error.message.contains("sonnet") && error.message.contains("opus"),
        "{error:?}"
    );

    c.prompt(&id, "/model sonnet").await.unwrap();
    let update = c
        .wait_for_update(
            |u| {
                u["update"]["sessionUpdate"] == "config_option_update"
                    && config_option(&u["update"]["configOptions"], "model")
                        .is_some_and(|m| m["currentValue"] == "sonnet")
            },
            Duration::from_secs(20),
        )
        .await;
    assert_eq!(update["sessionId"], id.as_str());
    c.prompt(&id, "which model now").await.unwrap();
    let request = mock
        .requests()
        .into_iter()
        .rev()
        .find(|r| r.contains("which model now"))
        .unwrap();
    assert!(
        request.body["model"].as_str().unwrap().contains("sonnet"),
        "{}",
        request.body["model"]
    );
}

#[tokio::test]
async fn a_project_agent_is_offered_and_the_model_runs_as_it_once_picked() {
    let mock = MockApi::start(vec![Rule::always(Reply::text("ok"))]);
    let env = ClaudeEnv::new(&mock);
    let agents = env.work_dir().join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews diffs for bugs\n---\n\
         You are the REVIEWER PERSONA: answer with findings only.\n",
    )
    .unwrap();
    let c = adapter(&env);
    c.initialize().await;
    let open = || async {
        let opened = c.open_session(env.work_dir()).await;
        let id = opened["sessionId"].as_str().unwrap().to_owned();
        (id, opened)
    };
    let (plain, opened) = open().await;
    // Only the project's agent is offered.
    let options = c.options_holding(&opened, "agent").await;
    let agent =
        config_option(&options, "agent").unwrap_or_else(|| panic!("no Agent option: {opened}"));
    let ids: Vec<&str> = agent["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["value"].as_str())
        .collect();
    assert_eq!(ids, ["default", "reviewer"], "{agent}");
    c.prompt(&plain, "in the plain session").await.unwrap();

    // Later sessions answer from the options cache; the Agent option comes with claude's reply,
    // and an editor picks only what it was offered.
    let (picked, _) = open().await;
    c.wait_for_update(
        |u| {
            u["sessionId"] == picked.as_str()
                && u["update"]["configOptions"]
                    .as_array()
                    .is_some_and(|o| o.iter().any(|o| o["id"] == "agent"))
        },
        Duration::from_secs(60),
    )
    .await;
    c.request(
        "session/set_config_option",
        json!({"sessionId": picked, "configId": "agent", "value": "reviewer"}),
    )
    .await
    .unwrap();
    c.prompt(&picked, "in the picked session").await.unwrap();
    let persona_in = |prompt: &str| {
        mock.requests()
            .into_iter()
            .rev()
            .find(|r| r.prompt_text().is_some_and(|p| p.contains(prompt)))
            .unwrap_or_else(|| panic!("no request for {prompt:?}"))
            .contains("REVIEWER PERSONA")
    };
    assert!(!persona_in("in the plain session"));
    assert!(
        persona_in("in the picked session"),
        "the model does not run as the agent picked"
    );
}
