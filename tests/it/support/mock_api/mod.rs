//! A scripted mock of the Anthropic Messages API for running the real claude CLI offline.
//!
//! It listens on 127.0.0.1 (random port) inside a private loopback-only network namespace when the
//! machine allows it (see [`crate::support::netns`]), answers `POST /v1/messages` from the test's
//! [`Rule`]s as server-sent events, `GET /v1/models` with the listing a test set
//! ([`MockApi::serve_model_listing`]), records every request, and answers anything else with 404.
//! It runs on its own thread and runtime, so it works under any test runtime, and stops when dropped.

mod http;
mod request;
mod script;
mod sse;

use std::net::TcpListener as StdTcpListener;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWrite, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, watch};

pub use request::{ApiRequest, ToolResult};
pub use script::{Block, ErrorReply, MessageReply, Reply, Rule};

use super::netns::IsolatedNet;
use http::HttpRequest;
use sse::MessageContext;

/// The text of the reply sent when no rule matches, so a missing rule shows up in the transcript.
pub const NO_RULE_MATCHED: &str = "mock: no rule matched";

/// Set to `off` to keep the mock (and claude) on the host's loopback instead of a private namespace.
const NETNS_SWITCH: &str = "CLAUDE_ACP_TEST_NETNS";

struct State {
    rules: Vec<Rule>,
    requests: Vec<ApiRequest>,
    other_requests: Vec<String>,
    /// The status and body `GET /v1/models` answers; `None`: 404, like any unknown endpoint.
    model_listing: Option<(u16, Value)>,
    listing_requests: Vec<ApiRequest>,
}

