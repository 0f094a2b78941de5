//! Just enough HTTP/1.1 for the mock API: read one request (Content-Length or chunked body, keep-alive),
//! write a JSON response or a chunked response piece by piece.

use std::io;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Largest request head or body the mock accepts; claude's requests are a few hundred KiB at most.
const MAX_BYTES: usize = 64 * 1024 * 1024;

/// One parsed HTTP request.
#[derive(Debug)]
pub struct HttpRequest {
    pub method: String,
    /// Path and query string, e.g. `/v1/messages?beta=true`.
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpRequest {
    /// First header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The path without its query string.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    /// Whether the client asked to close the connection after this request.
    pub fn wants_close(&self) -> bool {
        self.header("connection")
            .is_some_and(|value| value.eq_ignore_ascii_case("close"))
    }
}

/// Reads the next request; `Ok(None)` when the client closed the connection between requests.
///
/// `writer` is needed only to answer `Expect: 100-continue` before the body is sent.
pub async fn read_request<R, W>(reader: &mut R, writer: &mut W) -> io::Result<Option<HttpRequest>>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut request_line = String::new();
    // Tolerate stray empty lines between requests (RFC 9112 section 2.2).
    loop {
        request_line.clear();
        if reader.read_line(&mut request_line).await? == 0 {
            return Ok(None);
        }
        if !request_line.trim().is_empty() {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Err(invalid(format!("bad request line {request_line:?}")));
    };
    let mut request = HttpRequest {
        method: method.to_string(),
        target: target.to_string(),
        headers: Vec::new(),
        body: Vec::new(),
    };
    loop {
        let line = read_crlf_line(reader).await?;
        if line.is_empty() {
            break;
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| invalid(format!("bad header line {line:?}")))?;
        request
            .headers
            .push((name.trim().to_string(), value.trim().to_string()));
    }
    if request
        .header("expect")
        .is_some_and(|value| value.eq_ignore_ascii_case("100-continue"))
    {
        writer.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").await?;
    }
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|value| value.to_ascii_lowercase().contains("chunked"));
    request.body = if chunked {
        read_chunked_body(reader).await?
    } else {
        let length: usize = match request.header("content-length") {
            Some(value) => value
                .parse()
                .map_err(|_| invalid(format!("bad content-length {value:?}")))?,
            None => 0,
        };
        if length > MAX_BYTES {
            return Err(invalid(format!("body of {length} bytes is too large")));
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).await?;
        body
    };
    Ok(Some(request))
}

async fn read_chunked_body<R: AsyncBufRead + Unpin>(reader: &mut R) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let size_line = read_crlf_line(reader).await?;
        let size_text = size_line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| invalid(format!("bad chunk size {size_line:?}")))?;
        if size == 0 {
            // Trailers, up to the empty line that ends the body.
            while !read_crlf_line(reader).await?.is_empty() {}
            return Ok(body);
        }
        if body.len() + size > MAX_BYTES {
            return Err(invalid("chunked body is too large".to_string()));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..]).await?;
        read_crlf_line(reader).await?;
    }
}

async fn read_crlf_line<R: AsyncBufRead + Unpin>(reader: &mut R) -> io::Result<String> {
    let mut line = String::new();
    if reader.read_line(&mut line).await? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "connection closed inside a request",
        ));
    }
    Ok(line.trim_end_matches(['\r', '\n']).to_string())
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}

fn head(status: u16, headers: &[(&str, String)]) -> String {
    let mut text = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text
}

/// Writes a complete response with a JSON body.
pub async fn write_json<W: AsyncWrite + Unpin>(
    writer: &mut W,
    status: u16,
    headers: &[(&str, String)],
    body: &serde_json::Value,
    close: bool,
) -> io::Result<()> {
    let body = body.to_string();
    let mut text = head(status, headers);
    text.push_str("content-type: application/json\r\n");
    text.push_str(&format!("content-length: {}\r\n", body.len()));
    if close {
        text.push_str("connection: close\r\n");
    }
    text.push_str("\r\n");
    text.push_str(&body);
    writer.write_all(text.as_bytes()).await?;
    writer.flush().await
}

/// Starts a chunked response (so the connection can be kept alive after it).
pub async fn start_chunked<W: AsyncWrite + Unpin>(
    writer: &mut W,
    status: u16,
    headers: &[(&str, String)],
) -> io::Result<()> {
    let mut text = head(status, headers);
    text.push_str("transfer-encoding: chunked\r\n\r\n");
    writer.write_all(text.as_bytes()).await?;
    writer.flush().await
}

/// Writes one chunk of a chunked response and flushes it, so the client sees it now.
pub async fn write_chunk<W: AsyncWrite + Unpin>(writer: &mut W, data: &[u8]) -> io::Result<()> {
    if data.is_empty() {
        return Ok(());
    }
    let mut frame = format!("{:x}\r\n", data.len()).into_bytes();
    frame.extend_from_slice(data);
    frame.extend_from_slice(b"\r\n");
    writer.write_all(&frame).await?;
    writer.flush().await
}

/// Ends a chunked response.
pub async fn finish_chunked<W: AsyncWrite + Unpin>(writer: &mut W) -> io::Result<()> {
    writer.write_all(b"0\r\n\r\n").await?;
    writer.flush().await
}
