//! `_meta.gateway` of `authenticate`, read or refused naming the field.

use serde_json::{Value, json};

use crate::acp::shared::from_proto::gateway;
use crate::domain::{AgentError, Gateway};

fn read(meta: Value) -> Result<Option<Gateway>, AgentError> {
    gateway(meta.as_object())
}

#[test]
fn a_gateway_is_read_with_its_headers() {
    let got = read(json!({"gateway": {"baseUrl": " https://gw.example.com/v1 ",
                                      "headers": {"X-Team": "blue", "Authorization": "Bearer s3cret"}}}))
    .unwrap()
    .unwrap();
    assert_eq!(got.base_url, "https://gw.example.com/v1");
    assert!(got.headers.contains(&("X-Team".into(), "blue".into())));
    assert_eq!(got.headers.len(), 2);
    let plain = read(json!({"gateway": {"baseUrl": "http://127.0.0.1:8080"}}))
        .unwrap()
        .unwrap();
    assert!(plain.headers.is_empty());
    assert_eq!(read(json!({"other": 1})).unwrap(), None);
    assert_eq!(read(json!({"gateway": null})).unwrap(), None);
    assert!(
        !format!("{got:?}").contains("s3cret"),
        "headers are not printed"
    );
}

#[test]
fn bad_gateways_are_refused_naming_the_field() {
    let cases = [
        (
            json!({"gateway": "https://gw"}),
            "`_meta.gateway` must be an object",
        ),
        (
            json!({"gateway": {}}),
            "`_meta.gateway.baseUrl` must be an absolute http(s) URL",
        ),
        (
            json!({"gateway": {"baseUrl": "ftp://gw"}}),
            "`_meta.gateway.baseUrl`",
        ),
        (
            json!({"gateway": {"baseUrl": "file:///etc/passwd"}}),
            "`_meta.gateway.baseUrl`",
        ),
        (
            json!({"gateway": {"baseUrl": "https://"}}),
            "`_meta.gateway.baseUrl`",
        ),
        (
            json!({"gateway": {"baseUrl": 7}}),
            "`_meta.gateway.baseUrl`",
        ),
        (
            json!({"gateway": {"baseUrl": "https://gw", "headers": ["X: y"]}}),
            "`_meta.gateway.headers` must be an object",
        ),
        (
            json!({"gateway": {"baseUrl": "https://gw", "headers": {"X-Key": 42}}}),
            "`_meta.gateway.headers.X-Key` must be a string",
        ),
        (
            json!({"gateway": {"baseUrl": "https://gw", "headers": {"X-Key": "a\nEvil: b"}}}),
            "`_meta.gateway.headers.X-Key` must be a single line",
        ),
        (
            json!({"gateway": {"baseUrl": "https://gw", "headers": {"X Key": "v"}}}),
            "is not a header name",
        ),
    ];
    for (meta, expected) in cases {
        match read(meta.clone()) {
            Err(AgentError::InvalidParams(message)) => {
                assert!(message.contains(expected), "{meta}: {message}");
                assert!(
                    !message.contains("Evil"),
                    "a value is never repeated: {message}"
                );
            }
            other => panic!("{meta}: {other:?}"),
        }
    }
}

/// `providers/set` as the editor sends it.
fn set_request(params: Value) -> agent_client_protocol::v1::schema::SetProviderRequest {
    serde_json::from_value(params).expect("a providers/set request")
}

#[test]
fn a_provider_is_read_with_its_api_url_and_headers_and_vertex_its_project() {
    use crate::acp::shared::from_proto::provider_gateway;
    use crate::domain::ApiKind;
    let (id, got) = provider_gateway(set_request(json!({
        "providerId": "main", "apiType": "bedrock", "baseUrl": "https://gw.example.com/bedrock",
        "headers": {"X-Team": "blue", "Authorization": "Bearer s3cret"}})))
    .unwrap();
    assert_eq!(id, "main");
    assert_eq!(got.api, ApiKind::Bedrock);
    assert_eq!(got.base_url, "https://gw.example.com/bedrock");
    assert_eq!(
        got.headers,
        vec![
            ("Authorization".into(), "Bearer s3cret".into()),
            ("X-Team".into(), "blue".into())
        ]
    );
    let (_, vertex) = provider_gateway(set_request(json!({
        "providerId": "main", "apiType": "vertex", "baseUrl": "https://aiplatform.googleapis.com",
        "headers": {}, "_meta": {"claudeCode": {"vertex": {"projectId": "p-1", "region": "us-east5"}}}})))
    .unwrap();
    let target = vertex.vertex.expect("the vertex project");
    assert_eq!(
        (target.project_id.as_str(), target.region.as_str()),
        ("p-1", "us-east5")
    );
}

#[test]
fn bad_providers_are_refused_naming_what_is_wrong_and_never_a_header_value() {
    use crate::acp::shared::from_proto::provider_gateway;
    let cases = [
        (
            json!({"providerId": "main", "apiType": "openai", "baseUrl": "https://gw", "headers": {}}),
            "apiType `openai` is not one claude speaks",
        ),
        (
            json!({"providerId": "main", "apiType": "anthropic", "baseUrl": "ftp://gw", "headers": {}}),
            "baseUrl must be an absolute http(s) URL",
        ),
        (
            json!({"providerId": "main", "apiType": "vertex", "baseUrl": "https://gw", "headers": {}}),
            "`_meta.claudeCode.vertex.projectId`",
        ),
        (
            json!({"providerId": "main", "apiType": "anthropic", "baseUrl": "https://gw",
                   "headers": {"Bad Name": "x"}}),
            "\"Bad Name\" is not a header name",
        ),
        (
            json!({"providerId": "main", "apiType": "anthropic", "baseUrl": "https://gw",
                   "headers": {"X-Key": "s3cret\r\nX-Other: 1"}}),
            "`headers.X-Key` must be a single line",
        ),
    ];
    for (params, expected) in cases {
        let err = provider_gateway(set_request(params.clone())).unwrap_err();
        let AgentError::InvalidParams(message) = &err else {
            panic!("{params}: {err:?}");
        };
        assert!(message.contains(expected), "{params}: {message}");
        assert!(!message.contains("s3cret"), "{message}");
    }
}
