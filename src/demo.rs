//! `claude-acp demo`: plays one whole editor session against this binary and prints it readably.
//!
//! The demo is an editor: it starts `claude-acp` (this same executable) as an ACP agent, opens a
//! session in a fresh folder, sends a prompt in which claude writes a file, allows the permission
//! prompt, and prints every message as it streams. By default claude is the bundled offline
//! stand-in; `--real` uses the installed claude.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const PROMPT: &str = "Create hello.txt containing a friendly greeting, then tell me what you did.";

pub async fn run(real: bool, claude_path: Option<&Path>) -> i32 {
    match play(real, claude_path).await {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("demo failed: {e}");
            1
        }
    }
}

async fn play(real: bool, claude_path: Option<&Path>) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    let work = std::env::temp_dir().join(format!("claude-acp-demo-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let mut agent_args: Vec<String> = Vec::new();
    let mut standin_dir = None;
    let mut agent_env: Vec<(&str, PathBuf)> = Vec::new();
    if real {
        if let Some(p) = claude_path {
            agent_args.extend(["--claude-path".into(), p.display().to_string()]);
        }
        println!(
            "# claude-acp demo with the installed claude, in {}",
            work.display()
        );
    } else {
        let script = write_standin_script()?;
        standin_dir = script.parent().map(Path::to_path_buf);
        // claude-acp named as its own claude starts itself as the stand-in, on every platform.
        agent_args.extend(["--claude-path".into(), exe.display().to_string()]);
        agent_env.push((crate::standin::SCRIPT_VAR, script));
        println!(
            "# claude-acp demo on the bundled offline stand-in for claude, in {}",
            work.display()
        );
    }

    let mut child = tokio::process::Command::new(&exe)
        .args(&agent_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .env(
            "RUST_LOG",
            std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".into()),
        )
        .envs(agent_env)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start claude-acp: {e}"))?;
    let mut stdin = child.stdin.take().expect("piped");
    let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();

    let mut send = async |msg: Value| -> Result<(), String> {
        let mut line = msg.to_string();
        line.push('\n');
        stdin
            .write_all(line.as_bytes())
            .await
            .map_err(|e| e.to_string())
    };

    println!("\n→ initialize");
    send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}})).await?;
    let init = wait_response(&mut lines, 1, &mut send).await?;
    println!(
        "← agent {} {}",
        init["agentInfo"]["name"].as_str().unwrap_or("?"),
        init["agentInfo"]["version"].as_str().unwrap_or("?")
    );

    println!("\n→ session/new in {}", work.display());
    send(json!({"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd": work, "mcpServers": []}})).await?;
    let session = wait_response(&mut lines, 2, &mut send).await?;
    let session_id = session["sessionId"].as_str().unwrap_or_default().to_owned();
    println!(
        "← session {session_id} (mode {})",
        session["modes"]["currentModeId"].as_str().unwrap_or("?")
    );

    println!("\n→ session/prompt: {PROMPT}\n");
    send(json!({"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId": session_id,"prompt":[{"type":"text","text": PROMPT}]}})).await?;
    let done = tokio::time::timeout(
        Duration::from_secs(300),
        wait_response(&mut lines, 3, &mut send),
    )
    .await
    .map_err(|_| "no answer within 5 minutes".to_string())??;
    println!(
        "\n\n← turn ended: {}",
        done["stopReason"].as_str().unwrap_or("?")
    );

    let file = work.join("hello.txt");
    match std::fs::read_to_string(&file) {
        Ok(text) => println!("\n# {} now holds:\n{}", file.display(), text.trim_end()),
        Err(_) => println!("\n# {} was not written", file.display()),
    }
    drop(stdin);
    let _ = tokio::time::timeout(Duration::from_secs(3), child.wait()).await;
    // The stand-in's script was only for this run; the work folder stays to look at.
    if let Some(dir) = standin_dir {
        let _ = std::fs::remove_dir_all(dir);
    }
    Ok(())
}

/// The stand-in reads its script from a file, as the tests' stand-ins do.
fn write_standin_script() -> Result<PathBuf, String> {
    let dir =
        std::env::temp_dir().join(format!("claude-acp-demo-standin-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let script = dir.join("demo.jsonl");
    std::fs::write(&script, crate::standin::DEMO_SCRIPT).map_err(|e| e.to_string())?;
    Ok(script)
}

/// Prints what streams in until the response to `id` arrives, answering permission prompts.
async fn wait_response<R, F>(
    lines: &mut tokio::io::Lines<R>,
    id: u64,
    send: &mut F,
) -> Result<Value, String>
where
    R: tokio::io::AsyncBufRead + Unpin,
    F: AsyncFnMut(Value) -> Result<(), String>,
{
    while let Some(line) = lines.next_line().await.map_err(|e| e.to_string())? {
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if msg.get("id").and_then(Value::as_u64) == Some(id) && msg.get("method").is_none() {
            if let Some(err) = msg.get("error") {
                return Err(format!("the agent answered with an error: {err}"));
            }
            return Ok(msg["result"].clone());
        }
        match msg.get("method").and_then(Value::as_str) {
            Some("session/update") => print_update(&msg["params"]["update"]),
            Some("session/request_permission") => {
                let p = &msg["params"];
                let title = p["toolCall"]["title"].as_str().unwrap_or("a tool call");
                let options: Vec<&str> = p["options"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|o| o["name"].as_str())
                    .collect();
                let allow = p["options"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|o| o["kind"] == "allow_once")
                    .and_then(|o| o["optionId"].as_str())
                    .unwrap_or("allow_once")
                    .to_owned();
                println!(
                    "\n\n? permission: {title}  [{}]  -> the demo answers \"allow once\"",
                    options.join(" | ")
                );
                send(json!({"jsonrpc":"2.0","id":msg["id"].clone(),"result":{"outcome":{"outcome":"selected","optionId":allow}}})).await?;
            }
            Some(other) => {
                send(json!({"jsonrpc":"2.0","id":msg["id"].clone(),"error":{"code":-32601,"message":format!("the demo does not offer {other}")}})).await?;
            }
            None => {}
        }
    }
    Err("claude-acp closed its output".into())
}

fn print_update(update: &Value) {
    use std::io::Write;
    match update["sessionUpdate"].as_str().unwrap_or("") {
        "agent_message_chunk" => print!("{}", update["content"]["text"].as_str().unwrap_or("")),
        "agent_thought_chunk" => print!(
            "\x1b[2m{}\x1b[0m",
            update["content"]["text"].as_str().unwrap_or("")
        ),
        "tool_call" => println!(
            "\n\n• tool call [{}] {} ({})",
            update["kind"].as_str().unwrap_or("other"),
            update["title"].as_str().unwrap_or(""),
            update["status"].as_str().unwrap_or("pending")
        ),
        "tool_call_update" => {
            if let Some(status) = update["status"].as_str() {
                println!("  ↳ {status}");
            }
        }
        "plan" => println!(
            "\n• plan: {} entries",
            update["entries"].as_array().map_or(0, Vec::len)
        ),
        "usage_update" => println!(
            "\n• context: {} of {} tokens",
            update["used"], update["size"]
        ),
        _ => {}
    }
    let _ = std::io::stdout().flush();
}
