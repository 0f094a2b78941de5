//! Reading the fields of claude's lines that the adapter does not strictly need, so that a shape we
//! did not expect (a `null` list, a number where a string was) costs that field, never the line:
//! a skipped `result` line leaves the editor's prompt unanswered.

use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeOwned, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// Any shape: what does not fit `T` (null included) is `T::default()`. For small fields only: the
/// value is read as generic JSON first.
pub(crate) fn any_shape<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    let value = serde_json::Value::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).unwrap_or_default())
}

/// `null` as `T::default()` (a null list is empty), read straight into `T`: for large fields such
/// as message content, which must not be copied through generic JSON.
pub(crate) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A string where the line has one; anything else is `None`, skipped without being built (a
/// field read on every text delta: [`any_shape`] would build it first).
pub(crate) fn string_or_none<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match d.deserialize_any(ScalarVisitor)? {
        Scalar::Text(text) => Some(text),
        _ => None,
    })
}

/// A non-negative integer where the line has one; anything else is `None`, as [`string_or_none`].
pub(crate) fn u64_or_none<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(match d.deserialize_any(ScalarVisitor)? {
        Scalar::Number(number) => Some(number),
        _ => None,
    })
}

/// An object read into `T` (whose fields should be lenient too); anything else is `T::default()`,
/// skipped without being built.
pub(crate) fn object_or_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    struct ObjectVisitor<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de> + Default> Visitor<'de> for ObjectVisitor<T> {
        type Value = T;

        fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
            formatter.write_str("any JSON")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(MapAccessDeserializer::new(map))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
            skip_seq(seq).map(|_| T::default())
        }
        fn visit_some<E: Deserializer<'de>>(self, d: E) -> Result<T, E::Error> {
            d.deserialize_any(self)
        }
        fn visit_none<E>(self) -> Result<T, E> {
            Ok(T::default())
        }
        fn visit_unit<E>(self) -> Result<T, E> {
            Ok(T::default())
        }
        fn visit_bool<E>(self, _: bool) -> Result<T, E> {
            Ok(T::default())
        }
        fn visit_i64<E>(self, _: i64) -> Result<T, E> {
            Ok(T::default())
        }
        fn visit_u64<E>(self, _: u64) -> Result<T, E> {
            Ok(T::default())
        }
        fn visit_f64<E>(self, _: f64) -> Result<T, E> {
            Ok(T::default())
        }
        fn visit_str<E>(self, _: &str) -> Result<T, E> {
            Ok(T::default())
        }
    }

    d.deserialize_any(ObjectVisitor(PhantomData))
}

/// A JSON value as far as the readers above need it.
enum Scalar {
    Text(String),
    Number(u64),
    Other,
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("any JSON")
    }
    fn visit_str<E>(self, text: &str) -> Result<Scalar, E> {
        Ok(Scalar::Text(text.to_owned()))
    }
    fn visit_string<E>(self, text: String) -> Result<Scalar, E> {
        Ok(Scalar::Text(text))
    }
    fn visit_u64<E>(self, number: u64) -> Result<Scalar, E> {
        Ok(Scalar::Number(number))
    }
    fn visit_i64<E>(self, number: i64) -> Result<Scalar, E> {
        Ok(u64::try_from(number).map_or(Scalar::Other, Scalar::Number))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }
    fn visit_unit<E>(self) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }
    fn visit_none<E>(self) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Scalar, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Scalar, A::Error> {
        skip_seq(seq).map(|_| Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
}

fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::claude::wire::ClaudeMessage;

    #[test]
    fn a_result_of_any_unexpected_shape_is_still_a_result() {
        for line in [
            r#"{"type":"result","subtype":"success","is_error":false,"permission_denials":null,"errors":null}"#,
            r#"{"type":"result","subtype":null,"is_error":"no","result":7,"usage":"x","modelUsage":[1],"permission_denials":{"a":1},"total_cost_usd":"free","new_field":{"x":[]}}"#,
            r#"{"type":"result"}"#,
        ] {
            let parsed = ClaudeMessage::parse(line);
            assert!(
                matches!(parsed, Ok(ClaudeMessage::Result(_))),
                "{line}: {parsed:?}"
            );
        }
    }

    #[test]
    fn a_stream_event_of_any_unexpected_shape_is_still_a_stream_event() {
        for line in [
            r#"{"type":"stream_event","event":{"type":"content_block_delta","index":"0","delta":{"type":"text_delta","text":["t"]}},"session_id":5,"parent_tool_use_id":{}}"#,
            r#"{"type":"stream_event","event":{"type":7,"index":-1,"delta":"x","message":null,"usage":[1]}}"#,
            r#"{"type":"stream_event","event":null,"session_id":null}"#,
            r#"{"type":"stream_event","event":[{"type":"message_stop"}]}"#,
        ] {
            let parsed = ClaudeMessage::parse(line);
            assert!(
                matches!(parsed, Ok(ClaudeMessage::StreamEvent(_))),
                "{line}: {parsed:?}"
            );
        }
    }

    #[test]
    fn null_lists_and_fields_in_other_messages_are_empty() {
        let assistant = r#"{"type":"assistant","message":{"id":null,"model":5,"content":null,"stop_reason":[],"usage":null},"session_id":3,"aborted":null,"tool_use_meta":"x","parent_tool_use_id":{}}"#;
        match ClaudeMessage::parse(assistant) {
            Ok(ClaudeMessage::Assistant(a)) => assert!(a.message.content.is_empty()),
            other => panic!("{other:?}"),
        }
        let system = r#"{"type":"system","subtype":null,"session_id":5}"#;
        assert!(matches!(
            ClaudeMessage::parse(system),
            Ok(ClaudeMessage::System(_))
        ));
        let user = r#"{"type":"user","message":{"content":null},"tool_use_result":null}"#;
        assert!(matches!(
            ClaudeMessage::parse(user),
            Ok(ClaudeMessage::User(_))
        ));
    }
}
