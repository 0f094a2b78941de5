//! The listing's GET for real: hyper's client for an `http://` gateway, the system's `curl` for
//! an `https://` one.
//!
//! Why curl for https: claude-acp compiles in no TLS stack. A C one (OpenSSL, aws-lc, ring's
//! assembly) would break the static musl build and the macOS and Windows cross-checks, and a
//! pure-Rust one would still not see what gateways behind a corporate CA need: the system's
//! trust store and its proxy settings (`HTTPS_PROXY`, `NO_PROXY`), which curl honours as the
//! system configures them. curl is fed its URL and headers on stdin (`--config -`), so no header
//! value reaches its argv, and `-q` keeps a user's `.curlrc` from changing the request. One
//! listing per `providers/set` makes the process start irrelevant. Plain http (a local gateway,
//! the tests' mock API) needs no TLS and no curl.

use std::process::Stdio;

use http_body_util::BodyExt;
use tokio::io::AsyncWriteExt;

use super::{Answer, Get, LISTING_TIMEOUT};

/// More than any model listing; a gateway sending more is cut off with an error.
const MAX_BODY_BYTES: usize = 8 << 20;

/// The real GET: see the module's doc.
pub(crate) struct SystemHttp;

impl Get for SystemHttp {
    async fn get(&self, url: &str, headers: &[(String, String)]) -> Result<Answer, String> {
        if url.starts_with("http://") {
            plain_get(url, headers).await
        } else if url.starts_with("https://") {
            curl_get(url, headers).await
        } else {
            Err("has a URL that is neither http nor https".into())
        }
    }
}

async fn plain_get(url: &str, headers: &[(String, String)]) -> Result<Answer, String> {
    let uri: hyper::Uri = url.parse().map_err(|_| "has an invalid URL".to_owned())?;
    let host = uri.host().ok_or("has a URL without a host")?;
    let authority = uri.authority().map(|a| a.as_str().to_owned());
    let port = uri.port_u16().unwrap_or(80);
    let stream = tokio::net::TcpStream::connect((host.trim_matches(['[', ']']), port))
        .await
        .map_err(|e| e.to_string())?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
    // Ends with the request: the guard aborts it however this function returns.
    let connection = AbortOnDrop(tokio::spawn(connection));
    let mut request = hyper::Request::get(uri.path_and_query().map_or("/", |p| p.as_str()));
    if let Some(authority) = authority {
        request = request.header(hyper::header::HOST, authority);
    }
    for (name, value) in headers {
        request = request.header(name.as_str(), value.as_str());
    }
    // The headers were checked before: an error here names no value.
    let request = request
        .body(http_body_util::Empty::<bytes::Bytes>::new())
        .map_err(|_| "cannot be built".to_owned())?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let body = http_body_util::Limited::new(response.into_body(), MAX_BODY_BYTES)
        .collect()
        .await
        .map_err(|e| format!("broke off: {e}"))?
        .to_bytes();
    drop(connection);
    Ok(Answer {
        status,
        body: body.to_vec(),
    })
}

struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What `curl` prints after the body: a line with the status, which the body cannot end with.
const STATUS_MARK: &str = "\ncurl-status:";

async fn curl_get(url: &str, headers: &[(String, String)]) -> Result<Answer, String> {
    let mut child = tokio::process::Command::new("curl")
        .args(["-q", "--config", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("needs curl for an https URL, which did not start: {e}"))?;
    let config = curl_config(url, headers);
    let mut stdin = child.stdin.take().ok_or("lost curl's stdin")?;
    stdin
        .write_all(config.as_bytes())
        .await
        .map_err(|e| format!("could not give curl its request: {e}"))?;
    drop(stdin);
    let output = child
        .wait_with_output()
        .await
        .map_err(|e| format!("lost curl: {e}"))?;
    if !output.status.success() {
        let said = String::from_utf8_lossy(&output.stderr);
        return Err(said.trim().to_owned());
    }
    curl_answer(&output.stdout).ok_or_else(|| "got no status from curl".to_owned())
}

/// curl's configuration for the GET: every value quoted, so nothing in it starts another option.
fn curl_config(url: &str, headers: &[(String, String)]) -> String {
    let mut config = format!(
        "url = {}\nproto = \"=https\"\nsilent\nshow-error\nmax-time = {}\nmax-filesize = {}\n\
         write-out = {}\n",
        curl_quoted(url),
        LISTING_TIMEOUT.as_secs(),
        MAX_BODY_BYTES,
        curl_quoted(&format!("{STATUS_MARK}%{{http_code}}")),
    );
    for (name, value) in headers {
        config.push_str(&format!(
            "header = {}\n",
            curl_quoted(&format!("{name}: {value}"))
        ));
    }
    config
}

/// A curl config string: in double quotes, with `\`, `"` and line breaks escaped.
fn curl_quoted(value: &str) -> String {
    let mut quoted = String::with_capacity(value.len() + 2);
    quoted.push('"');
    for c in value.chars() {
        match c {
            '\\' => quoted.push_str("\\\\"),
            '"' => quoted.push_str("\\\""),
            '\n' => quoted.push_str("\\n"),
            '\r' => quoted.push_str("\\r"),
            '\t' => quoted.push_str("\\t"),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// The body and status curl printed.
fn curl_answer(stdout: &[u8]) -> Option<Answer> {
    let mark = STATUS_MARK.as_bytes();
    let at = stdout.windows(mark.len()).rposition(|w| w == mark)?;
    let status = std::str::from_utf8(&stdout[at + mark.len()..])
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(Answer {
        status,
        body: stdout[..at].to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curl_s_config_quotes_every_value_so_no_header_starts_an_option_of_its_own() {
        let config = curl_config(
            "https://gw.example/v1/models?limit=1000",
            &[("X-Key".into(), "a\"b\\c\nurl = \"https://evil\"".into())],
        );
        assert!(config.starts_with("url = \"https://gw.example/v1/models?limit=1000\"\n"));
        assert!(
            config.contains("header = \"X-Key: a\\\"b\\\\c\\nurl = \\\"https://evil\\\"\"\n"),
            "{config}"
        );
        assert_eq!(config.lines().filter(|l| l.starts_with("url =")).count(), 1);
    }

    #[test]
    fn curl_s_output_is_the_body_then_the_status() {
        let answer = curl_answer(b"{\"data\":[]}\ncurl-status:200").unwrap();
        assert_eq!(answer.status, 200);
        assert_eq!(answer.body, b"{\"data\":[]}");
        assert!(curl_answer(b"no status").is_none());
    }

    /// A machine with Rust and npm may lack curl: `.ci/test` installs it and runs this test.
    #[test]
    #[ignore = "needs curl"]
    fn curl_reads_its_request_from_stdin_and_its_failure_names_no_header_value() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let headers = [("X-Key".to_owned(), "curl-secret-41".to_owned())];
        // Nothing listens on port 9: curl took the configuration and tried the URL.
        let error = runtime
            .block_on(SystemHttp.get("https://127.0.0.1:9/v1/models", &headers))
            .err()
            .expect("no answer from a closed port");
        assert!(error.contains("127.0.0.1"), "{error}");
        assert!(!error.contains("curl-secret-41"), "{error}");
    }
}
