//! The models the editor's gateway serves, listed once when `providers/set` sets it, as the
//! TypeScript adapter lists them: `GET {baseUrl}/v1/models` (Anthropic's listing, page by page)
//! for an `anthropic` gateway, `GET {baseUrl}/foundation-models` (Bedrock's
//! `ListFoundationModels`) for a `bedrock` one, with the gateway's headers and claude's
//! placeholder bearer token, so the gateway sees the same auth as on claude's own requests. A 4xx
//! means the gateway has no listing (nothing is narrowed); a network error, another status, a
//! body that is not a listing or the time limit fail the listing with a message naming the path
//! and the reason, never a header value. The request itself goes through [`Get`].

mod http;
#[cfg(test)]
mod tests;

use std::future::Future;
use std::time::Duration;

use serde_json::Value;

pub(crate) use self::http::SystemHttp;
use crate::domain::{ApiKind, Gateway};

/// The whole listing's limit, every page included.
const LISTING_TIMEOUT: Duration = Duration::from_secs(10);
const ANTHROPIC_PAGE_LIMIT: &str = "1000";
/// A gateway that keeps saying `has_more` is read this far, and what was read is used.
const MAX_PAGES: usize = 20;
const ANTHROPIC_VERSION: &str = "2023-06-01";
/// How much of a failed answer's body its error quotes.
const MAX_QUOTED_BODY_CHARS: usize = 500;

/// The cross-region inference profile prefixes claude knows (`eu.anthropic.claude-sonnet-5`).
const BEDROCK_REGION_PREFIXES: &[&str] = &["us", "eu", "apac", "jp", "au", "us-gov", "global"];

/// What the gateway lists: the model ids, and for Bedrock the one region prefix claude is told
/// (`ANTHROPIC_BEDROCK_REGION_PREFIX`) so that it calls the models under the prefix listed.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Listed {
    pub(crate) ids: Vec<String>,
    pub(crate) region_prefix: Option<String>,
}

/// A listing that failed; its message names the request path and the reason.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ListingError(pub(crate) String);

/// One HTTP answer: its status and body.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) body: Vec<u8>,
}

/// The GET the listing sends: [`SystemHttp`] for real; the tests script the gateway's answers.
/// An `Err` is a request that got no answer (connection refused, a TLS failure), in words that
/// hold no header value.
pub(crate) trait Get {
    fn get(
        &self,
        url: &str,
        headers: &[(String, String)],
    ) -> impl Future<Output = Result<Answer, String>> + Send;
}

/// Lists the models `gateway` serves: `Ok(None)` when it has no listing (a 4xx, or a Vertex
/// gateway, which is not listed), else the ids claude may call through it.
pub(crate) async fn list(
    gateway: &Gateway,
    http: &impl Get,
) -> Result<Option<Listed>, ListingError> {
    let base = gateway.base_url.trim_end_matches('/');
    match gateway.api {
        ApiKind::Vertex => Ok(None),
        ApiKind::Anthropic => {
            let endpoint = format!("{base}/v1/models");
            let headers = listing_headers(gateway, Some(ANTHROPIC_VERSION), &endpoint)?;
            let ids = within_limit(&endpoint, read_pages(&endpoint, &headers, http)).await?;
            Ok(ids.map(|ids| Listed {
                ids,
                region_prefix: None,
            }))
        }
        ApiKind::Bedrock => {
            let endpoint = format!("{base}/foundation-models");
            let headers = listing_headers(gateway, None, &endpoint)?;
            let ids = within_limit(&endpoint, read_bedrock(&endpoint, &headers, http)).await?;
            Ok(ids.map(|ids| {
                let ids: Vec<String> = ids
                    .into_iter()
                    .filter(|id| id.contains("anthropic."))
                    .collect();
                select_bedrock_region(ids)
            }))
        }
    }
}

/// The cross-region prefix of a Bedrock model id or ARN, if it has one.
pub(crate) fn bedrock_region_prefix(model_id: &str) -> Option<&'static str> {
    let id = model_id
        .rsplit('/')
        .next()
        .unwrap_or(model_id)
        .to_lowercase();
    BEDROCK_REGION_PREFIXES
        .iter()
        .copied()
        .find(|prefix| id.starts_with(&format!("{prefix}.anthropic.")))
}

/// The region of the listed Bedrock models: `global` when listed, else the prefix of the first
/// id that has one; the ids of other prefixes (and those without one) are dropped, since claude
/// calls every model under the one prefix. Without any prefix every id is kept.
fn select_bedrock_region(ids: Vec<String>) -> Listed {
    let prefixes: Vec<Option<&str>> = ids.iter().map(|id| bedrock_region_prefix(id)).collect();
    let picked = if prefixes.contains(&Some("global")) {
        Some("global")
    } else {
        prefixes.iter().copied().flatten().next()
    };
    let Some(picked) = picked else {
        return Listed {
            ids,
            region_prefix: None,
        };
    };
    let kept: Vec<String> = ids
        .into_iter()
        .zip(prefixes)
        .filter(|(_, prefix)| *prefix == Some(picked))
        .map(|(id, _)| id)
        .collect();
    Listed {
        ids: kept,
        region_prefix: Some(picked.to_owned()),
    }
}

