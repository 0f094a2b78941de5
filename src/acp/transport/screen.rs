//! The check every editor line passes before the SDK reads it: lines the SDK would answer badly
//! are answered here. A line that is not JSON is answered -32700 without quoting it (the SDK
//! quotes the whole line back, megabytes of it); a line nested deeper than serde_json reads
//! ([`MAX_DEPTH`]) is answered -32600 without quoting it; a request whose id is readable but whose
//! envelope is wrong (`"jsonrpc": "1.0"`, params a string) is answered -32600 under its id (the
//! SDK answers it under `id: null`, which the editor cannot match to its request).

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// serde_json stops reading at this many nested arrays and objects (its recursion limit), so the
/// SDK cannot read such a line; reading the whole line is never needed to refuse it.
pub(super) const MAX_DEPTH: usize = 128;

/// Why a line is answered here instead of being passed on: the answer's id, code and message.
#[derive(Debug, PartialEq)]
pub(super) struct Refusal {
    pub(super) id: Value,
    pub(super) code: i64,
    pub(super) message: String,
}

/// `None` when the SDK may read `line` (one whole line, not blank); otherwise what to answer.
pub(super) fn refusal(line: &str) -> Option<Refusal> {
    if too_deep(line.as_bytes()) {
        return Some(Refusal {
            id: readable_request_id(line).unwrap_or(Value::Null),
            code: -32600,
            message: format!(
                "Invalid request: the message nests arrays and objects {MAX_DEPTH} or more levels deep"
            ),
        });
    }
    let parsed = if line.trim_start().starts_with('{') {
        serde_json::from_str::<Envelope>(line).map(Some)
    } else {
        serde_json::from_str::<IgnoredAny>(line).map(|_| None)
    };
    let envelope = match parsed {
        Ok(envelope) => envelope?,
        Err(error) if error.is_syntax() || error.is_eof() => {
            tracing::info!(
                bytes = line.len(),
                column = error.column(),
                "an editor line is not JSON; answering -32700"
            );
            return Some(Refusal {
                id: Value::Null,
                code: -32700,
                message: "Parse error: the line is not JSON".to_owned(),
            });
        }
        // JSON the envelope does not read (a duplicate member): the SDK's to judge.
        Err(_) => return None,
    };
    let problem = envelope.request_problem()?;
    tracing::info!(
        problem,
        "an editor request has the wrong shape; answering -32600"
    );
    Some(Refusal {
        id: envelope.id.unwrap_or(Value::Null),
        code: -32600,
        message: format!("Invalid request: {problem}"),
    })
}

