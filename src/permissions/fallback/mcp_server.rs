//! The per-session MCP permission server: streamable HTTP on 127.0.0.1 (random port), reachable only
//! with the session's secret bearer token, serving the one permission tool claude calls when it is
//! started with `--permission-prompt-tool mcp__claude-acp__permission`.
//!
//! Why a token: any local process can connect to a loopback port, and this server grants tool
//! permissions. Every request must carry `Authorization: Bearer <token>` (claude sends it from the
//! `headers` of our `--mcp-config` entry); anything else gets 401 before rmcp sees it.

use std::convert::Infallible;
use std::fmt;
use std::net::TcpListener as StdTcpListener;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::mcp_tool::{PERMISSION_TOOL, PermissionCallback, PermissionTool};
use crate::claude::wire::{McpServerConfig, PERMISSION_SERVER_NAME};

/// Why the MCP permission server could not start.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("cannot listen for the MCP permission server on 127.0.0.1: {0}")]
    Listen(std::io::Error),
    #[error("cannot draw the MCP permission server's token from the OS random source: {0}")]
    Random(getrandom::Error),
}

/// How long claude waits for one answer (ms), set per server in our `--mcp-config` entry. claude
/// applies its MCP tool-call timeout (`MCP_TOOL_TIMEOUT`) to the permission tool too, and an ask
/// waits for a person. A day, and below the 2^31 ms where JavaScript timers misfire.
pub const PERMISSION_WAIT_MS: u64 = 24 * 60 * 60 * 1000;

/// The path the MCP endpoint is served at.
const ENDPOINT_PATH: &str = "/mcp";

/// A running permission server; it stops when dropped.
pub struct PermissionServer {
    url: String,
    token: String,
    shutdown: CancellationToken,
}

impl fmt::Debug for PermissionServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The token is a credential: never print it.
        f.debug_struct("PermissionServer")
            .field("url", &self.url)
            .field("token", &"<redacted>")
            .finish()
    }
}

impl PermissionServer {
    /// Starts a server on 127.0.0.1 (random port). Must be called inside a tokio runtime.
    pub fn start(callback: PermissionCallback) -> Result<PermissionServer, McpError> {
        let listener = StdTcpListener::bind("127.0.0.1:0").map_err(McpError::Listen)?;
        Self::start_on(listener, callback)
    }