struct Shared {
    state: Mutex<State>,
    request_count: watch::Sender<usize>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking test thread must not hide the recorded requests from the others.
        self.state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

/// A running mock API. Dropping it stops the server.
pub struct MockApi {
    base_url: String,
    net: Option<IsolatedNet>,
    /// Why there is no private network namespace, when there is none.
    no_net_reason: Option<String>,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl MockApi {
    /// Starts a mock that answers with `rules` (first match wins; see [`NO_RULE_MATCHED`]).
    pub fn start(rules: Vec<Rule>) -> MockApi {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                rules,
                requests: Vec::new(),
                other_requests: Vec::new(),
                model_listing: None,
                listing_requests: Vec::new(),
            }),
            request_count: watch::channel(0).0,
        });
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = oneshot::channel();
        let server_shared = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("mock-api".to_string())
            .spawn(move || {
                let (net, no_net_reason) = match enter_private_network() {
                    Ok(net) => (Some(net), None),
                    Err(why) => (None, Some(why)),
                };
                let listener = StdTcpListener::bind("127.0.0.1:0")
                    .and_then(|l| l.set_nonblocking(true).map(|()| l))
                    .expect("mock API: cannot bind 127.0.0.1");
                let port = listener
                    .local_addr()
                    .expect("mock API: local address")
                    .port();
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("mock API: tokio runtime");
                ready_tx
                    .send((port, net, no_net_reason))
                    .expect("mock API: starter gone");
                runtime.block_on(async move {
                    let listener = TcpListener::from_std(listener).expect("mock API: listener");
                    tokio::select! {
                        () = accept_loop(listener, server_shared) => {}
                        _ = stop_rx => {}
                    }
                });
            })
            .expect("mock API: spawn thread");
        let (port, net, no_net_reason) = ready_rx
            .recv()
            .expect("mock API: server thread failed to start");
        MockApi {
            base_url: format!("http://127.0.0.1:{port}"),
            net,
            no_net_reason,
            shared,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:<port>`, for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The private network namespace the mock listens in; `None` when it runs on the host loopback.
    /// Processes that must reach the mock have to be spawned into it (`ClaudeEnv` does this).
    pub fn net(&self) -> Option<&IsolatedNet> {
        self.net.as_ref()
    }

    /// Why the mock runs on the host loopback instead of a private namespace; `None` when it has one.
    pub fn no_net_reason(&self) -> Option<&str> {
        self.no_net_reason.as_deref()
    }

    /// A TCP connection to the mock, opened inside its namespace (for tests of the mock itself).
    pub fn connect(&self) -> tokio::net::TcpStream {
        let address = self.base_url.trim_start_matches("http://").to_string();
        let connect = move || std::net::TcpStream::connect(address);
        let stream = match &self.net {
            Some(net) => net.run_inside(connect).and_then(|connected| connected),
            None => connect(),
        }
        .expect("connect to the mock API");
        stream.set_nonblocking(true).expect("non-blocking stream");
        tokio::net::TcpStream::from_std(stream).expect("tokio stream")
    }

    /// Appends a rule (tried after the existing ones).
    pub fn push_rule(&self, rule: Rule) {
        self.shared.lock().rules.push(rule);
    }

    /// Answers `GET /v1/models` (any page) with `status` and `body` from now on.
    pub fn serve_model_listing(&self, status: u16, body: Value) {
        self.shared.lock().model_listing = Some((status, body));
    }

    /// Every `GET /v1/models` request answered from the listing set, in order.
    pub fn listing_requests(&self) -> Vec<ApiRequest> {
        self.shared.lock().listing_requests.clone()
    }

    /// Every `/v1/messages` request received so far, in order.
    pub fn requests(&self) -> Vec<ApiRequest> {
        self.shared.lock().requests.clone()
    }

    /// `METHOD target` of every other request (answered 404).
    pub fn other_requests(&self) -> Vec<String> {
        self.shared.lock().other_requests.clone()
    }

    /// Text of the last tool_result that reached the model (joined with newlines if a request had several).
    pub fn last_tool_result_text(&self) -> Option<String> {
        self.requests().iter().rev().find_map(|request| {
            let results = request.tool_results();
            (!results.is_empty()).then(|| {
                results
                    .iter()
                    .map(|r| r.text.as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        })
    }

    /// Whether any request body has a string containing `text`.
    pub fn any_request_contains(&self, text: &str) -> bool {
        self.requests().iter().any(|request| request.contains(text))
    }

    /// Waits until at least `count` `/v1/messages` requests arrived; panics after `timeout`.
    pub async fn wait_for_requests(&self, count: usize, timeout: Duration) -> Vec<ApiRequest> {
        let mut seen = self.shared.request_count.subscribe();
        let reached = tokio::time::timeout(timeout, seen.wait_for(|n| *n >= count)).await;
        if reached.is_err() {
            panic!(
                "mock API: expected {count} requests within {timeout:?}, got {}",
                self.requests().len()
            );
        }
        self.requests()
    }
}

impl Drop for MockApi {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Moves the server thread into a private loopback-only namespace, unless that is off or impossible.
fn enter_private_network() -> Result<IsolatedNet, String> {
    if std::env::var(NETNS_SWITCH).is_ok_and(|v| v == "off") {
        return Err(format!("switched off by {NETNS_SWITCH}=off"));
    }
    match IsolatedNet::enter_on_this_thread() {
        Ok(net) => Ok(net),
        Err(error) => {
            eprintln!(
                "mock API: no private network namespace ({error}); claude will use the host \
                 loopback with ANTHROPIC_BASE_URL and the DISABLE_* variables only"
            );
            Err(format!(
                "unshare(CLONE_NEWNET) or bringing lo up failed: {error}"
            ))
        }
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                tokio::spawn(serve_connection(stream, Arc::clone(&shared)));
            }
            Err(error) => {
                eprintln!("mock API: accept failed: {error}");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
}

async fn serve_connection(stream: TcpStream, shared: Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    let (reader, mut writer) = stream.into_split();
    let mut reader = BufReader::new(reader);
    loop {
        let request = match http::read_request(&mut reader, &mut writer).await {
            Ok(Some(request)) => request,
            Ok(None) => return,
            Err(error) => {
                eprintln!("mock API: dropping connection: {error}");
                return;
            }
        };
        let close = request.wants_close();
        match answer(request, &shared, &mut reader, &mut writer).await {
            Ok(true) if !close => {}
            Ok(_) => return,
            Err(error) => {
                // Usually claude hung up mid-stream (an interrupt); nothing to answer any more.
                eprintln!("mock API: connection ended while answering: {error}");
                return;
            }
        }
    }
}

/// Answers one request; `Ok(false)` when the connection must close afterwards.
async fn answer<R, W>(
    request: HttpRequest,
    shared: &Shared,
    reader: &mut R,
    writer: &mut W,
) -> std::io::Result<bool>
where
    R: AsyncReadExt + Unpin,
    W: AsyncWrite + Unpin,
{
    if request.method == "GET" && request.path() == "/v1/models" {
        let listing = {
            let mut state = shared.lock();
            let listing = state.model_listing.clone();
            if listing.is_some() {
                let n = state.listing_requests.len() + 1;
                state.listing_requests.push(ApiRequest {
                    n,
                    method: request.method.clone(),
                    target: request.target.clone(),
                    headers: request.headers.clone(),
                    body: Value::Null,
                    matched_rule: None,
                });
            }
            listing
        };
        if let Some((status, body)) = listing {
            http::write_json(writer, status, &[], &body, false).await?;
            return Ok(true);
        }
    }
    // Under any prefix: a test can send claude's requests to "another" URL of the same mock
    // (`ApiRequest::target` tells which).
    if request.method != "POST" || !request.path().ends_with("/v1/messages") {
        let line = format!("{} {}", request.method, request.target);
        eprintln!("mock API: unexpected request {line}, answered 404");
        shared.lock().other_requests.push(line);
        let body = json!({"type": "error", "error": {"type": "not_found_error",
                          "message": "mock API: no such endpoint"}});
        http::write_json(writer, 404, &[], &body, false).await?;
        return Ok(true);
    }
    let body: Value = match serde_json::from_slice(&request.body) {
        Ok(body) => body,
        Err(error) => {
            let body = json!({"type": "error", "error": {"type": "invalid_request_error",
                              "message": format!("mock API: body is not JSON: {error}")}});
            http::write_json(writer, 400, &[], &body, false).await?;
            return Ok(true);
        }
    };
    let input_tokens = request.body.len() as u64 / 4;
    let (recorded, reply) = record_and_choose(shared, request, body);
    let request_id = format!("req_mock_{}", uuid::Uuid::new_v4().simple());
    let headers = [("request-id", request_id)];
    let message = match reply {
        Reply::Error(error) => {
            let mut headers = headers.to_vec();
            if !error.retryable {
                headers.push(("x-should-retry", "false".to_string()));
            }
            for (name, value) in &error.headers {
                headers.push((name.as_str(), value.clone()));
            }
            let body = json!({"type": "error", "error": {"type": error.error_type,
                              "message": error.message}});
            http::write_json(writer, error.status, &headers, &body, false).await?;
            return Ok(true);
        }
        Reply::Message(message) => message,
    };
    let message_id = format!(
        "msg_mock_{}",
        &uuid::Uuid::new_v4().simple().to_string()[..20]
    );
    let context = MessageContext {
        message_id: &message_id,
        model: recorded.body["model"].as_str().unwrap_or("claude-mock"),
        input_tokens,
    };
    if recorded.body["stream"] != true {
        let body = sse::full_message(&message, &context);
        http::write_json(writer, 200, &headers, &body, false).await?;
        return Ok(true);
    }
    let mut headers = headers.to_vec();
    for (name, value) in &message.headers {
        headers.push((name.as_str(), value.clone()));
    }
    headers.push(("content-type", "text/event-stream".to_string()));
    headers.push(("cache-control", "no-cache".to_string()));
    http::start_chunked(writer, 200, &headers).await?;
    for (sent, event) in sse::stream_events(&message, &context).iter().enumerate() {
        if message.stall_after_events == Some(sent) {
            wait_until_client_closes(reader).await;
            return Ok(false);
        }
        http::write_chunk(writer, event.to_wire().as_bytes()).await?;
        if event.is_delta && !message.chunk_delay.is_zero() {
            tokio::time::sleep(message.chunk_delay).await;
        }
    }
    http::finish_chunked(writer).await?;
    Ok(true)
}

/// Numbers and records the request, picks the first available matching rule (or the default reply).
fn record_and_choose(shared: &Shared, request: HttpRequest, body: Value) -> (ApiRequest, Reply) {
    let mut state = shared.lock();
    let mut recorded = ApiRequest {
        n: state.requests.len() + 1,
        method: request.method,
        target: request.target,
        headers: request.headers,
        body,
        matched_rule: None,
    };
    let chosen = state
        .rules
        .iter()
        .position(|rule| rule.is_available() && (rule.predicate)(&recorded));
    let reply = match chosen {
        Some(index) => {
            let rule = &mut state.rules[index];
            rule.uses += 1;
            recorded.matched_rule = Some(index);
            rule.reply.clone()
        }
        None => {
            eprintln!(
                "mock API: no rule matched request #{} (prompt {:?}, tool results {:?})",
                recorded.n,
                recorded.prompt_text(),
                recorded.tool_results()
            );
            Reply::text(NO_RULE_MATCHED)
        }
    };
    state.requests.push(recorded.clone());
    shared.request_count.send_replace(state.requests.len());
    (recorded, reply)
}

/// Holds a stalled stream open until claude gives up on it (interrupt, exit).
async fn wait_until_client_closes<R: AsyncReadExt + Unpin>(reader: &mut R) {
    let mut buffer = [0u8; 1024];
    while let Ok(read) = reader.read(&mut buffer).await {
        if read == 0 {
            return;
        }
    }
}
