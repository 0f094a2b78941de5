//! The mock Anthropic API speaks the HTTP and SSE that claude relies on (keep-alive, chunked bodies,
//! errors, other endpoints), follows its script, and is reachable only from inside its namespace.

use std::time::Duration;

use crate::support::mock_api::{Block, MockApi, Reply, Rule};
// The namespace test alone starts a process in claude's environment.
#[cfg(target_os = "linux")]
use crate::support::real_cli::ClaudeEnv;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// A response as the test client parsed it.
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        let found = self
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name));
        found.map(|(_, v)| v.as_str())
    }

    /// `(event name, data)` of each server-sent event in the body.
    fn events(&self) -> Vec<(String, Value)> {
        self.body
            .split("\n\n")
            .filter(|e| !e.trim().is_empty())
            .map(|event| {
                let field = |name: &str| {
                    let line = event.lines().find(|l| l.starts_with(name)).expect(name);
                    line[name.len()..].trim().to_string()
                };
                let data = serde_json::from_str(&field("data:")).expect("event data is JSON");
                (field("event:"), data)
            })
            .collect()
    }

    /// The text_delta pieces of the streamed body, joined.
    fn streamed_text(&self) -> String {
        let events = self.events();
        let texts = events
            .iter()
            .filter_map(|(_, d)| d["delta"]["text"].as_str());
        texts.collect()
    }
}

async fn read_response(reader: &mut BufReader<TcpStream>) -> Response {
    let mut line = String::new();
    reader.read_line(&mut line).await.unwrap();
    let status = line
        .split_whitespace()
        .nth(1)
        .expect("status")
        .parse()
        .unwrap();
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).await.unwrap();
        let Some((name, value)) = line.trim_end().split_once(':') else {
            break;
        };
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    let mut response = Response {
        status,
        headers,
        body: String::new(),
    };
    let mut body = Vec::new();
    if response.header("transfer-encoding") == Some("chunked") {
        loop {
            line.clear();
            reader.read_line(&mut line).await.unwrap();
            let size = usize::from_str_radix(line.trim(), 16).unwrap();
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).await.unwrap();
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        let length = response.header("content-length").unwrap().parse().unwrap();
        body.resize(length, 0);
        reader.read_exact(&mut body).await.unwrap();
    }
    response.body = String::from_utf8(body).unwrap();
    response
}

fn messages_body(prompt: &str) -> String {
    json!({"model": "claude-test", "stream": true, "max_tokens": 10,
           "messages": [{"role": "user", "content": [
               {"type": "text", "text": "<system-reminder>\nignore me\n</system-reminder>"},
               {"type": "text", "text": prompt}]}]})
    .to_string()
}

async fn post(reader: &mut BufReader<TcpStream>, body: &str) -> Response {
    let request = format!(
        "POST /v1/messages?beta=true HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    );
    reader
        .get_mut()
        .write_all(request.as_bytes())
        .await
        .unwrap();
    read_response(reader).await
}

#[tokio::test]
async fn keep_alive_connection_serves_a_stream_then_a_chunked_request() {
    let mock = MockApi::start(vec![
        Rule::on_prompt(
            "first",
            Reply::blocks(vec![
                Block::Thinking("hmm".into()),
                Block::Text("héllo wörld".into()),
                Block::ToolUse {
                    name: "Write".into(),
                    input: json!({"file_path": "/x"}),
                },
            ])
            .chunk_chars(3),
        ),
        Rule::on_prompt("second", Reply::text("two")),
    ]);
    let mut connection = BufReader::new(mock.connect());

    let first = post(&mut connection, &messages_body("first")).await;
    let body = messages_body("second");
    let (head, tail) = body.split_at(body.len() / 2);
    let chunked = format!(
        "POST /v1/messages HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n\
         {:x}\r\n{head}\r\n{:x}\r\n{tail}\r\n0\r\n\r\n",
        head.len(),
        tail.len()
    );
    connection
        .get_mut()
        .write_all(chunked.as_bytes())
        .await
        .unwrap();
    let second = read_response(&mut connection).await;

    assert_eq!(first.status, 200);
    assert_eq!(first.header("content-type"), Some("text/event-stream"));
    let events = first.events();
    let names: Vec<&str> = events.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names.first(), Some(&"message_start"));
    assert_eq!(&names[names.len() - 2..], ["message_delta", "message_stop"]);
    let deltas = |kind: &str, field: &str| -> String {
        let pieces = events.iter().filter(|(_, d)| d["delta"]["type"] == kind);
        pieces
            .map(|(_, d)| d["delta"][field].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(deltas("thinking_delta", "thinking"), "hmm");
    assert!(deltas("signature_delta", "signature").starts_with("mocksig_"));
    assert_eq!(deltas("text_delta", "text"), "héllo wörld");
    let input: Value = serde_json::from_str(&deltas("input_json_delta", "partial_json")).unwrap();
    assert_eq!(input, json!({"file_path": "/x"}));
    let tool_start = events
        .iter()
        .find(|(_, d)| d["content_block"]["type"] == "tool_use")
        .unwrap();
    assert!(
        tool_start.1["content_block"]["id"]
            .as_str()
            .unwrap()
            .starts_with("toolu_")
    );
    let stop = events
        .iter()
        .find(|(name, _)| name == "message_delta")
        .unwrap();
    assert_eq!(stop.1["delta"]["stop_reason"], "tool_use");

    assert_eq!(second.status, 200);
    assert_eq!(second.streamed_text(), "two");
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].prompt_text().as_deref(), Some("first"));
    assert_eq!(requests[1].matched_rule, Some(1));
}

