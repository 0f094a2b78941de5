//! `_meta.gateway` of `authenticate`, read or refused naming the field.

use serde_json::{Value, json};

use crate::acp::from_proto::gateway;
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