/// The listing request's headers: claude's placeholder token and the protocol's own, then the
/// gateway's, which win (matched case-insensitively, as claude's custom headers do).
fn listing_headers(
    gateway: &Gateway,
    version: Option<&str>,
    endpoint: &str,
) -> Result<Vec<(String, String)>, ListingError> {
    let path = path_of(endpoint);
    if has_credentials(endpoint) {
        return Err(failure(
            &path,
            "cannot be sent: the base URL carries credentials",
        ));
    }
    let mut headers = vec![
        (
            "authorization".to_owned(),
            format!("Bearer {}", crate::claude::gateway::TOKEN_PLACEHOLDER),
        ),
        ("accept".to_owned(), "application/json".to_owned()),
    ];
    if let Some(version) = version {
        headers.push(("anthropic-version".to_owned(), version.to_owned()));
    }
    for (name, value) in &gateway.headers {
        if !is_header_name(name) || !is_header_value(value) {
            // The name only: the value may be the secret.
            return Err(ListingError(format!(
                "Model listing cannot send the invalid header \"{name}\""
            )));
        }
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        headers.push((name.clone(), value.clone()));
    }
    Ok(headers)
}

/// The Anthropic listing, following `has_more` / `last_id`.
async fn read_pages(
    endpoint: &str,
    headers: &[(String, String)],
    http: &impl Get,
) -> Result<Option<Vec<String>>, ListingError> {
    let mut ids = Vec::new();
    let mut after: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let mut url = format!("{endpoint}?limit={ANTHROPIC_PAGE_LIMIT}");
        if let Some(after) = &after {
            url.push_str("&after_id=");
            url.push_str(&query_encoded(after));
        }
        let Some(page) = read_page(endpoint, &url, headers, http).await? else {
            return Ok(None);
        };
        let data = page
            .get("data")
            .and_then(Value::as_array)
            .ok_or_else(|| failure(&path_of(endpoint), "returned an unexpected body"))?;
        ids.extend(string_field(data, "id"));
        after = match (page.get("has_more"), page.get("last_id")) {
            (Some(Value::Bool(true)), Some(Value::String(last))) => Some(last.clone()),
            _ => return Ok(Some(ids)),
        };
    }
    tracing::info!(
        path = %path_of(endpoint),
        "the gateway's model listing still had more pages after {MAX_PAGES}; using what was read"
    );
    Ok(Some(ids))
}

/// Bedrock's listing: one page of `modelSummaries`.
async fn read_bedrock(
    endpoint: &str,
    headers: &[(String, String)],
    http: &impl Get,
) -> Result<Option<Vec<String>>, ListingError> {
    let Some(page) = read_page(endpoint, endpoint, headers, http).await? else {
        return Ok(None);
    };
    let summaries = page
        .get("modelSummaries")
        .and_then(Value::as_array)
        .ok_or_else(|| failure(&path_of(endpoint), "returned an unexpected body"))?;
    Ok(Some(string_field(summaries, "modelId")))
}

/// One page as JSON; `None` for a 4xx (no listing).
async fn read_page(
    endpoint: &str,
    url: &str,
    headers: &[(String, String)],
    http: &impl Get,
) -> Result<Option<Value>, ListingError> {
    let path = path_of(endpoint);
    let answer = http
        .get(url, headers)
        .await
        .map_err(|reason| failure(&path, &format!("failed: {reason}")))?;
    if (400..500).contains(&answer.status) {
        tracing::info!(
            path = %path,
            status = answer.status,
            "the gateway has no model listing; claude's models are not narrowed"
        );
        return Ok(None);
    }
    if !(200..300).contains(&answer.status) {
        let body = redacted(&String::from_utf8_lossy(&answer.body), headers);
        let quoted: String = body.chars().take(MAX_QUOTED_BODY_CHARS).collect();
        return Err(failure(
            &path,
            &format!("returned {}: {quoted}", answer.status),
        ));
    }
    serde_json::from_slice::<Value>(&answer.body)
        .ok()
        .filter(Value::is_object)
        .map(Some)
        .ok_or_else(|| failure(&path, "returned an unexpected body"))
}

async fn within_limit<T>(
    endpoint: &str,
    listing: impl Future<Output = Result<T, ListingError>>,
) -> Result<T, ListingError> {
    tokio::time::timeout(LISTING_TIMEOUT, listing)
        .await
        .unwrap_or_else(|_| {
            Err(failure(
                &path_of(endpoint),
                &format!("failed: no answer within {} s", LISTING_TIMEOUT.as_secs()),
            ))
        })
}

fn failure(path: &str, reason: &str) -> ListingError {
    let error = ListingError(format!("Model listing GET {path} {reason}"));
    tracing::warn!("{}", error.0);
    error
}

/// The non-empty strings under `field` of each entry.
fn string_field(entries: &[Value], field: &str) -> Vec<String> {
    entries
        .iter()
        .filter_map(|entry| entry.get(field).and_then(Value::as_str))
        .filter(|id| !id.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// The path of `url` (`https://gw.example/anthropic/v1/models` -> `/anthropic/v1/models`).
fn path_of(url: &str) -> String {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    match after_scheme.find('/') {
        Some(slash) => after_scheme[slash..]
            .split(['?', '#'])
            .next()
            .unwrap_or("/")
            .to_owned(),
        None => "/".to_owned(),
    }
}

/// Whether the URL's authority has `user:password@`.
fn has_credentials(url: &str) -> bool {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = after_scheme.split(['/', '?', '#']).next().unwrap_or("");
    authority.contains('@')
}

/// A gateway's error body with the header values it may echo hidden.
fn redacted(body: &str, headers: &[(String, String)]) -> String {
    headers
        .iter()
        .filter(|(_, value)| value.len() >= 4)
        .fold(body.to_owned(), |body, (_, value)| {
            body.replace(value.as_str(), "[redacted]")
        })
}

fn query_encoded(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// An HTTP header name: one or more token characters (RFC 9110).
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// An HTTP header value: visible characters, spaces and tabs only (no line breaks).
fn is_header_value(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b == b'\t' || (b' '..=b'~').contains(&b) || b >= 0x80)
}