#[tokio::test]
async fn scripted_errors_and_rule_limits_apply_in_order() {
    let mock = MockApi::start(vec![
        Rule::always(Reply::overloaded()).once(),
        Rule::on_request(2, Reply::unauthorized()),
        Rule::on_tool_result_containing("done", Reply::text("saw the result")),
    ]);
    let mut connection = BufReader::new(mock.connect());

    let overloaded = post(&mut connection, &messages_body("x")).await;
    let unauthorized = post(&mut connection, &messages_body("x")).await;
    let tool_turn = json!({"model": "m", "stream": false, "messages": [
        {"role": "user", "content": "x"},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": [{"type": "text", "text": "all done"}]}]}]});
    let answered = post(&mut connection, &tool_turn.to_string()).await;
    let unmatched = post(&mut connection, &messages_body("x")).await;

    assert_eq!(overloaded.status, 529);
    assert_eq!(overloaded.header("x-should-retry"), Some("false"));
    let error: Value = serde_json::from_str(&overloaded.body).unwrap();
    assert_eq!(error["error"]["type"], "overloaded_error");
    assert_eq!(unauthorized.status, 401);
    let message: Value = serde_json::from_str(&answered.body).unwrap();
    assert_eq!(message["content"][0]["text"], "saw the result");
    assert_eq!(unmatched.streamed_text(), "mock: no rule matched");
    assert_eq!(mock.last_tool_result_text().as_deref(), Some("all done"));
    assert!(mock.any_request_contains("all done"));
    assert!(!mock.any_request_contains("never sent"));
}

#[tokio::test]
async fn other_endpoints_get_404_and_are_logged() {
    let mock = MockApi::start(Vec::new());
    let mut connection = BufReader::new(mock.connect());
    let request = "GET /v1/models HTTP/1.1\r\nhost: x\r\n\r\n";
    connection
        .get_mut()
        .write_all(request.as_bytes())
        .await
        .unwrap();

    let response = read_response(&mut connection).await;

    assert_eq!(response.status, 404);
    assert_eq!(mock.other_requests(), ["GET /v1/models"]);
    assert!(mock.requests().is_empty());
}

#[tokio::test]
async fn a_stalled_stream_stops_after_the_given_events_and_waits() {
    let mock = MockApi::start(vec![Rule::always(
        Reply::text("never finished").stall_after(3),
    )]);
    let mut connection = BufReader::new(mock.connect());
    let body = messages_body("x");
    let request = format!(
        "POST /v1/messages HTTP/1.1\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    connection
        .get_mut()
        .write_all(request.as_bytes())
        .await
        .unwrap();

    let mut received = String::new();
    let read_more = async {
        let mut buffer = [0u8; 4096];
        loop {
            let read = connection.read(&mut buffer).await.unwrap();
            received.push_str(&String::from_utf8_lossy(&buffer[..read]));
        }
    };
    let _ = tokio::time::timeout(Duration::from_millis(500), read_more).await;

    assert!(received.contains("content_block_start"), "{received}");
    assert!(!received.contains("content_block_delta"), "{received}");
    assert!(!received.contains("message_stop"), "{received}");
}

// Linux-only: network namespaces are Linux's.
#[cfg(target_os = "linux")]
#[tokio::test]
#[ignore = "needs CAP_SYS_ADMIN for a network namespace (root: .ci/test runs it)"]
async fn processes_reach_the_mock_but_not_the_host_network() {
    let mock = MockApi::start(Vec::new());
    let env = ClaudeEnv::new(&mock);
    if let Some(why) = mock.no_net_reason() {
        panic!(
            "no private network namespace for the real-CLI tests ({why}); they need CAP_SYS_ADMIN \
             (run as root, or in a container allowed to create network namespaces)"
        );
    }
    assert!(
        env.network_isolated(),
        "the mock has a namespace, claude must run in it"
    );
    let host_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let host_port = host_listener.local_addr().unwrap().port();
    let mock_port = mock.base_url().rsplit(':').next().unwrap().to_string();
    let probe = |port: String| {
        let mut command = env.command("bash");
        command
            .arg("-c")
            .arg(format!("exec 3<>/dev/tcp/127.0.0.1/{port}"));
        command.output()
    };

    let to_mock = probe(mock_port).await.unwrap();
    let to_host = probe(host_port.to_string()).await.unwrap();

    assert!(
        to_mock.status.success(),
        "{}",
        String::from_utf8_lossy(&to_mock.stderr)
    );
    assert!(
        !to_host.status.success(),
        "the host's loopback must be out of reach"
    );
}
