use std::sync::Mutex;

use serde_json::json;

use super::*;

/// A scripted answer: the status and body, or why no answer came.
type ScriptedAnswer = Result<(u16, String), String>;
/// A GET sent: its URL and headers.
type Sent = (String, Vec<(String, String)>);

/// A gateway that answers each GET from its script, in order, and records what it was sent.
struct Scripted {
    answers: Mutex<Vec<ScriptedAnswer>>,
    sent: Mutex<Vec<Sent>>,
}

impl Scripted {
    fn new(answers: Vec<ScriptedAnswer>) -> Self {
        Self {
            answers: Mutex::new(answers),
            sent: Mutex::new(Vec::new()),
        }
    }

    fn urls(&self) -> Vec<String> {
        self.sent
            .lock()
            .unwrap()
            .iter()
            .map(|(u, _)| u.clone())
            .collect()
    }
}

impl Get for Scripted {
    async fn get(&self, url: &str, headers: &[(String, String)]) -> Result<Answer, String> {
        self.sent
            .lock()
            .unwrap()
            .push((url.to_owned(), headers.to_vec()));
        let mut answers = self.answers.lock().unwrap();
        assert!(!answers.is_empty(), "an unscripted GET {url}");
        answers.remove(0).map(|(status, body)| Answer {
            status,
            body: body.into_bytes(),
        })
    }
}

const SECRET: &str = "s3cret-header-value";

fn gateway(api: ApiKind) -> Gateway {
    Gateway {
        api,
        base_url: "https://gw.example/ai/".into(),
        headers: vec![("X-Gateway-Key".into(), SECRET.into())],
        vertex: None,
    }
}

fn page(ids: &[&str], more: bool) -> ScriptedAnswer {
    let data: Vec<_> = ids
        .iter()
        .map(|id| json!({"id": id, "type": "model"}))
        .collect();
    Ok((
        200,
        json!({"data": data, "has_more": more, "last_id": ids.last()}).to_string(),
    ))
}

fn run<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(future)
}

#[test]
fn an_anthropic_listing_follows_its_pages_with_the_gateway_s_headers() {
    let http = Scripted::new(vec![
        page(&["claude-opus-5-5", "claude-sonnet-5-5"], true),
        page(&["claude-haiku-5-5"], false),
    ]);
    let listed = run(list(&gateway(ApiKind::Anthropic), &http)).unwrap();
    assert_eq!(
        listed.unwrap().ids,
        ["claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5"]
    );
    assert_eq!(
        http.urls(),
        [
            "https://gw.example/ai/v1/models?limit=1000",
            "https://gw.example/ai/v1/models?limit=1000&after_id=claude-sonnet-5-5",
        ]
    );
    let headers = &http.sent.lock().unwrap()[0].1;
    let get = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("x-gateway-key"), Some(SECRET));
    assert_eq!(get("authorization"), Some("Bearer acp-proxy"));
    assert_eq!(get("anthropic-version"), Some("2023-06-01"));
}

#[test]
fn the_gateway_s_headers_replace_the_listing_s_own_whatever_their_case() {
    let mut gw = gateway(ApiKind::Anthropic);
    gw.headers = vec![("Authorization".into(), format!("Bearer {SECRET}"))];
    let http = Scripted::new(vec![page(&["claude-opus-5-5"], false)]);
    run(list(&gw, &http)).unwrap();
    let headers = &http.sent.lock().unwrap()[0].1;
    let auth: Vec<_> = headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("authorization"))
        .collect();
    assert_eq!(auth.len(), 1, "{auth:?}");
    assert_eq!(auth[0].1, format!("Bearer {SECRET}"));
}

#[test]
fn a_listing_that_fails_names_its_path_and_reason_and_never_a_header_value() {
    // (answers, what the error says)
    let cases: Vec<(Vec<ScriptedAnswer>, &str)> = vec![
        (
            vec![Ok((500, format!("upstream down; got key {SECRET}")))],
            "Model listing GET /ai/v1/models returned 500: upstream down; got key [redacted]",
        ),
        (
            vec![Err("connection refused".into())],
            "Model listing GET /ai/v1/models failed: connection refused",
        ),
        (
            vec![Ok((200, "<html>gateway</html>".into()))],
            "Model listing GET /ai/v1/models returned an unexpected body",
        ),
        (
            vec![Ok((200, json!({"models": []}).to_string()))],
            "Model listing GET /ai/v1/models returned an unexpected body",
        ),
        (
            vec![page(&["claude-opus-5-5"], true), Ok((503, "busy".into()))],
            "Model listing GET /ai/v1/models returned 503: busy",
        ),
        (
            vec![Ok((301, String::new()))],
            "Model listing GET /ai/v1/models returned 301: ",
        ),
    ];
    for (answers, expected) in cases {
        let http = Scripted::new(answers);
        let error = run(list(&gateway(ApiKind::Anthropic), &http)).unwrap_err();
        assert_eq!(error.0, expected);
        assert!(!error.0.contains(SECRET));
    }
}