/// Whether `line` opens [`MAX_DEPTH`] arrays or objects inside one another (outside strings). A
/// line cut inside a string is left to the parser.
fn too_deep(line: &[u8]) -> bool {
    let mut depth = 0usize;
    let mut at = 0;
    while at < line.len() {
        match line[at] {
            b'"' => {
                // Strings hold most of a line's bytes (a prompt, an image): skipped by memchr.
                let mut scan = at + 1;
                loop {
                    let Some(found) = memchr::memchr2(b'"', b'\\', &line[scan.min(line.len())..])
                    else {
                        return false;
                    };
                    let found = scan + found;
                    if line[found] == b'"' {
                        at = found;
                        break;
                    }
                    scan = found + 2;
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth >= MAX_DEPTH {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    false
}

/// The id of a request too deep to read whole: serde_json skips unknown members without
/// recursing, so the id and method still read.
fn readable_request_id(line: &str) -> Option<Value> {
    #[derive(Deserialize)]
    struct IdOnly {
        id: Option<Value>,
        #[allow(dead_code)]
        method: IgnoredAny,
    }
    serde_json::from_str::<IdOnly>(line).ok()?.id
}

/// The members of a JSON-RPC message that decide its shape; a member present as `null` is
/// `Some(Value::Null)`, as the SDK (which asks whether the key is there) sees it.
#[derive(Deserialize)]
struct Envelope {
    #[serde(default, deserialize_with = "present")]
    jsonrpc: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    method: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    params: Option<Kind>,
    #[serde(default, deserialize_with = "present")]
    result: Option<IgnoredAny>,
    #[serde(default, deserialize_with = "present")]
    error: Option<IgnoredAny>,
}

fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

impl Envelope {
    /// What is wrong with a request (method and id, no result or error) whose id the editor can
    /// match an answer to; `None` for a good one and for every other message.
    fn request_problem(&self) -> Option<&'static str> {
        let id = self.id.as_ref()?;
        let id_is_good = match id {
            Value::Null | Value::String(_) => true,
            Value::Number(n) => n.is_i64(),
            _ => false,
        };
        if self.method.is_none() || self.result.is_some() || self.error.is_some() || !id_is_good {
            return None;
        }
        if self.jsonrpc.as_ref().and_then(Value::as_str) != Some("2.0") {
            Some("\"jsonrpc\" must be \"2.0\"")
        } else if !self.method.as_ref().is_some_and(Value::is_string) {
            Some("\"method\" must be a string")
        } else if self.params == Some(Kind::Other) {
            Some("\"params\" must be an object or an array")
        } else {
            None
        }
    }
}

/// What kind of JSON value `params` is; its contents are skipped, not built.
#[derive(Debug, PartialEq)]
enum Kind {
    /// An object, an array or `null`: what JSON-RPC allows.
    Structured,
    Other,
}

impl<'de> de::Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KindVisitor;
        impl<'de> Visitor<'de> for KindVisitor {
            type Value = Kind;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Kind::Structured)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Kind::Structured)
            }
            fn visit_unit<E>(self) -> Result<Kind, E> {
                Ok(Kind::Structured)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Kind, E> {
                Ok(Kind::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Kind, E> {
                Ok(Kind::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Kind, E> {
                Ok(Kind::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Kind, E> {
                Ok(Kind::Other)
            }
            fn visit_str<E>(self, _: &str) -> Result<Kind, E> {
                Ok(Kind::Other)
            }
        }
        deserializer.deserialize_any(KindVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn nested(depth: usize) -> String {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"m\",\"params\":{}{}}}",
            "[".repeat(depth - 1),
            "]".repeat(depth - 1)
        )
    }

    #[test]
    fn the_depth_refused_is_the_depth_serde_json_cannot_read() {
        let readable = nested(MAX_DEPTH - 1);
        assert!(serde_json::from_str::<Value>(&readable).is_ok());
        assert_eq!(refusal(&readable), None);
        let unreadable = nested(MAX_DEPTH);
        assert!(serde_json::from_str::<Value>(&unreadable).is_err());
        let refused = refusal(&unreadable).expect("refused");
        assert_eq!((refused.id, refused.code), (json!(4), -32600));
        // Brackets inside strings do not count.
        let in_a_string = format!("{{\"a\":\"{}\"}}", "[".repeat(500));
        assert_eq!(refusal(&in_a_string), None);
    }

    #[test]
    fn a_request_of_the_wrong_shape_is_refused_under_its_id() {
        let cases = [
            (json!({"jsonrpc": "1.0", "id": 7, "method": "m"}), "jsonrpc"),
            (json!({"id": "a", "method": "m", "params": {}}), "jsonrpc"),
            (json!({"jsonrpc": "2.0", "id": 7, "method": 3}), "method"),
            (
                json!({"jsonrpc": "2.0", "id": 7, "method": "m", "params": "x"}),
                "params",
            ),
        ];
        for (message, member) in cases {
            let refused = refusal(&message.to_string()).expect("refused");
            assert_eq!(refused.id, message["id"], "{message}");
            assert_eq!(refused.code, -32600);
            assert!(refused.message.contains(member), "{}", refused.message);
        }
        for good in [
            json!({"jsonrpc": "2.0", "id": 7, "method": "m", "params": null}),
            json!({"jsonrpc": "2.0", "id": 7, "method": "m", "params": [1]}),
            json!({"jsonrpc": "2.0", "method": "m", "params": {}}),
            json!({"jsonrpc": "2.0", "id": 7, "result": {}}),
            // An id the editor could not match anyway: the SDK's to answer.
            json!({"jsonrpc": "1.0", "id": 1.5, "method": "m"}),
        ] {
            assert_eq!(refusal(&good.to_string()), None, "{good}");
        }
    }

    #[test]
    fn a_line_that_is_not_json_is_refused_without_quoting_it() {
        for line in ["not json", "{\"a\":", "[1,", "{\"a\":1} trailing"] {
            let refused = refusal(line).expect("refused");
            assert_eq!((refused.id, refused.code), (Value::Null, -32700), "{line}");
            assert!(!refused.message.contains(line));
        }
    }
}