    /// Starts a server on a listener bound by the caller (e.g. inside another network namespace:
    /// a socket belongs to the namespace of the thread that created it).
    pub fn start_on(
        listener: StdTcpListener,
        callback: PermissionCallback,
    ) -> Result<PermissionServer, McpError> {
        listener.set_nonblocking(true).map_err(McpError::Listen)?;
        let address = listener.local_addr().map_err(McpError::Listen)?;
        let listener = TcpListener::from_std(listener).map_err(McpError::Listen)?;
        let token = new_token().map_err(McpError::Random)?;
        let shutdown = CancellationToken::new();
        // SSE replies with keep-alive pings: an ask can wait minutes for the user, longer than
        // an HTTP client would wait for response headers or an idle body.
        let config = StreamableHttpServerConfig::default()
            .with_sse_keep_alive(Some(Duration::from_secs(15)))
            .with_cancellation_token(shutdown.child_token());
        let service = StreamableHttpService::new(
            move || {
                Ok(PermissionTool {
                    callback: Arc::clone(&callback),
                })
            },
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let gate = Arc::new(TokenGate {
            expected: format!("Bearer {token}"),
            service,
        });
        tokio::spawn(accept_loop(listener, gate, shutdown.clone()));
        let url = format!("http://{address}{ENDPOINT_PATH}");
        tracing::debug!(%url, "MCP permission server listening");
        Ok(PermissionServer {
            url,
            token,
            shutdown,
        })
    }

    /// `http://127.0.0.1:<port>/mcp`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The secret every request must carry as `Authorization: Bearer <token>`.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Our entry for `--mcp-config`:
    /// `("claude-acp", {"type":"http","url":..,"headers":{"Authorization":..},"timeout":..})`.
    pub fn mcp_config_entry(&self) -> (String, McpServerConfig) {
        (
            PERMISSION_SERVER_NAME.to_owned(),
            McpServerConfig::Http {
                url: self.url.clone(),
                headers: [("Authorization".to_owned(), format!("Bearer {}", self.token))].into(),
                timeout: Some(PERMISSION_WAIT_MS),
            },
        )
    }

    /// The value for `--permission-prompt-tool`: `mcp__claude-acp__permission`.
    pub fn tool_name(&self) -> String {
        format!("mcp__{PERMISSION_SERVER_NAME}__{PERMISSION_TOOL}")
    }
}

impl Drop for PermissionServer {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// The per-session secret: 256 bits from the OS random source, as 64 hex digits.
fn new_token() -> Result<String, getrandom::Error> {
    let mut bits = [0u8; 32];
    getrandom::fill(&mut bits)?;
    Ok(bits.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// Refuses every request without the session's token, hands the rest to rmcp.
struct TokenGate {
    expected: String,
    service: StreamableHttpService<PermissionTool, LocalSessionManager>,
}

type Body = BoxBody<Bytes, Infallible>;

impl TokenGate {
    async fn handle(&self, request: Request<Incoming>) -> Response<Body> {
        let presented = request
            .headers()
            .get(hyper::header::AUTHORIZATION)
            .map(|value| value.as_bytes());
        if !presented.is_some_and(|p| constant_time_eq(p, self.expected.as_bytes())) {
            tracing::warn!(
                method = %request.method(),
                path = request.uri().path(),
                with_token = presented.is_some(),
                "refused a request to the MCP permission server without the session token"
            );
            return plain(StatusCode::UNAUTHORIZED, "unauthorized\n");
        }
        if request.uri().path() != ENDPOINT_PATH {
            return plain(StatusCode::NOT_FOUND, "not found\n");
        }
        self.service.handle(request).await
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain"),
    );
    response
}

/// Compares without an early exit, so the time taken says nothing about the token.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn accept_loop(listener: TcpListener, gate: Arc<TokenGate>, shutdown: CancellationToken) {
    loop {
        let stream = tokio::select! {
            () = shutdown.cancelled() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    tracing::debug!("MCP permission server: accept failed: {error}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let gate = Arc::clone(&gate);
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let gate = Arc::clone(&gate);
                async move { Ok::<_, Infallible>(gate.handle(request).await) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                result = connection => {
                    if let Err(error) = result {
                        tracing::debug!("MCP permission server: connection ended: {error}");
                    }
                }
                () = shutdown.cancelled() => {}
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claude::wire::PermissionDecision;

    #[test]
    fn tokens_are_long_random_and_distinct() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_eq!(a.len(), 64);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn token_comparison_needs_every_byte() {
        assert!(constant_time_eq(b"Bearer abc", b"Bearer abc"));
        assert!(!constant_time_eq(b"Bearer abd", b"Bearer abc"));
        assert!(!constant_time_eq(b"Bearer ab", b"Bearer abc"));
        assert!(!constant_time_eq(b"", b"Bearer abc"));
    }

    #[tokio::test]
    async fn the_config_entry_points_claude_at_the_server_with_its_token() {
        let callback: PermissionCallback = Arc::new(|_call| {
            Box::pin(async {
                PermissionDecision::Deny {
                    message: "unused".into(),
                    interrupt: false,
                }
            })
        });
        let server = PermissionServer::start(callback).unwrap();
        let (name, entry) = server.mcp_config_entry();
        let entry = serde_json::to_value(entry).unwrap();
        assert_eq!(name, "claude-acp");
        assert_eq!(entry["type"], "http");
        assert_eq!(entry["url"], server.url());
        assert!(server.url().starts_with("http://127.0.0.1:"));
        assert_eq!(
            entry["headers"]["Authorization"],
            format!("Bearer {}", server.token())
        );
        assert_eq!(entry["timeout"], PERMISSION_WAIT_MS);
        assert_eq!(server.tool_name(), "mcp__claude-acp__permission");
        assert!(!format!("{server:?}").contains(server.token()));
    }

    #[tokio::test]
    async fn dropping_the_server_closes_its_port() {
        let callback: PermissionCallback = Arc::new(|call| {
            Box::pin(async move {
                PermissionDecision::Allow {
                    updated_input: call.input,
                    updated_permissions: vec![],
                }
            })
        });
        let server = PermissionServer::start(callback).unwrap();
        let address = server.url()["http://".len()..]
            .trim_end_matches(ENDPOINT_PATH)
            .to_owned();
        tokio::net::TcpStream::connect(&address)
            .await
            .expect("listening");
        drop(server);
        let mut refused = false;
        for _ in 0..50 {
            if tokio::net::TcpStream::connect(&address).await.is_err() {
                refused = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(refused, "the port is still open after drop");
    }
}