#[test]
fn a_4xx_on_any_page_means_no_listing_and_nothing_is_narrowed() {
    for answers in [
        vec![Ok((404, "not found".to_owned()))],
        vec![Ok((401, String::new()))],
        vec![page(&["claude-opus-5-5"], true), Ok((403, String::new()))],
    ] {
        let http = Scripted::new(answers);
        assert_eq!(run(list(&gateway(ApiKind::Anthropic), &http)), Ok(None));
    }
}

#[test]
fn a_gateway_that_cannot_be_asked_is_refused_before_any_request() {
    let mut with_credentials = gateway(ApiKind::Anthropic);
    with_credentials.base_url = "https://user:pw@gw.example".into();
    let mut bad_header = gateway(ApiKind::Anthropic);
    bad_header.headers = vec![("X-Key".into(), format!("{SECRET}\r\nX-Other: 1"))];
    let cases = [
        (
            with_credentials,
            "Model listing GET /v1/models cannot be sent: the base URL carries credentials",
        ),
        (
            bad_header,
            "Model listing cannot send the invalid header \"X-Key\"",
        ),
    ];
    for (gw, expected) in cases {
        let http = Scripted::new(vec![]);
        assert_eq!(run(list(&gw, &http)).unwrap_err().0, expected);
        assert!(http.urls().is_empty());
    }
}

#[test]
fn a_gateway_that_never_stops_paging_is_read_twenty_pages_deep() {
    let http = Scripted::new((0..MAX_PAGES).map(|_| page(&["claude-x"], true)).collect());
    let listed = run(list(&gateway(ApiKind::Anthropic), &http))
        .unwrap()
        .unwrap();
    assert_eq!(listed.ids.len(), MAX_PAGES);
}

#[test]
fn a_bedrock_listing_keeps_anthropic_models_under_one_region_prefix() {
    let summaries = |ids: &[&str]| {
        let models: Vec<_> = ids.iter().map(|id| json!({"modelId": id})).collect();
        Ok((200, json!({"modelSummaries": models}).to_string()))
    };
    // (listed ids, kept ids, region prefix)
    let cases: &[(&[&str], &[&str], Option<&str>)] = &[
        (
            &[
                "eu.anthropic.claude-opus-5-5-v1:0",
                "us.anthropic.claude-opus-5-5-v1:0",
                "meta.llama4",
                "eu.anthropic.claude-haiku-5-5-v1:0",
            ],
            &[
                "eu.anthropic.claude-opus-5-5-v1:0",
                "eu.anthropic.claude-haiku-5-5-v1:0",
            ],
            Some("eu"),
        ),
        (
            &[
                "us.anthropic.claude-opus-5-5-v1:0",
                "global.anthropic.claude-sonnet-5-5-v1:0",
                "anthropic.claude-haiku-5-5-v1:0",
            ],
            &["global.anthropic.claude-sonnet-5-5-v1:0"],
            Some("global"),
        ),
        (
            &["anthropic.claude-haiku-5-5-v1:0", "amazon.nova"],
            &["anthropic.claude-haiku-5-5-v1:0"],
            None,
        ),
    ];
    for (ids, kept, prefix) in cases {
        let http = Scripted::new(vec![summaries(ids)]);
        let listed = run(list(&gateway(ApiKind::Bedrock), &http))
            .unwrap()
            .unwrap();
        assert_eq!(listed.ids, *kept, "{ids:?}");
        assert_eq!(listed.region_prefix.as_deref(), *prefix, "{ids:?}");
        assert_eq!(http.urls(), ["https://gw.example/ai/foundation-models"]);
        assert!(
            !http.sent.lock().unwrap()[0]
                .1
                .iter()
                .any(|(n, _)| n == "anthropic-version")
        );
    }
    let http = Scripted::new(vec![Ok((200, json!({"data": []}).to_string()))]);
    assert_eq!(
        run(list(&gateway(ApiKind::Bedrock), &http)).unwrap_err().0,
        "Model listing GET /ai/foundation-models returned an unexpected body"
    );
}

#[test]
fn a_vertex_gateway_is_not_listed() {
    let http = Scripted::new(vec![]);
    assert_eq!(run(list(&gateway(ApiKind::Vertex), &http)), Ok(None));
}

#[test]
fn a_gateway_that_does_not_answer_in_time_fails_the_listing() {
    struct Silent;
    impl Get for Silent {
        async fn get(&self, _: &str, _: &[(String, String)]) -> Result<Answer, String> {
            std::future::pending().await
        }
    }
    let error = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap()
        .block_on(list(&gateway(ApiKind::Anthropic), &Silent))
        .unwrap_err();
    assert_eq!(
        error.0,
        "Model listing GET /ai/v1/models failed: no answer within 10 s"
    );
}
